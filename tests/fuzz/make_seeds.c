/* make_seeds.c — fuzzer seeds from real traces (scripts/fuzz.sh).
 *
 *   make_seeds merged OUT TRACE.tf
 *       OUT.stored.tf  the merged trace with its sections stored raw: what
 *                      the mutator can work on (mutated zstd data is only
 *                      ever a decompression error);
 *       OUT.zstd.tf    the same, compressed as a run writes it;
 *       OUT.small.tf   stored, with the function table cut down to the
 *                      functions the trace uses.
 *   make_seeds ranks OUT CAP RANK-0.flat RANK-1.flat ...   (one run's flat files)
 *       OUT-rank-R.tfc        the compressed per-rank file the recorder would
 *                             have written for rank R (a run writes them only
 *                             when it stops before MPI_Finalize): the same
 *                             compressor and writer; memory cap CAP bytes
 *                             for the first file (a small cap makes several
 *                             segments), 256M for the others, which measure
 *                             whether folding pays every 64 events (flat
 *                             runs, fold/flatrun.h, where it does not);
 *       OUT-rank-R.small.tfc  the same with the function table cut down to
 *       OUT-rank-R.small.flat the functions the run uses (on any rank, so
 *                             that the ranks' files still merge), and the
 *                             flat file likewise.
 *
 * Every trace carries the whole table of recorded MPI functions (about 13
 * KB, most of a short trace): in the "small" seeds the mutations land on
 * the structure (records, segments, nodes, value sequences) instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/compressor.h"
#include "util/file_io.h"
#include "format/flat_writer.h"
#include "merge/mtrace.h"

static int die(const char *what, const char *msg) {
  fprintf(stderr, "make_seeds: %s: %s\n", what, msg);
  return 1;
}

/* The functions marked in used[], in table order; map[old] = new index. */
static tf_func_desc *subset(const tf_func_desc *funcs, uint32_t n, const uint8_t *used, uint32_t *map,
                            uint32_t *nsub) {
  tf_func_desc *sub = malloc((n ? n : 1) * sizeof *sub);
  if (!sub) return NULL;
  *nsub = 0;
  for (uint32_t i = 0; i < n; i++) {
    map[i] = used[i] ? *nsub : UINT32_MAX;
    if (used[i]) sub[(*nsub)++] = funcs[i];
  }
  return sub;
}

/* ---- merged traces ---------------------------------------------------------- */

static int write_merged(const char *out, const char *suffix, tf_mtrace *t, int level) {
  char path[4096];
  snprintf(path, sizeof path, "%s.%s.tf", out, suffix);
  tf_buf b = {0};
  if (tf_mtrace_encode(t, &b, level)) return die(path, "out of memory");
  FILE *f = fopen(path, "wb");
  int bad = !f || fwrite(b.data, 1, b.len, f) != b.len;
  if (f && fclose(f)) bad = 1;
  tf_buf_free(&b);
  return bad ? die(path, "cannot write") : 0;
}

static void mark_used(tf_mnode *const *x, uint32_t n, uint8_t *used) {
  for (uint32_t i = 0; i < n; i++) {
    if (x[i]->is_loop)
      mark_used(x[i]->body, x[i]->nbody, used);
    else
      used[x[i]->fn] = 1;
  }
}

static void renumber(tf_mnode *const *x, uint32_t n, const uint32_t *map) {
  for (uint32_t i = 0; i < n; i++) {
    if (x[i]->is_loop)
      renumber(x[i]->body, x[i]->nbody, map);
    else
      x[i]->fn = map[x[i]->fn];
  }
}

static int merged(const char *out, const char *in) {
  char err[1024];
  uint8_t *data;
  size_t len;
  if (tf_load_file(in, &data, &len, err, sizeof err)) return die(in, err);
  tf_mtrace t;
  tf_status st = tf_mtrace_decode(data, len, in, &t, err, sizeof err);
  free(data);
  if (st) return die(in, err);
  int rc = write_merged(out, "stored", &t, 0) || write_merged(out, "zstd", &t, 3);
  uint8_t *used = calloc(t.ft.n + 1, 1);
  uint32_t *map = malloc((t.ft.n + 1) * sizeof *map), nsub = 0;
  tf_func_desc *sub = NULL;
  if (used && map) {
    mark_used(t.top, t.ntop, used);
    sub = subset(t.ft.funcs, t.ft.n, used, map, &nsub);
  }
  tf_functable small;
  if (!rc && (!sub || tf_functable_copy(&small, sub, nsub))) rc = die(out, "out of memory");
  if (!rc) {
    renumber(t.top, t.ntop, map);
    tf_functable_free(&t.ft);
    t.ft = small;
    rc = write_merged(out, "small", &t, 0);
  }
  free(sub);
  free(map);
  free(used);
  tf_mtrace_free(&t);
  return rc;
}

/* ---- per-rank files --------------------------------------------------------- */

/* Rewrite one flat file as `kind` with function table funcs[0..nfuncs) (map:
 * the file's function index to that table's). */
static int rewrite(const char *out, const char *in, tf_file_kind kind, const tf_func_desc *funcs, uint32_t nfuncs,
                   const uint32_t *map, size_t cap, uint32_t flat_window) {
  char err[1024];
  tf_file_reader *r;
  if (tf_file_open(in, &r, err, sizeof err)) return die(in, err);
  tf_file_info info = *tf_file_get_info(r);
  info.kind = kind;
  info.funcs = funcs;
  info.nfuncs = nfuncs;
  tf_file_writer *w = tf_file_writer_open(out, kind, &info, err, sizeof err);
  if (!w) {
    tf_file_close(r);
    return die(out, err);
  }
  tf_compressor c;
  int comp = kind == TF_FILE_COMPRESSED, rc = 0;
  if (comp && tf_compressor_init(&c, funcs, nfuncs, cap)) rc = die(out, "out of memory");
  if (comp) tf_compressor_set_timing(&c, (tf_timing_mode)info.timing, info.bins);
  if (comp) tf_compressor_set_flat_window(&c, flat_window);
  uint32_t declared = 0;
  tf_event ev;
  while (!rc && tf_file_next(r, &ev) == 1) {
    uint32_t site = 0; /* call sites are declared in order of first use, as the recorder does */
    while (site < info.ncallsites && info.callsites[site].sig != ev.callsite) site++;
    if (site == info.ncallsites) {
      rc = die(in, "event with an undeclared call site");
      break;
    }
    for (; declared <= site; declared++) {
      const tf_callsite *cs = &info.callsites[declared];
      if (tf_file_writer_callsite(w, declared, cs->sig, cs->module, cs->offset)) rc = die(out, "write failed");
    }
    uint32_t fn = map[ev.fn];
    if (comp ? tf_compressor_event(&c, w, fn, ev.thread, site, ev.compute_ns, ev.duration_ns, ev.nvals, ev.vals) < 0
             : tf_file_writer_event(w, fn, ev.thread, site, ev.compute_ns, ev.duration_ns, ev.nvals, ev.vals) != 0)
      rc = die(out, "write failed");
  }
  if (comp && !rc && tf_compressor_finish(&c, w)) rc = die(out, "compressor failed");
  if (comp) tf_compressor_free(&c);
  if (info.lost_events) tf_file_writer_lost(w, info.lost_events);
  if (info.partial) tf_file_writer_partial(w, info.partial);
  if (tf_file_writer_close(w, err, sizeof err) != TF_OK && !rc) rc = die(out, err);
  tf_file_close(r);
  return rc;
}

static int ranks(const char *out, size_t cap0, char **files, int n) {
  char err[1024];
  tf_file_reader *r;
  if (tf_file_open(files[0], &r, err, sizeof err)) return die(files[0], err);
  const tf_file_info *info = tf_file_get_info(r);
  uint32_t nfuncs = info->nfuncs;
  uint8_t *used = calloc(nfuncs + 1, 1);
  uint32_t *identity = malloc((nfuncs + 1) * sizeof *identity), *map = malloc((nfuncs + 1) * sizeof *map), nsub = 0;
  int rc = !used || !identity || !map ? die(out, "out of memory") : 0;
  for (uint32_t i = 0; !rc && i < nfuncs; i++) identity[i] = i;
  for (int i = 0; !rc && i < n; i++) { /* the functions used on any rank */
    tf_file_reader *q;
    if (tf_file_open(files[i], &q, err, sizeof err)) {
      rc = die(files[i], err);
      break;
    }
    const tf_file_info *qi = tf_file_get_info(q);
    if (!tf_functable_same(qi->funcs, qi->nfuncs, info->funcs, nfuncs)) rc = die(files[i], "another function table");
    tf_event ev;
    while (!rc && tf_file_next(q, &ev) == 1) used[ev.fn] = 1;
    tf_file_close(q);
  }
  tf_func_desc *sub = rc ? NULL : subset(info->funcs, nfuncs, used, map, &nsub);
  if (!rc && !sub) rc = die(out, "out of memory");
  for (int i = 0; !rc && i < n; i++) {
    tf_file_reader *q;
    if (tf_file_open(files[i], &q, err, sizeof err)) {
      rc = die(files[i], err);
      break;
    }
    int rank = tf_file_get_info(q)->rank;
    tf_file_close(q);
    char path[4096];
    size_t cap = i == 0 ? cap0 : (size_t)256 << 20;
    uint32_t window = i == 0 ? 0 : 64;
    snprintf(path, sizeof path, "%s-rank-%d.tfc", out, rank);
    rc = rewrite(path, files[i], TF_FILE_COMPRESSED, info->funcs, nfuncs, identity, cap, window);
    snprintf(path, sizeof path, "%s-rank-%d.small.tfc", out, rank);
    if (!rc) rc = rewrite(path, files[i], TF_FILE_COMPRESSED, sub, nsub, map, cap, window);
    snprintf(path, sizeof path, "%s-rank-%d.small.flat", out, rank);
    if (!rc) rc = rewrite(path, files[i], TF_FILE_FLAT, sub, nsub, map, cap, window);
  }
  free(sub);
  free(map);
  free(identity);
  free(used);
  tf_file_close(r);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "merged") == 0) return merged(argv[2], argv[3]);
  if (argc >= 5 && strcmp(argv[1], "ranks") == 0) return ranks(argv[2], strtoul(argv[3], NULL, 0), argv + 4, argc - 4);
  fprintf(stderr, "usage: make_seeds merged OUT TRACE.tf | make_seeds ranks OUT CAP RANK-0.flat ...\n");
  return 2;
}
