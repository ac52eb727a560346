/* fuzz_trace.c — libFuzzer harness for every tracefold trace reader.
 *
 * One input is one trace, read the way the tools read it:
 *   - starting with a per-rank magic (TFFLAT / TFCOMP): one per-rank file,
 *     or several concatenated (cut at each per-rank magic), written as the
 *     rank-<i> files of a trace directory; each is read with tf_file_open /
 *     tf_file_next to the end, rewound and read again, then the directory
 *     is opened with tf_trace_open (compressed files merged when opened)
 *     and walked as below;
 *   - anything else: a merged trace, opened with tf_trace_open_mem; every
 *     present rank (and a few absent or out-of-range ones) is read through
 *     a cursor, and the loop structure is walked through every node
 *     accessor, into exact-size buffers, small ones included.
 * Then the same trace goes through the reading paths of the tracefold
 * verbs that print from it without running anything (src/cli, linked as
 * tracefold_cli_verbs): show (all ranks, and one), imbalance, time and
 * export smpi, on the file or directory, their output thrown away — if it
 * is small enough to read whole (at most MAX_VERB_EVENTS events and
 * MAX_VERB_RANKS ranks: what a hostile trace declares, the verbs read).
 * A directory of per-rank files also holds a stray rank-0.tfc.part and a
 * stop-meeting file, which every reader must ignore.
 * The sanitizers (ASan with leak checking, UBSan) are the only oracle:
 * hostile input must give an error, never a crash, a leak or a hang.
 *
 * A mutated file almost never has valid checksums, and a checksum
 * mismatch stops the readers before (merged) or after (per-rank) they
 * parse the content, so the code behind a successful open (unrolling,
 * merging, cursors, node accessors) would stay out of the fuzzer's reach.
 * So an input whose checksums do not all match is read twice: as it is
 * (the mismatch paths), then with its checksums repaired (the per-rank
 * CRC; a merged file's section CRCs and end CRC).
 *
 * A hostile file can declare loops of 2^62 iterations; reading it to the
 * end is the caller's choice, not a reader bug, so each pass over an input
 * reads at most EVENT_BUDGET events, all readers together.
 *
 * Built by scripts/fuzz.sh (clang -fsanitize=fuzzer,address,undefined),
 * and without libFuzzer into test_fuzz_regressions (regression_driver.c:
 * ctest unit.fuzz_regressions replays tests/fuzz/regressions/ through it).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "util/bytes.h"
#include "tracefold.h"

enum {
  EVENT_BUDGET = 50000,  /* events read per pass over an input (at most two passes), all readers together */
  MAX_CURSORS = 64,      /* rank cursors opened per merged trace */
  MAX_PROBE = 4096,      /* ranks probed with tf_trace_rank */
  MAX_NODES = 100000,    /* nodes visited per merged trace */
  MAX_SLOTS = 256,       /* parameter positions read per event node */
  MAX_PAIRS = 16,        /* (values, ranks) pairs formatted per sequence */
  MAX_VERB_EVENTS = 20000, /* the verbs read traces of at most this many events ... */
  MAX_VERB_RANKS = 64      /* ... and ranks */
};

static uint64_t budget;
static volatile size_t sink; /* keeps the reads below from being optimised away */

/* ---- touching what a reader hands out, so ASan checks it ---------------- */

static void touch_str(const char *s) {
  if (s) sink += strlen(s);
}

static void touch_funcs(const tf_func_desc *funcs, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    touch_str(funcs[i].name);
    for (uint32_t j = 0; j < funcs[i].nfields; j++) {
      touch_str(funcs[i].fields[j].name);
      touch_str(tf_field_kind_name(funcs[i].fields[j].kind));
      sink += funcs[i].fields[j].is_array;
    }
  }
}

static void touch_callsites(const tf_callsite *cs, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    touch_str(cs[i].module);
    sink += (size_t)(cs[i].sig ^ cs[i].offset);
  }
}

static void touch_event(const tf_event *ev, const tf_func_desc *funcs) {
  touch_str(funcs[ev->fn].name); /* fn indexes the function table, as every tool uses it */
  char buf[32];
  for (uint32_t i = 0; i < ev->nvals; i++) {
    tf_format_value(ev->vals[i], buf, sizeof buf);
    sink += (size_t)buf[0];
  }
  sink += (size_t)(ev->thread ^ ev->callsite ^ ev->compute_ns ^ ev->duration_ns);
}

/* ---- per-rank files ------------------------------------------------------- */

static void read_file(const char *path) {
  char err[512];
  err[0] = 0;
  tf_file_reader *r = NULL;
  tf_status st = tf_file_open(path, &r, err, sizeof err);
  touch_str(tf_status_name(st));
  if (st != TF_OK) {
    touch_str(err);
    return;
  }
  const tf_file_info *in = tf_file_get_info(r);
  touch_str(in->exe);
  touch_str(in->mpi);
  touch_funcs(in->funcs, in->nfuncs);
  touch_callsites(in->callsites, in->ncallsites);
  for (int pass = 0; pass < 2; pass++) {
    tf_event ev;
    int rc = 1;
    uint64_t limit = pass ? 1000 : budget / 2;
    for (uint64_t i = 0; i < limit && budget > 0; i++, budget--) {
      rc = tf_file_next(r, &ev);
      if (rc != 1) break;
      touch_event(&ev, in->funcs);
    }
    if (rc < 0) touch_str(tf_file_error(r));
    tf_file_rewind(r);
  }
  tf_file_close(r);
}

/* ---- merged traces -------------------------------------------------------- */

static void read_rank(tf_trace *t, int32_t rank, const tf_trace_info *in) {
  char err[512];
  err[0] = 0;
  tf_rank_cursor *c = NULL;
  tf_status st = tf_rank_cursor_open(t, rank, &c, err, sizeof err);
  if (st != TF_OK) {
    touch_str(err);
    return;
  }
  tf_event ev;
  int rc = 1;
  uint64_t limit = budget / 2 + 1000; /* leave some for the other ranks */
  for (uint64_t i = 0; i < limit && budget > 0; i++, budget--) {
    rc = tf_rank_cursor_next(c, &ev);
    if (rc != 1) break;
    touch_event(&ev, in->funcs);
    const tf_time_path *tp = tf_rank_cursor_times(c); /* what the replay draws delays from */
    if (tp && tp->compute.nbins) sink += tp->compute.bins[tp->compute.nbins - 1].mean + tp->duration.n;
  }
  if (rc < 0) touch_str(tf_rank_cursor_error(c));
  tf_rank_cursor_close(c);
  /* search in time: never costs more than unrolling, so only on small ranks */
  uint64_t nev = 0;
  if (!tf_trace_rank(t, rank, &nev, NULL) || nev > 20000) return;
  tf_timeline *tl = NULL;
  if (tf_timeline_open(t, rank, &tl, err, sizeof err) != TF_OK) {
    touch_str(err);
    return;
  }
  uint64_t end = tf_timeline_end(tl), at[] = {0, end / 3, end / 2 + 1, end ? end - 1 : 0, end, UINT64_MAX};
  for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
    tf_time_point p;
    int found = tf_timeline_find(tl, at[i], &p);
    if (found < 0) touch_str(tf_timeline_error(tl));
    if (found == 1) {
      touch_str(in->funcs[p.fn].name);
      sink += (size_t)(p.index ^ p.start_ns ^ p.end_ns ^ p.depth ^ (uint64_t)p.in_call);
      for (uint32_t d = 0; d < p.depth && d < TF_TIME_MAXDEPTH; d++) sink += (size_t)p.iteration[d];
    }
  }
  tf_timeline_close(tl);
}

/* An event's delta-time summaries, path by path and all together. */
static void touch_times(const tf_trace *t, const tf_node *n, const tf_trace_info *in) {
  uint32_t np = tf_node_paths(n);
  for (uint32_t i = 0; i <= np && i < 9; i++) {
    tf_time_path p;
    if (tf_node_path(t, n, i == np ? TF_PATHS_ALL : i, &p)) continue;
    if (p.has_prev) touch_str(in->funcs[p.prev_fn].name);
    const tf_time_stat *st[2] = {&p.compute, &p.duration};
    for (int k = 0; k < 2; k++) {
      sink += (size_t)(st[k]->n ^ st[k]->min ^ st[k]->max ^ st[k]->sum ^ (uint64_t)st[k]->min_rank ^
                       (uint64_t)st[k]->rank_mean_hi_rank) + (size_t)(st[k]->mean + st[k]->stddev);
      for (uint32_t b = 0; b < st[k]->nbins && b < TF_TIME_BINS_MAX; b++)
        sink += (size_t)(st[k]->bins[b].lo ^ st[k]->bins[b].hi ^ st[k]->bins[b].n ^ st[k]->bins[b].mean);
    }
  }
}

/* Pair k of a value set as text: into large buffers, then into small heap
 * buffers of exactly the size given, so that ASan sees a write past them. */
static void walk_values(const tf_node *n, int which, size_t small) {
  uint32_t npairs = tf_node_values(n, which, 0, NULL, 0, NULL, 0);
  for (uint32_t k = 0; k < npairs && k < MAX_PAIRS; k++) {
    char v[4096], r[4096];
    tf_node_values(n, which, k, v, sizeof v, r, sizeof r);
    touch_str(v);
    touch_str(r);
    char *sv = small ? malloc(small) : NULL, *sr = malloc(small + 1);
    if ((small && !sv) || !sr) abort();
    tf_node_values(n, which, k, sv, small, sr, small + 1);
    if (sv) touch_str(sv);
    touch_str(sr);
    free(sv);
    free(sr);
  }
}

typedef struct node_stack {
  const tf_node **at;
  size_t n, cap;
} node_stack;

static void push(node_stack *s, const tf_node *const *nodes, uint32_t n) {
  for (uint32_t i = n; i-- > 0;) { /* reversed: popped in order */
    if (s->n == s->cap) {
      s->cap = s->cap ? 2 * s->cap : 1024;
      s->at = realloc(s->at, s->cap * sizeof *s->at);
      if (!s->at) abort();
    }
    s->at[s->n++] = nodes[i];
  }
}

/* Depth-first over the loop structure, iteratively: the harness itself
 * must not overflow the stack. */
/* Value sequence `which` as on `rank`: into a large buffer, then into a
 * small heap buffer of exactly `small` bytes. */
static void values_of(const tf_node *n, int which, int32_t rank, size_t small) {
  char v[4096];
  if (!tf_node_values_of(n, which, rank, v, sizeof v)) return;
  touch_str(v);
  char *sv = small ? malloc(small) : NULL;
  if (small && !sv) abort();
  tf_node_values_of(n, which, rank, sv, small);
  if (sv) touch_str(sv);
  free(sv);
}

static void walk_nodes(const tf_trace *t, const tf_trace_info *in, const int32_t *probe, int nprobe) {
  const tf_node *const *top = NULL;
  uint32_t ntop = tf_trace_top(t, &top);
  node_stack s = {0};
  push(&s, top, ntop);
  for (size_t visited = 0; s.n > 0 && visited < MAX_NODES; visited++) {
    const tf_node *node = s.at[--s.n];
    tf_node_info ni;
    memset(&ni, 0, sizeof ni);
    tf_node_get(node, &ni);
    size_t small = visited % 13; /* 0 .. 12: truncated text, including none at all */
    char *ranks = malloc(small + 1);
    if (!ranks) abort();
    tf_node_ranks(node, ranks, small + 1);
    touch_str(ranks);
    free(ranks);
    char buf[4096];
    tf_node_ranks(node, buf, sizeof buf);
    touch_str(buf);
    walk_values(node, -1, small);
    if (ni.is_loop) {
      push(&s, ni.body, ni.nbody);
    } else {
      touch_str(in->funcs[ni.fn].name);
      for (uint32_t j = 0; j < ni.nslots && j < MAX_SLOTS; j++) walk_values(node, (int)j, small);
      touch_times(t, node, in);
    }
    for (int k = 0; k < nprobe; k++) { /* as on one rank */
      sink += (size_t)tf_node_has_rank(node, probe[k]);
      values_of(node, -1, probe[k], small);
      for (uint32_t j = 0; !ni.is_loop && j < ni.nslots && j < MAX_SLOTS; j++) values_of(node, (int)j, probe[k], small);
    }
    sink += (size_t)(ni.occurrences ^ ni.compute_min ^ ni.compute_max ^ ni.compute_mean ^ ni.duration_min ^
                     ni.duration_max ^ ni.duration_mean ^ ni.thread ^ ni.callsite);
  }
  free(s.at);
}

static void walk_trace(tf_trace *t) {
  const tf_trace_info *in = tf_trace_get_info(t);
  touch_str(in->exe);
  touch_str(in->mpi);
  touch_funcs(in->funcs, in->nfuncs);
  touch_callsites(in->callsites, in->ncallsites);
  sink += (size_t)(in->source ^ in->partial ^ in->thread_level ^ in->start_unix_ns ^ in->nevents ^ in->lost_events ^
                   in->bytes ^ in->merge_ns);

  /* present ranks: probe the first MAX_PROBE (until all present ones are
   * found) and the last; read each through a cursor. Out of range (-1,
   * nranks) or not present: the cursor must refuse, or be empty. */
  int32_t found = 0, cursors = 0, absent_tried = 0;
  int32_t node_ranks[4] = {-1}; /* ranks the nodes are also read as on: -1, then the first present ones */
  int nnode_ranks = 1;
  int64_t probes[MAX_PROBE + 3], nprobes = 0;
  probes[nprobes++] = -1;
  for (int64_t rank = 0; rank < in->nranks && rank < MAX_PROBE; rank++) probes[nprobes++] = rank;
  if (in->nranks > MAX_PROBE) probes[nprobes++] = in->nranks - 1;
  probes[nprobes++] = in->nranks;
  for (int64_t i = 0; i < nprobes; i++) {
    int32_t rank = (int32_t)probes[i];
    int out_of_range = rank < 0 || rank >= in->nranks;
    if (!out_of_range && found >= in->nranks_present && rank != in->nranks - 1) continue;
    uint64_t nev = 0, lost = 0;
    int present = tf_trace_rank(t, rank, &nev, &lost);
    sink += (size_t)(nev ^ lost);
    found += present != 0;
    if (present && nnode_ranks < 4) node_ranks[nnode_ranks++] = rank;
    int absent = !present && !out_of_range && !absent_tried; /* one in range but not present */
    absent_tried |= absent;
    if (cursors < MAX_CURSORS && (present || out_of_range || absent)) {
      read_rank(t, rank, in);
      cursors++;
    }
  }
  walk_nodes(t, in, node_ranks, nnode_ranks);
}

/* A merged trace file, from memory. */
static void read_merged(const uint8_t *data, size_t len) {
  char err[512];
  err[0] = 0;
  tf_trace *t = NULL;
  tf_status st = tf_trace_open_mem(data, len, "fuzz-input", &t, err, sizeof err);
  touch_str(tf_status_name(st));
  if (st != TF_OK) {
    touch_str(err);
    return;
  }
  walk_trace(t);
  tf_trace_close(t);
}

/* A trace directory or file, as the tools open it. */
static void read_path(const char *path, unsigned flags) {
  char err[512];
  err[0] = 0;
  tf_trace *t = NULL;
  tf_status st = tf_trace_open(path, flags, &t, err, sizeof err);
  touch_str(tf_status_name(st));
  if (st != TF_OK) {
    touch_str(err);
    return;
  }
  walk_trace(t);
  tf_trace_close(t);
}

/* ---- checksums -------------------------------------------------------------- */

static void put_crc(uint8_t *at, uint32_t crc) {
  at[0] = (uint8_t)crc;
  at[1] = (uint8_t)(crc >> 8);
  at[2] = (uint8_t)(crc >> 16);
  at[3] = (uint8_t)(crc >> 24);
}

/* Per-rank file: the CRC-32 of everything before the last 4 bytes. */
static void repair_file(uint8_t *d, size_t len) {
  if (len >= 16) put_crc(d + len - 4, tf_crc32(0, d, len - 4));
}

/* Merged file: every section's CRC-32 of its stored bytes, and the end
 * record's CRC-32 of everything before it, as far as the framing holds. */
static void repair_merged(uint8_t *d, size_t len) {
  if (len < 12) return;
  tf_cursor c = {d + 12, d + len, 0};
  for (;;) {
    const uint8_t *at = c.p;
    uint8_t id = tf_cur_u8(&c);
    if (c.bad) return;
    if (id == 0) {
      if (c.end - c.p >= 4) put_crc(d + (c.p - d), tf_crc32(0, d, (size_t)(at - d) + 1));
      return;
    }
    tf_cur_u8(&c);
    tf_cur_uvar(&c);
    uint64_t stored_len = tf_cur_uvar(&c);
    if (c.bad || stored_len > (uint64_t)(c.end - c.p)) return;
    const uint8_t *stored = tf_cur_bytes(&c, (size_t)stored_len);
    if (c.end - c.p < 4) return;
    put_crc(d + (c.p - d), tf_crc32(0, stored, (size_t)stored_len));
    c.p += 4;
  }
}

/* ---- per-rank input: one or more files ----------------------------------- */

enum { MAX_PIECES = 8 };
static char dir[256];

static void remove_dir(void) {
  char path[300];
  snprintf(path, sizeof path, "%s/trace.tf", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/rank-0.tfc.part", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/.tracefold-stop-0000000000000001", dir);
  unlink(path);
  for (int i = 0; i < MAX_PIECES; i++) {
    snprintf(path, sizeof path, "%s/rank-%d.tfc", dir, i);
    unlink(path);
    snprintf(path, sizeof path, "%s/rank-%d.flat", dir, i);
    unlink(path);
  }
  rmdir(dir);
}

static void make_dir(void) {
  if (dir[0]) return;
  /* $TMPDIR if set (scripts/fuzz.sh points it at a directory it removes: a
   * crash ends the process without atexit), else memory, else /tmp */
  const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(dir, sizeof dir, "%s/tf-fuzz.XXXXXX", base);
  if (!mkdtemp(dir)) {
    perror("fuzz_trace: mkdtemp");
    abort();
  }
  atexit(remove_dir);
}

/* ---- the verbs ---------------------------------------------------------------- */

/* Reports of the sanitizers go to the real stderr while a verb's own output
 * (stdout and stderr) goes to /dev/null (weak: absent without sanitizers). */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

static void remove_tree(const char *path) {
  DIR *d = opendir(path);
  if (!d) {
    unlink(path);
    return;
  }
  struct dirent *e;
  char p[600];
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(p, sizeof p, "%s/%s", path, e->d_name);
      unlink(p);
    }
  closedir(d);
  rmdir(path);
}

unsigned long tf_fuzz_verb_runs; /* how many verbs ran (regression_driver.c says it) */

static void run_verb(int (*verb)(int, char **), int argc, const char *const *args) {
  tf_fuzz_verb_runs++;
  static int devnull = -1, out = -1, err = -1;
  if (devnull < 0) {
    devnull = open("/dev/null", O_WRONLY);
    out = dup(1);
    err = dup(2);
    if (devnull < 0 || out < 0 || err < 0) abort();
    if (__sanitizer_set_report_fd) __sanitizer_set_report_fd((void *)(intptr_t)err);
  }
  char *argv[16];
  for (int i = 0; i < argc && i < 15; i++) argv[i] = (char *)args[i];
  argv[argc] = NULL;
  fflush(stdout);
  fflush(stderr);
  dup2(devnull, 1);
  dup2(devnull, 2);
  sink += (size_t)verb(argc, argv);
  fflush(stdout);
  fflush(stderr);
  dup2(out, 1);
  dup2(err, 2);
}

/* show, imbalance, time and export on a trace file or directory. */
static void run_verbs(const char *path) {
  tf_trace *t = NULL;
  if (tf_trace_open(path, 0, &t, NULL, 0) != TF_OK) return;
  const tf_trace_info *in = tf_trace_get_info(t);
  int small = in->nevents <= MAX_VERB_EVENTS && in->nranks_present <= MAX_VERB_RANKS && in->nranks <= 4096;
  int32_t first = -1;
  for (int32_t r = 0; small && r < in->nranks && first < 0; r++)
    if (tf_trace_rank(t, r, NULL, NULL)) first = r;
  tf_trace_close(t);
  if (!small) return;
  char rank[16], out[300];
  snprintf(rank, sizeof rank, "%d", first < 0 ? 0 : first);
  snprintf(out, sizeof out, "%s/ti", dir);
  const char *show[] = {path}, *show1[] = {"--no-time", path, "--rank", rank},
             *imbalance[] = {"--top", "3", path}, *time[] = {"0", "1us", "50%", "100%", path},
             *time1[] = {"--rank", rank, "1ms", path}, *export[] = {"smpi", path, out};
  run_verb(cmd_show, 1, show);
  run_verb(cmd_show, 4, show1);
  run_verb(cmd_imbalance, 3, imbalance);
  run_verb(cmd_time, 5, time);
  run_verb(cmd_time, 4, time1);
  run_verb(cmd_export, 3, export);
  remove_tree(out);
  DIR *d = opendir(dir); /* what an export refused halfway may leave: ti.tmp-XXXXXX */
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (strncmp(e->d_name, "ti.tmp-", 7) != 0) continue;
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    remove_tree(p);
  }
  if (d) closedir(d);
}

static int magic_at(const uint8_t *p) {
  return memcmp(p, TF_FLAT_MAGIC, 8) == 0 ? 1 : memcmp(p, TF_COMP_MAGIC, 8) == 0 ? 2 : 0;
}

/* The input is one per-rank file, or several concatenated (split at each
 * per-rank magic): each is written as rank-<i>.tfc or rank-<i>.flat of a
 * trace directory, read alone, then the directory is opened as a trace
 * (compressed files are merged, in rank order). Returns 1 if some file's
 * checksum did not match (and `repair` was 0). */
static int per_rank_input(const uint8_t *data, size_t len, int repair) {
  make_dir();
  size_t start[MAX_PIECES + 1];
  int n = 0;
  for (size_t p = 0; p + 8 <= len && n < MAX_PIECES; p++)
    if (magic_at(data + p)) start[n++] = p;
  start[n] = len;
  char paths[MAX_PIECES][300];
  int mismatched = 0, flat = 0;
  for (int i = 0; i < n; i++) {
    size_t plen = start[i + 1] - start[i];
    uint8_t *piece = malloc(plen);
    if (!piece) abort();
    memcpy(piece, data + start[i], plen);
    if (plen >= 16) {
      uint8_t tail[4];
      memcpy(tail, piece + plen - 4, 4);
      repair_file(piece, plen);
      mismatched |= memcmp(tail, piece + plen - 4, 4) != 0;
      if (!repair) memcpy(piece + plen - 4, tail, 4);
    }
    flat += magic_at(piece) == 1;
    snprintf(paths[i], sizeof paths[i], "%s/rank-%d.%s", dir, i, magic_at(piece) == 1 ? "flat" : "tfc");
    FILE *f = fopen(paths[i], "wb");
    if (!f || fwrite(piece, 1, plen, f) != plen || fclose(f) != 0) {
      perror("fuzz_trace: writing a piece");
      abort();
    }
    free(piece);
  }
  for (int i = 0; i < n; i++) read_file(paths[i]);
  /* what a run killed while writing leaves beside the rank files: readers ignore it */
  char stray[300];
  snprintf(stray, sizeof stray, "%s/rank-0.tfc.part", dir);
  FILE *f = fopen(stray, "wb");
  if (f) {
    fwrite(data, 1, len / 2, f);
    fclose(f);
  }
  snprintf(stray, sizeof stray, "%s/.tracefold-stop-0000000000000001", dir);
  if ((f = fopen(stray, "wb"))) fclose(f);
  read_path(n == 1 ? paths[0] : dir, 0);
  if (n > 1 && flat && flat < n) read_path(dir, TF_OPEN_PREFER_FLAT); /* both kinds: the flat ones */
  if (repair || !mismatched) run_verbs(n == 1 ? paths[0] : dir); /* once, checksums valid */
  for (int i = 0; i < n; i++) unlink(paths[i]);
  return mismatched && !repair;
}

/* ---- entry point ---------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  budget = EVENT_BUDGET;
  if (len >= 8 && magic_at(data)) {
    if (per_rank_input(data, len, 0)) {
      budget = EVENT_BUDGET;
      per_rank_input(data, len, 1);
    }
    return 0;
  }
  read_merged(data, len);
  uint8_t *fixed = malloc(len ? len : 1);
  if (!fixed) abort();
  memcpy(fixed, data, len);
  repair_merged(fixed, len);
  if (memcmp(fixed, data, len) != 0) {
    budget = EVENT_BUDGET;
    read_merged(fixed, len);
  }
  /* the verbs, on the input (checksums repaired) as a trace.tf file */
  make_dir();
  char path[300];
  snprintf(path, sizeof path, "%s/trace.tf", dir);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(fixed, 1, len, f) != len || fclose(f) != 0) abort();
  run_verbs(path);
  unlink(path);
  free(fixed);
  return 0;
}
