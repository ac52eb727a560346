/* names.c — printable names for statuses, field kinds and special values. */
#include <inttypes.h>
#include <stdio.h>

#include "tracefold.h"

const char *tf_status_name(tf_status s) {
  switch (s) {
  case TF_OK: return "ok";
  case TF_ERR_IO: return "I/O error";
  case TF_ERR_FORMAT: return "malformed trace";
  case TF_ERR_VERSION: return "unsupported format version";
  case TF_ERR_TRUNCATED: return "truncated trace";
  case TF_ERR_CHECKSUM: return "checksum mismatch";
  case TF_ERR_NOMEM: return "out of memory";
  case TF_ERR_ARG: return "bad argument";
  }
  return "unknown error";
}

static const char *const kind_names[TF_FIELD_KIND_COUNT] = {
    [TF_FIELD_INT] = "int",         [TF_FIELD_COMM] = "comm",         [TF_FIELD_COMM_NEW] = "newcomm",
    [TF_FIELD_PEER] = "peer",       [TF_FIELD_ROOT] = "root",         [TF_FIELD_TAG] = "tag",
    [TF_FIELD_COUNT] = "count",     [TF_FIELD_DTYPE] = "dtype",       [TF_FIELD_DTYPE_NEW] = "newdtype",
    [TF_FIELD_DTSIZE] = "dtsize",   [TF_FIELD_BYTES] = "bytes",       [TF_FIELD_OP] = "op",
    [TF_FIELD_OP_NEW] = "newop",    [TF_FIELD_REQ] = "req",           [TF_FIELD_REQ_NEW] = "newreq",
    [TF_FIELD_GROUP] = "group",     [TF_FIELD_GROUP_NEW] = "newgroup", [TF_FIELD_MSG] = "msg",
    [TF_FIELD_MSG_NEW] = "newmsg",  [TF_FIELD_FLAG] = "flag",         [TF_FIELD_INDEX] = "index",
    [TF_FIELD_SRC] = "src",         [TF_FIELD_MTAG] = "mtag",         [TF_FIELD_MBYTES] = "mbytes",
    [TF_FIELD_INPLACE] = "inplace", [TF_FIELD_WIN] = "win",          [TF_FIELD_WIN_NEW] = "newwin",
    [TF_FIELD_FILE] = "file",       [TF_FIELD_FILE_NEW] = "newfile",  [TF_FIELD_NAME] = "name",
};

const char *tf_field_kind_name(unsigned kind) { return kind < TF_FIELD_KIND_COUNT ? kind_names[kind] : "?"; }

void tf_format_value(int64_t v, char *buf, size_t len) {
  switch (v) {
  case TF_NONE: snprintf(buf, len, "-"); return;
  case TF_ANY_SOURCE: snprintf(buf, len, "ANY_SOURCE"); return;
  case TF_PROC_NULL: snprintf(buf, len, "PROC_NULL"); return;
  case TF_ROOT: snprintf(buf, len, "ROOT"); return;
  case TF_ANY_TAG: snprintf(buf, len, "ANY_TAG"); return;
  case TF_UNDEFINED: snprintf(buf, len, "UNDEFINED"); return;
  case TF_NULL_HANDLE: snprintf(buf, len, "NULL"); return;
  default: snprintf(buf, len, "%" PRId64, v); return;
  }
}

const char *tf_timing_mode_name(unsigned mode) {
  static const char *const names[] = {"none", "stats", "histogram", "path"};
  return mode < sizeof names / sizeof names[0] ? names[mode] : "?";
}

const char *tf_time_unit_name(unsigned unit) {
  static const char *const names[] = {"ns", "instructions", "cpu-ns"};
  return unit < sizeof names / sizeof names[0] ? names[unit] : "?";
}
