/* test_efg.c — unit tests of event flow graphs (src/graph, doc/EFG.md), no MPI.
 *
 * Cases:
 *   json_reader    the small JSON reader: integers exact to int64, escapes,
 *                  nesting; bad JSON refused with the line and column
 *   not_a_graph    JSON that is not an event flow graph refused with a
 *                  message saying where and what
 *   branch_in_loop the paper's Fig. 2: for i < 10 { Barrier; i < 5 ? Bcast :
 *                  Gather; Reduce } gives its edge counts (5, 5, 5, 5, 9) and
 *                  regenerates the exact order that the plain graph cannot
 *   fig4_pattern   Barrier then Recv ten times, then Send ten times, ...
 *                  (the paper's Fig. 4): counts and exact order
 *   random_traces  40 random nested-loop programs on 1 to 9 ranks (ranks share
 *                  or differ in their programs, with noise, threads, request
 *                  ids, extreme values, segments under a small memory cap):
 *                  per-rank files merged when opened; the merged graph and
 *                  every rank's graph regenerate every rank's events exactly
 *                  against the generated streams themselves and against the
 *                  trace's cursors (tf_efg_replay_check); at most one rank
 *                  group per rank
 *   mutated_documents 1,500 randomly damaged graph documents (digits and
 *                  characters changed, deleted, swapped, the text cut):
 *                  each is refused with a message naming the document, or
 *                  read, and every rank's regeneration then succeeds or is
 *                  refused likewise (no crash, no endless loop)
 * usage: test_efg [CASE...] (check.h); test_efg --seed N runs random_traces for seed N only.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "efg.h"
#include "format/compressor.h"
#include "format/flat_writer.h"
#include "json.h"
#include "test_gen.h"
#include "tracefold.h"

static char workdir[64];

static void make_workdir(void) {
  if (workdir[0]) return;
  snprintf(workdir, sizeof workdir, "efg_tmp_XXXXXX");
  if (!mkdtemp(workdir)) {
    perror("mkdtemp");
    exit(2);
  }
}

static void clear_dir(int P) {
  char p[256];
  for (int r = 0; r < 64 && r < P + 16; r++) {
    snprintf(p, sizeof p, "%s/rank-%d.tfc", workdir, r);
    remove(p);
  }
}

/* ------------------------------------------------------------ json_reader */

static int parse(const char *text, const json **root, json_doc **doc, char *err, size_t errlen) {
  return json_parse(text, strlen(text), "t.json", doc, root, err, errlen);
}

static void test_json_reader(void) {
  char err[600];
  json_doc *doc;
  const json *v;
  CHECK(parse("{\"a\": [1, -9223372036854775808, 9223372036854775807, 1.5e3, true, null, \"x\\n\\u0041\"], \"b\": {}}",
              &v, &doc, err, sizeof err) == 0);
  if (doc) {
    const json *a = json_get(v, "a");
    CHECK(a && a->type == JSON_ARR && a->n == 7);
    if (a && a->n == 7) {
      CHECK(a->a[0].type == JSON_INT && a->a[0].i == 1);
      CHECK(a->a[1].type == JSON_INT && a->a[1].i == INT64_MIN);
      CHECK(a->a[2].type == JSON_INT && a->a[2].i == INT64_MAX);
      CHECK(a->a[3].type == JSON_NUM && a->a[3].d == 1500.0);
      CHECK(a->a[4].type == JSON_BOOL && a->a[4].i == 1);
      CHECK(a->a[5].type == JSON_NULL);
      CHECK(a->a[6].type == JSON_STR && strcmp(a->a[6].s, "x\nA") == 0);
    }
    const json *b = json_get(v, "b");
    CHECK(b && b->type == JSON_OBJ && b->n == 0);
    CHECK(json_get(v, "c") == NULL);
    json_free(doc);
  }
  static const struct {
    const char *text, *want;
  } bad[] = {
      {"{\"a\": [1, 2}", "t.json:1:12: bad JSON: expected ',' or ']' in an array"},
      {"{\"a\" 1}", "t.json:1:6: bad JSON: expected ':' after a member name"},
      {"[1,\n 2,\n 03]", "t.json:3:3: bad JSON: a number with a leading zero"},
      {"[9223372036854775808]", "beyond int64"},
      {"[-9223372036854775809]", "beyond int64"},
      {"[\"abc", "the text ends early"},
      {"[1] x", "t.json:1:5: bad JSON: the text goes on after the JSON value"},
      {"", "the text ends early"},
      {"[tru]", "expected a value"},
      {"[\"\\q\"]", "an unknown escape"},
      {"{\"a\": 1,}", "expected a member name in quotes"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    CHECKF(parse(bad[i].text, &v, &doc, err, sizeof err) != 0, "%s", bad[i].text);
    CHECKF(strstr(err, bad[i].want) != NULL, "%s: got \"%s\", want \"%s\"", bad[i].text, err, bad[i].want);
  }
  /* nesting limit */
  char deep[2100];
  memset(deep, '[', 1000);
  memset(deep + 1000, ']', 1000);
  deep[2000] = 0;
  CHECK(parse(deep, &v, &doc, err, sizeof err) != 0 && strstr(err, "nesting deeper"));
}

/* ------------------------------------------------------------ not_a_graph */

#define DOC_HEAD "{\"format\":\"tracefold-efg\",\"version\":1,\"nranks\":4,\"ranks\":\"<1 0 4 1>\",\"functions\":[{\"name\":\"MPI_Barrier\",\"fields\":[]}],\"callsites\":[{\"sig\":\"0000000000000001\"}],"

static void test_not_a_graph(void) {
  static const struct {
    const char *text, *want;
  } cases[] = {
      {"[]", "not an event flow graph: the document is an array"},
      {"{\"format\":\"x\"}", "\"format\" is not \"tracefold-efg\""},
      {"{\"format\":\"tracefold-efg\",\"version\":2}", "version 2 (this reader knows version 1)"},
      {DOC_HEAD "\"nodes\":[{\"fn\":1,\"thread\":0,\"site\":0,\"count\":1,\"counts\":[]}]}", "\"fn\" is 1, outside 0..0"},
      {DOC_HEAD "\"nodes\":[{\"fn\":0,\"thread\":0,\"site\":0,\"count\":4,\"counts\":[[1,\"<1 2 3 1>\"]]}]}",
       "ranks must increase within 0..3"},
      {DOC_HEAD "\"nodes\":[{\"fn\":0,\"thread\":0,\"site\":0,\"count\":4,\"counts\":[[1,\"<1 0 4\"]]}]}",
       "expected a number"},
      {DOC_HEAD "\"nodes\":[],\"initial\":[],\"edges\":[{\"from\":0,\"to\":0,\"count\":1,\"counts\":[]}]}",
       "\"from\" is 0, outside 0..0"},
      {DOC_HEAD "\"nodes\":[],\"initial\":[],\"edges\":[],\"structure\":[{\"n\":0,\"nvals\":[],\"slots\":[]}]}",
       "\"n\" is 0, outside 0..0"},
      {DOC_HEAD "\"nodes\":[{\"fn\":0,\"thread\":0,\"site\":0,\"count\":4,\"counts\":[[1,\"<1 0 4 1>\"]]}],\"initial\":[],"
                "\"edges\":[],\"structure\":[{\"n\":0,\"nvals\":[[0,0,0]],\"slots\":[]}]}",
       "a run is [base, step, count] with integers and count >= 1"},
      {DOC_HEAD "\"nodes\":[{\"fn\":0,\"thread\":0,\"site\":0,\"count\":4,\"counts\":[[1,\"<1 0 4 1>\"]]}],\"initial\":[],"
                "\"edges\":[],\"structure\":[{\"loop\":[],\"iters\":[[1,0,1]]}]}",
       "a loop with an empty body"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char err[600] = "";
    tf_efg_doc *d;
    CHECKF(tf_efg_doc_parse(cases[i].text, strlen(cases[i].text), "g.json", &d, err, sizeof err) == TF_ERR_FORMAT,
           "case %zu", i);
    CHECKF(strstr(err, cases[i].want) != NULL, "case %zu: got \"%s\", want \"%s\"", i, err, cases[i].want);
  }
  /* a well-formed graph whose counts lie: regeneration says which edge */
  const char *liar = DOC_HEAD
      "\"nodes\":[{\"fn\":0,\"thread\":0,\"site\":0,\"count\":8,\"counts\":[[2,\"<1 0 4 1>\"]]}],"
      "\"initial\":[{\"thread\":0,\"node\":0,\"ranks\":\"<1 0 4 1>\"}],"
      "\"edges\":[{\"from\":0,\"to\":0,\"count\":8,\"counts\":[[2,\"<1 0 4 1>\"]]}],"
      "\"structure\":[{\"loop\":[{\"n\":0,\"nvals\":[[0,0,2]],\"slots\":[]}],\"iters\":[[2,0,1]]}]}";
  char err[600] = "";
  tf_efg_doc *d = NULL;
  CHECK(tf_efg_doc_parse(liar, strlen(liar), "g.json", &d, err, sizeof err) == TF_OK);
  if (d) {
    CHECK(tf_efg_doc_regenerate(d, 2, NULL, NULL, NULL, err, sizeof err) == -1);
    CHECKF(strstr(err, "g.json: rank 2: edge 0 -> 0: the graph says 2 transitions, the regenerated events make 1"),
           "%s", err);
    tf_efg_doc_free(d);
  }
}

/* ------------------------------------------------------------ writing a trace */

/* Rank `rank`'s stream as a compressed per-rank file in the work directory. */
static int write_rank(const stream *s, int rank, int P, size_t cap) {
  char path[256], err[512];
  snprintf(path, sizeof path, "%s/rank-%d.tfc", workdir, rank);
  tf_file_info info = {.rank = rank, .nranks = P, .thread_level = 3, .start_unix_ns = 1000, .exe = "synthetic",
                       .mpi = "none", .timing = TF_TIMING_DEFAULT, .bins = TF_BINS_DEFAULT, .nfuncs = NFUNCS,
                       .funcs = funcs};
  remove(path);
  tf_file_writer *w = tf_file_writer_open(path, TF_FILE_COMPRESSED, &info, err, sizeof err);
  CHECKF(w != NULL, "%s", err);
  if (!w) return -1;
  stream_compress(s, w, funcs, NFUNCS, cap, rank);
  CHECK(tf_file_writer_close(w, err, sizeof err) == TF_OK);
  return 0;
}

static tf_trace *open_dir(void) {
  char err[600];
  tf_trace *t = NULL;
  tf_status st = tf_trace_open(workdir, 0, &t, err, sizeof err);
  CHECKF(st == TF_OK, "%s", err);
  return t;
}

/* The events a document regenerates for `rank`, against the stream itself. */
typedef struct oracle {
  const stream *s;
  size_t k;
  int bad;
} oracle;

static int against_stream(const tf_efg_event *ev, void *arg) {
  oracle *o = arg;
  if (o->k >= o->s->n) {
    fprintf(stderr, "  regenerated event %zu: the stream has only %zu\n", o->k, o->s->n);
    return 1;
  }
  const oev *e = &o->s->e[o->k];
  const int64_t *v = o->s->v + e->off;
  if (strcmp(ev->fd->name, funcs[e->fn].name) != 0 || ev->thread != e->thread || ev->callsite != site_sig(e->site) ||
      ev->nvals != e->nvals || (e->nvals && memcmp(ev->vals, v, e->nvals * sizeof *v) != 0)) {
    fprintf(stderr, "  regenerated event %zu differs from the stream: %s thread %u vs %s thread %u\n", o->k,
            ev->fd->name, ev->thread, funcs[e->fn].name, e->thread);
    return 1;
  }
  o->k++;
  return 0;
}

/* The graph of scope `rank` as JSON text (malloc'ed), or NULL. */
static char *graph_json(tf_trace *t, int32_t rank, size_t *len, tf_efg_stats *st) {
  tf_efg_opts o = TF_EFG_OPTS_DEFAULT;
  o.rank = rank;
  o.resolve = 0;
  o.time = 1;
  tf_efg *g;
  char err[600];
  tf_status s = tf_efg_build(t, "synthetic", &o, &g, err, sizeof err);
  CHECKF(s == TF_OK, "%s", err);
  if (s != TF_OK) return NULL;
  if (st) tf_efg_get_stats(g, st);
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  CHECK(f && tf_efg_write_json(g, f) == 0);
  if (f) fclose(f);
  /* DOT too, for its own sake: it must not fail */
  FILE *null = fopen("/dev/null", "w");
  if (null) {
    CHECK(tf_efg_write_dot(g, null) == 0);
    fclose(null);
  }
  tf_efg_free(g);
  return text;
}

/* The events of `rank` regenerated from JSON `text` equal `s`. */
static void check_against(const char *text, size_t len, int32_t rank, const stream *s, const char *what, uint64_t seed) {
  char err[1200];
  tf_efg_doc *d = NULL;
  CHECKF(tf_efg_doc_parse(text, len, what, &d, err, sizeof err) == TF_OK, "seed %" PRIu64 ": %s", seed, err);
  if (!d) return;
  oracle o = {.s = s};
  uint64_t n = 0;
  int rc = tf_efg_doc_regenerate(d, rank, against_stream, &o, &n, err, sizeof err);
  CHECKF(rc == 0, "seed %" PRIu64 " %s rank %d: %s", seed, what, rank, rc < 0 ? err : "differs from the stream");
  CHECKF(rc != 0 || n == s->n, "seed %" PRIu64 " %s rank %d: %" PRIu64 " events, the stream has %zu", seed, what, rank,
         n, s->n);
  tf_efg_doc_free(d);
}

/* ------------------------------------------------------------ the paper's figures */

/* One rank's stream of fn ids (sites = fn + 1, no values) as a trace. */
static tf_trace *trace_of(const uint32_t *fns, size_t n, stream *s) {
  make_workdir();
  clear_dir(1);
  *s = (stream){0};
  static const int64_t zeros[8] = {0};
  for (size_t i = 0; i < n; i++) stream_add(s, fns[i], 0, fns[i] + 1, 100, 10, funcs[fns[i]].nfields, zeros);
  write_rank(s, 0, 1, 1 << 20);
  return open_dir();
}

typedef struct trans {
  long n[NFUNCS][NFUNCS];
  uint32_t prev;
  char order[256];
  size_t len;
} trans;

static int count_trans(const tf_efg_event *ev, void *arg) {
  trans *t = arg;
  uint32_t f = 0;
  while (f < NFUNCS && strcmp(funcs[f].name, ev->fd->name) != 0) f++;
  if (t->prev < NFUNCS) t->n[t->prev][f]++;
  t->prev = f;
  if (t->len + 2 < sizeof t->order) t->order[t->len++] = (char)('0' + f);
  return 0;
}

static void figure(const uint32_t *fns, size_t n, const long want[][3], size_t nwant, const char *name) {
  stream s;
  tf_trace *t = trace_of(fns, n, &s);
  if (!t) return;
  size_t len = 0;
  tf_efg_stats st;
  char *text = graph_json(t, 0, &len, &st);
  char err[1200];
  tf_efg_doc *d = NULL;
  CHECK(text && tf_efg_doc_parse(text, len, name, &d, err, sizeof err) == TF_OK);
  if (d) {
    trans tr = {.prev = NFUNCS};
    uint64_t ne = 0;
    CHECKF(tf_efg_doc_regenerate(d, 0, count_trans, &tr, &ne, err, sizeof err) == 0, "%s", err);
    CHECK(ne == n);
    /* the order, exactly */
    char want_order[256];
    for (size_t i = 0; i < n && i + 1 < sizeof want_order; i++) want_order[i] = (char)('0' + fns[i]);
    want_order[n < 255 ? n : 255] = 0;
    tr.order[tr.len] = 0;
    CHECKF(strcmp(tr.order, want_order) == 0, "%s: regenerated %s, recorded %s", name, tr.order, want_order);
    /* the edges the graph check compared with the document are the paper's */
    long sum = 0;
    for (size_t k = 0; k < nwant; k++) {
      CHECKF(tr.n[want[k][0]][want[k][1]] == want[k][2], "%s: %s -> %s: %ld transitions, the paper has %ld", name,
             funcs[want[k][0]].name, funcs[want[k][1]].name, tr.n[want[k][0]][want[k][1]], want[k][2]);
      sum += want[k][2];
    }
    CHECKF((uint64_t)sum + 1 == ne && st.edges == nwant, "%s: %u edges summing to %ld, %" PRIu64 " events", name,
           st.edges, sum, ne);
    tf_efg_doc_free(d);
  }
  char msg[2000];
  CHECKF(tf_efg_replay_check(t, name, -1, msg, sizeof msg) == TF_OK, "%s", msg);
  free(text);
  tf_trace_close(t);
  stream_free(&s);
}

/* funcs[] of test_gen.h stand in (functions with scalar fields only, all 0): Barrier, "Bcast" (MPI_Send),
 * "Gather" (MPI_Irecv), "Reduce" (MPI_Wait); only the ids matter. */
enum { BARRIER = 0, BCAST = 1, GATHER = 3, REDUCE = 4 };

static void test_branch_in_loop(void) {
  uint32_t fns[64];
  size_t n = 0;
  for (int i = 0; i < 10; i++) {
    fns[n++] = BARRIER;
    fns[n++] = i < 5 ? BCAST : GATHER;
    fns[n++] = REDUCE;
  }
  /* Fig. 2: Barrier -> Bcast 5, Barrier -> Gather 5, Bcast -> Reduce 5, Gather -> Reduce 5, Reduce -> Barrier 9 */
  static const long want[][3] = {
      {BARRIER, BCAST, 5}, {BARRIER, GATHER, 5}, {BCAST, REDUCE, 5}, {GATHER, REDUCE, 5}, {REDUCE, BARRIER, 9}};
  figure(fns, n, want, 5, "fig2");
}

static void test_fig4_pattern(void) {
  uint32_t fns[200];
  size_t n = 0;
  for (int block = 0; block < 6; block++)
    for (int i = 0; i < 10; i++) {
      fns[n++] = BARRIER;
      fns[n++] = block % 2 ? 1 : 3; /* Send : Irecv */
    }
  static const long want[][3] = {{BARRIER, 3, 30}, {BARRIER, 1, 30}, {3, BARRIER, 30}, {1, BARRIER, 29}};
  figure(fns, n, want, 4, "fig4");
}

/* ------------------------------------------------------------ random_traces */

static uint64_t only_seed;
static unsigned groups_total, ranks_total;
static int have_only_seed;

static void random_trace(uint64_t seed) {
  rng = seed * 0x9E3779B97F4A7C15ull + 3;
  int P = 1 + (int)rndn(9);
  int nprog = 1 + (int)rndn(3);
  uint64_t progs[3];
  for (int k = 0; k < nprog; k++) progs[k] = seed * 31 + (uint64_t)k * 7 + 1;
  size_t cap = permille(300) ? 2048 + rndn(8192) : (size_t)1 << 26; /* small caps: several segments */
  int pick[16];
  for (int r = 0; r < P; r++) pick[r] = (int)rndn((uint64_t)nprog);
  stream *s = calloc((size_t)P, sizeof *s);
  clear_dir(P);
  for (int r = 0; r < P; r++) {
    gen g;
    gen_program_stream(&g, progs[pick[r]]);
    s[r] = g.s;
    if (write_rank(&s[r], r, P, cap)) break;
  }
  tf_trace *t = open_dir();
  if (t) {
    size_t len = 0;
    tf_efg_stats st;
    char *text = graph_json(t, -1, &len, &st);
    /* ranks alike in the merged structure share a group (identical programs usually, not always: where
     * the merge aligned their events differently they differ there) */
    CHECKF(st.rank_groups >= 1 && (int)st.rank_groups <= P && st.nranks == P, "seed %" PRIu64 ": %u rank groups, %d ranks",
           seed, st.rank_groups, P);
    groups_total += st.rank_groups;
    ranks_total += (unsigned)P;
    for (int r = 0; text && r < P; r++) check_against(text, len, r, &s[r], "merged graph", seed);
    free(text);
    for (int r = 0; r < P; r++) {
      char *one = graph_json(t, r, &len, NULL);
      if (one) check_against(one, len, r, &s[r], "rank graph", seed);
      free(one);
    }
    char msg[3000];
    CHECKF(tf_efg_replay_check(t, "synthetic", -1, msg, sizeof msg) == TF_OK, "seed %" PRIu64 ": %s", seed, msg);
    tf_trace_close(t);
  }
  for (int r = 0; r < P; r++) stream_free(&s[r]);
  free(s);
}

static void test_random_traces(void) {
  make_workdir();
  if (have_only_seed) {
    random_trace(only_seed);
    return;
  }
  for (uint64_t seed = 1; seed <= 40; seed++) {
    int before = failures;
    random_trace(seed);
    if (failures != before) fprintf(stderr, "  (rerun: test_efg --seed %" PRIu64 ")\n", seed);
  }
  printf("   40 random traces: %u ranks in %u rank groups\n", ranks_total, groups_total);
}

/* ------------------------------------------------------------ mutated_documents */

static void test_mutated_documents(void) {
  make_workdir();
  rng = 99;
  int P = 3;
  stream s[3];
  clear_dir(P);
  for (int r = 0; r < P; r++) {
    gen g;
    gen_program_stream(&g, 40 + (uint64_t)(r % 2)); /* two programs */
    s[r] = g.s;
    write_rank(&s[r], r, P, (size_t)1 << 26);
  }
  tf_trace *t = open_dir();
  if (!t) return;
  size_t len[2];
  char *text[2] = {graph_json(t, -1, &len[0], NULL), graph_json(t, 1, &len[1], NULL)};
  tf_trace_close(t);
  static const char pool[] = "0123456789-[]{},:\"<> x+e.ntu";
  unsigned parsed = 0, regenerated = 0, refused = 0;
  rng = 12345;
  for (int it = 0; it < 1500; it++) {
    int which = (int)rndn(2);
    if (!text[which]) continue;
    size_t n = len[which];
    char *m = malloc(n + 1);
    memcpy(m, text[which], n);
    for (int k = 1 + (int)rndn(3); k > 0 && n > 0; k--) {
      size_t at = rndn(n);
      switch (rndn(8)) {
      case 0: m[at] = pool[rndn(sizeof pool - 1)]; break;                   /* one character */
      case 4: case 5: case 6: case 7:                                       /* a digit, still JSON mostly */
        while (at < n && (m[at] < '0' || m[at] > '9')) at++;
        if (at < n) m[at] = (char)('0' + rndn(10));
        break;
      case 1: memmove(m + at, m + at + 1, n - at - 1); n--; break;          /* one deleted */
      case 2: n = at; break;                                                /* truncated */
      default: if (at + 1 < n) { char c = m[at]; m[at] = m[at + 1]; m[at + 1] = c; } /* two swapped */
      }
    }
    char err[1200] = "";
    tf_efg_doc *d = NULL;
    tf_status st = tf_efg_doc_parse(m, n, "mutated.json", &d, err, sizeof err);
    CHECKF(st == TF_OK || (st == TF_ERR_FORMAT && strncmp(err, "mutated.json", 12) == 0), "iteration %d: %d %s", it,
           st, err);
    if (d) {
      parsed++;
      const int32_t *ranks;
      int nr = tf_efg_doc_ranks(d, &ranks);
      for (int i = 0; i < nr; i++) {
        err[0] = 0;
        int rc = tf_efg_doc_regenerate(d, ranks[i], NULL, NULL, NULL, err, sizeof err);
        CHECKF(rc == 0 || (rc == -1 && strstr(err, "mutated.json: rank")), "iteration %d: %d %s", it, rc, err);
        regenerated += rc == 0;
        refused += rc != 0;
      }
      tf_efg_doc_free(d);
    }
    free(m);
  }
  printf("   1500 mutated documents: %u parsed, %u rank regenerations succeeded, %u refused\n", parsed, regenerated,
         refused);
  free(text[0]);
  free(text[1]);
  for (int r = 0; r < P; r++) stream_free(&s[r]);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--seed") == 0) {
    only_seed = strtoull(argv[2], NULL, 10);
    have_only_seed = 1;
    argc = 2;
    argv[1] = "random_traces";
  }
  static const test_case cases[] = {
      {"json_reader", test_json_reader},     {"not_a_graph", test_not_a_graph},
      {"branch_in_loop", test_branch_in_loop}, {"fig4_pattern", test_fig4_pattern},
      {"random_traces", test_random_traces},  {"mutated_documents", test_mutated_documents},
  };
  int rc = run_cases("test_efg", cases, TEST_NCASES(cases), argc, argv);
  if (workdir[0]) {
    clear_dir(16);
    rmdir(workdir);
  }
  return rc;
}
