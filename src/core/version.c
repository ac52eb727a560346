/* version.c — the library's version, as this header had it when it was built. */
#include "tracefold.h"

unsigned tf_version_number(void) { return TF_VERSION_NUMBER; }
