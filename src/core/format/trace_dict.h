/* trace_dict.h — the built-in zstd dictionary of merged traces (version 6,
 * codec 2; doc/FORMAT.md 3.1). */
#ifndef TF_TRACE_DICT_H
#define TF_TRACE_DICT_H

#include <stddef.h>
#include <stdint.h>

#define TF_TRACE_DICT_CRC 0x0a730e29u /* CRC-32 of its bytes: frozen (trace_dict.c) */

/* The dictionary's bytes (static storage) and, in *len, their number. */
const uint8_t *tf_trace_dict(size_t *len);

#endif
