/* cmd_stats.c — `tracefold stats`: what a trace holds and what it costs:
 * ranks, events by function, file bytes against the flat encoding of the
 * same events (what TRACEFOLD_MODE=flat writes), and the call sites
 * resolved to function and file:line (addr2line) where debug info exists.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/addr2line.h"
#include "util/bytes.h"
#include "cli.h"

const char tf_help_stats[] =
    "usage: tracefold stats TRACE\n"
    "  ranks, events by function, the trace's size against the flat files, and call sites as file:line\n"
    "  (no options)\n"
    "example: tracefold stats tracefold-app-16p\n";
#include "format/functable.h"
#include "merge/mtrace.h"
#include "merge/rank_runs.h"

static size_t uvar_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}

/* "function at file:line" for a module-relative return address, or "" */
static void resolve(const char *module, uint64_t offset, char *out, size_t len) {
  tf_where w;
  out[0] = 0;
  if (tf_addr2line(module, &offset, 1, &w)) return;
  const char *base = strrchr(w.line, '/');
  if ((strcmp(w.func, "??") != 0 || strncmp(w.line, "??", 2) != 0) &&
      snprintf(out, len, "%s at %s", w.func, base ? base + 1 : w.line) >= (int)len)
    out[len - 1] = 0; /* a long name, cut */
}

int cmd_stats(int argc, char **argv) {
  tf_input in;
  int orc = tf_options(&argc, argv, "stats", NULL, 0);
  if (orc || (orc = tf_input_open(argc, argv, 0, "stats", &in))) return orc;
  const tf_trace_info *ti = in.info;
  uint64_t *calls = calloc(ti->nfuncs + 1, sizeof *calls), *sitecalls = calloc(ti->ncallsites + 1, sizeof *sitecalls);
  if (!calls || !sitecalls) {
    fprintf(stderr, "tracefold: out of memory\n");
    free(calls);
    free(sitecalls);
    tf_input_close(&in);
    return 1;
  }
  /* the flat files of the same events: header (with the trace's function table: the functions used,
   * where the recorder's flat files carry all of gen/mpi.table), call sites, events, end */
  tf_buf ft = {0};
  tf_functable_encode(&ft, ti->funcs, ti->nfuncs);
  uint64_t flat = 0, events = 0;
  int bad = 0;
  /* one rank per run of ranks that read alike (merge/rank_runs.h), counted for all of them */
  tf_rank_run *runs;
  uint32_t nruns;
  if (tf_trace_rank_runs(in.t, &runs, &nruns)) {
    fprintf(stderr, "tracefold: out of memory\n");
    bad = 1;
    nruns = 0;
    runs = NULL;
  }
  for (uint32_t i = 0; i < nruns && !bad; i++) {
    tf_rank_cursor *c = tf_input_cursor(&in, runs[i].first);
    if (!c) {
      bad = 1;
      break;
    }
    uint64_t w = (uint64_t)runs[i].n;
    flat += w * (12 + 4 * 10 + strlen(ti->exe) + strlen(ti->mpi) + ft.len + 10 + 4);
    tf_event ev;
    int rc;
    while ((rc = tf_input_next(&in, c, &ev)) == 1) {
      calls[ev.fn] += w;
      events += w;
      uint32_t site = 0;
      while (site < ti->ncallsites && ti->callsites[site].sig != ev.callsite) site++;
      if (site < ti->ncallsites) sitecalls[site] += w;
      uint64_t len = 1 + uvar_len(ev.fn) + uvar_len(ev.thread) + uvar_len(site) + uvar_len(ev.compute_ns) +
                     uvar_len(ev.duration_ns) + uvar_len(ev.nvals);
      for (uint32_t k = 0; k < ev.nvals; k++) len += uvar_len(tf_zigzag(ev.vals[k]));
      flat += w * len;
    }
    bad = rc < 0;
    tf_rank_cursor_close(c);
  }
  free(runs);
  for (uint32_t s = 0; s < ti->ncallsites; s++) /* each rank declares the sites it uses */
    flat += (uint64_t)in.n * (1 + 2 + 8 + 1 + strlen(ti->callsites[s].module) + uvar_len(ti->callsites[s].offset));
  tf_buf_free(&ft);
  if (!bad) {
    static const char *const source[] = {"merged trace file", "per-rank compressed files (merged when read)",
                                         "per-rank flat files"};
    printf("trace:     %s, %s%s\n", argv[0], source[ti->source], ti->partial ? " (partial)" : "");
    printf("program:   %s\nMPI:       %s\n", ti->exe, ti->mpi);
    const tf_mtrace *mt = tf_trace_mtrace(in.t);
    if (mt && mt->extrap) printf("extrapolated: %s\n", mt->extrap);
    printf("ranks:     %d of %d\n", ti->nranks_present, ti->nranks);
    printf("events:    %" PRIu64 "\n", events);
    if (ti->lost_events)
      printf("LOSSY:     %" PRIu64 " calls were not recorded (the recorder stopped after an internal failure)\n",
             ti->lost_events);
    printf("bytes:     %" PRIu64 " (flat encoding of the same events: %" PRIu64 ", %.1fx)\n", ti->bytes, flat,
           ti->bytes ? (double)flat / (double)ti->bytes : 0.0);
    if (ti->merge_ns) printf("merge:     %.3f ms at MPI_Finalize\n", (double)ti->merge_ns / 1e6);
    if (ti->source == TF_SOURCE_FLAT)
      printf("times:     exact deltas, compute in %s\n", tf_time_unit_name(ti->unit));
    else if (ti->timing == TF_TIMING_HISTOGRAM || ti->timing == TF_TIMING_PATH)
      printf("times:     %s, %u bins, compute in %s\n", tf_timing_mode_name(ti->timing), ti->bins,
             tf_time_unit_name(ti->unit));
    else
      printf("times:     %s, compute in %s\n", tf_timing_mode_name(ti->timing), tf_time_unit_name(ti->unit));
    printf("\n%-26s %12s\n", "function", "calls");
    for (uint32_t f = 0; f < ti->nfuncs; f++)
      if (calls[f]) printf("%-26s %12" PRIu64 "\n", ti->funcs[f].name, calls[f]);
    printf("\n%-16s %10s  %s\n", "call site", "calls", "where");
    for (uint32_t s = 0; s < ti->ncallsites; s++) {
      char where[1200];
      resolve(ti->callsites[s].module, ti->callsites[s].offset, where, sizeof where);
      const char *mod = strrchr(ti->callsites[s].module, '/');
      printf("%016" PRIx64 " %10" PRIu64 "  %s+0x%" PRIx64 "%s%s\n", ti->callsites[s].sig, sitecalls[s],
             mod ? mod + 1 : ti->callsites[s].module, ti->callsites[s].offset, where[0] ? "  " : "", where);
    }
  }
  free(calls);
  free(sitecalls);
  tf_input_close(&in);
  return bad || ferror(stdout) ? 1 : 0;
}
