#!/usr/bin/env python3
"""emit_portable.py — C for gen/portable.table's constants, for the other
emitters: the recorder's mapping from the MPI library's constants to the
trace's portable values (emit_wrappers.py: tf_portable_SET, in the generated
tf_portable.h) and the replay engine's mapping back (emit_replay.py:
rp_mpi_SET, in tf_replay_calls.c). Not run on its own."""
import os

import mpitable

RAW = "((int64_t)1 << 32)"  # a closed set's unknown value v is kept as v + 2^32


def sets(table_path):
    return mpitable.parse_portable(os.path.join(os.path.dirname(os.path.abspath(table_path)), "portable.table"))


def to_portable(s):
    """static inline int64_t tf_portable_SET(int v): the value the trace keeps."""
    out = []
    for name, (closed, pairs) in s.items():
        out.append("static inline int64_t tf_portable_%s(int v) {" % name)
        out.append("  if (v == MPI_UNDEFINED) return TF_UNDEFINED;")
        for port, const in pairs:
            out.append("  if (v == %s) return %d;" % (const, port))
        out.append("  return %s;" % ("(int64_t)v + " + RAW if closed else "(int64_t)v"))
        out.append("}")
    return out


def from_portable(s):
    """int rp_mpi_SET(int64_t v): this MPI library's constant (and rp_mpi_SET_ints: an array's, into out)."""
    out = []
    for name, (closed, pairs) in s.items():
        out.append("int rp_mpi_%s(int64_t v) {" % name)
        out.append("  if (v == TF_UNDEFINED) return MPI_UNDEFINED;")
        for port, const in pairs:
            out.append("  if (v == %d) return %s;" % (port, const))
        out.append("  return (int)(v %s);" % ("- " + RAW if closed else "+ 0"))
        out.append("}")
        out.append("int *rp_mpi_%s_ints(int *out, const int64_t *v, uint32_t n) {" % name)
        out.append("  for (uint32_t i = 0; i < n; i++) out[i] = rp_mpi_%s(v[i]);" % name)
        out.append("  return out;")
        out.append("}")
    return out
