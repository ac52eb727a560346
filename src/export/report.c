#include <stdio.h>
#include "export.h"
tf_export_status tf_report_html(const char *trace, const char *file, const tf_report_opts *o, char *msg, size_t msglen) {
  (void)trace; (void)file; (void)o; snprintf(msg, msglen, "todo"); return TF_EXPORT_FAILED;
}
