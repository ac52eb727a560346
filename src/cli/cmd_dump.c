/* cmd_dump.c — `tracefold dump`: one line per event, every field.
 *
 *   <rank> <thread> <seq> <function> cs=<signature> compute=<ns> dur=<ns> <field>=<value>...
 * Arrays print as [a,b,c]; "-" is a value that is not significant for this
 * call on this rank; peers and matched sources are offsets from the caller.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"

int cmd_dump(int argc, char **argv) {
  tf_input in;
  if (tf_input_open(argc, argv, &in)) return 1;
  char v[64];
  for (int i = 0; i < in.n; i++) {
    tf_flat_reader *r = in.readers[i];
    const tf_flat_info *fi = tf_flat_get_info(r);
    tf_event ev;
    uint64_t seq = 0;
    while (tf_flat_next(r, &ev) == 1) {
      const tf_func_desc *fd = &fi->funcs[ev.fn];
      printf("%d %u %" PRIu64 " %s cs=%016" PRIx64 " compute=%" PRIu64 " dur=%" PRIu64, fi->rank, ev.thread, seq++,
             fd->name, ev.callsite, ev.compute_ns, ev.duration_ns);
      uint32_t pos = 0;
      for (uint32_t k = 0; k < fd->nfields; k++) {
        const tf_field_desc *f = &fd->fields[k];
        if (f->is_array) {
          int64_t n = ev.vals[pos++];
          printf(" %s=[", f->name);
          for (int64_t j = 0; j < n; j++) {
            tf_format_value(ev.vals[pos++], v, sizeof v);
            printf("%s%s", j ? "," : "", v);
          }
          printf("]");
        } else {
          tf_format_value(ev.vals[pos++], v, sizeof v);
          printf(" %s=%s", f->name, v);
        }
      }
      printf("\n");
    }
  }
  tf_input_close(&in);
  return ferror(stdout) ? 1 : 0;
}
