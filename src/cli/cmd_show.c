/* cmd_show.c — `tracefold show`: the loop structure of a trace, as a person
 * would write it down.
 *
 *   loop x100 {                         a loop and its iteration count
 *   loop x100 {  cst#3                  ... recorded with CST guidance: source loop 3 of the program's CST
 *     MPI_Isend dest=1 tag=0..99 ...    an event; each parameter is its value
 *   }                                   sequence over all its occurrences
 * Value sequences: 5 (always 5), 7 x4 (7 four times, within a longer
 * sequence), 0..99 (counting up by 1), 0..90/+10 (by 10), {a, b} x8 (the
 * group a, b eight times), {..} x8 +1 (each repetition adds 1 to every
 * value), [..] several parts in order. Request ids are shown relative to the
 * requests the rank created: new+ (from the next id), back (created k
 * requests before the last).
 * Ranks: a node that does not occur on all the ranks of its parent shows
 * its rank list, "@<dims start count stride ...>"; a parameter whose values
 * differ between ranks shows each variant with its ranks, "{a @<..> | b @<..>}".
 * With --rank R only rank R's nodes and values are shown.
 * Times: under each event, what the trace keeps of its delta times (one
 * line per path in path mode: "after MPI_X"), the mean, min and max of its
 * compute delta and of its call, with the ranks of the extremes, and the
 * histogram bins, over all the ranks of the event (also with --rank: a
 * merged trace keeps one summary per event); --no-time leaves them out.
 * --sites adds each call's call site signature (cs=, as dump prints it).
 * --cst FILE.cst names each cst#ID from the program's CST: the source loop
 * ("for app.c:35"), or the branch arm whose calls the node holds ("arm 0
 * of if app.c:38": a node of count 1 per time the arm was taken).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cst.h"
#include "merge/mtrace.h"

const char tf_help_show[] =
    "usage: tracefold show [--rank R] [--no-time] [--sites] [--cst FILE.cst] TRACE\n"
    "  the loop structure of all ranks (or rank R): loops with their iteration counts, calls with their\n"
    "  parameters as value sequences, rank lists where a node holds for some ranks only, and the times the\n"
    "  trace keeps of each call\n"
    "  --rank R    only rank R\n"
    "  --no-time   leave the times out\n"
    "  --sites     each call's call site signature (cs=, as in dump; tracefold stats resolves them)\n"
    "  --cst FILE  name the source loop or branch arm of each cst#ID from the program's CST (tracefold cst,\n"
    "              TRACEFOLD_CC_CST)\n"
    "example: tracefold show --no-time tracefold-app-16p\n";

#define TEXT 4096

static int show_sites; /* --sites */
static cst program;   /* --cst: the program's CST (program.n == 0 without) */

/* What CST node `id` is, after its cst#: "for app.c:35", "arm 0 of if app.c:38". */
static void put_cst_node(int64_t id) {
  if (!program.n) return;
  if (id >= program.n || program.nodes[id].id != id) {
    printf(" (not in the CST)");
    return;
  }
  const cst_node *x = &program.nodes[id];
  const cst_node *b = x->kind == CST_ARM && x->parent >= 0 ? &program.nodes[x->parent] : NULL;
  if (x->kind == CST_LOOP)
    printf(" %s %s:%u", x->name, x->file, x->line);
  else if (b)
    printf(" arm %s of %s %s:%u", x->name, b->name, b->file, b->line);
  else
    printf(" (a %s in the CST, not a loop or an arm)", cst_kind_names[x->kind]);
}
#define MAX_VARIANTS 8

/* The value sequence `which` of a node as text: rank R's, or every variant. */
static void values(const tf_node *n, int which, long rank, char *out, size_t len) {
  if (rank >= 0) {
    tf_node_values_of(n, which, (int32_t)rank, out, len);
    return;
  }
  char v[TEXT], r[TEXT];
  uint32_t np = tf_node_values(n, which, 0, v, sizeof v, r, sizeof r);
  int same = 1; /* variants that print alike (equal values, folded differently) print once */
  for (uint32_t k = 1; k < np && same; k++) {
    char w[TEXT];
    tf_node_values(n, which, k, w, sizeof w, NULL, 0);
    same = strcmp(v, w) == 0;
  }
  if (np <= 1 || same) {
    snprintf(out, len, "%s", v);
    return;
  }
  size_t used = (size_t)snprintf(out, len, "{");
  for (uint32_t k = 0; k < np && k < MAX_VARIANTS && used < len; k++) {
    tf_node_values(n, which, k, v, sizeof v, r, sizeof r);
    used += (size_t)snprintf(out + used, len - used, "%s%s @%s", k ? " | " : "", v, r);
  }
  if (np > MAX_VARIANTS && used < len) used += (size_t)snprintf(out + used, len - used, " | ... %u variants", np);
  if (used < len) snprintf(out + used, len - used, "}");
}

static int plain_int(const char *s, int64_t *v) {
  char *end;
  if (!*s) return 0;
  *v = strtoll(s, &end, 10);
  return *end == 0;
}

/* An event's parameter positions: each one's value sequence as text, and
 * as a value where the text is a plain number (-1, no array length, where
 * it is not), which tf_event_fields splits into the function's fields. */
typedef struct slots {
  uint32_t n;
  char **text;
  int64_t *val;
} slots;

static void slots_free(slots *sl) {
  for (uint32_t j = 0; sl->text && j < sl->n; j++) free(sl->text[j]);
  free(sl->text);
  free(sl->val);
}

static int slots_read(const tf_node *n, uint32_t nslots, long rank, slots *sl) {
  char t[TEXT];
  *sl = (slots){nslots, calloc(nslots + 1, sizeof *sl->text), calloc(nslots + 1, sizeof *sl->val)};
  for (uint32_t j = 0; sl->text && sl->val && j < nslots; j++) {
    values(n, (int)j, rank, t, sizeof t);
    if (!(sl->text[j] = strdup(t))) break;
    if (!plain_int(t, &sl->val[j])) sl->val[j] = -1;
  }
  if (sl->text && sl->val && (!nslots || sl->text[nslots - 1])) return 0;
  slots_free(sl);
  return -1;
}

/* 0, or -1 when memory is short. */
static int put_event(const tf_node *n, const tf_node_info *ni, const tf_trace_info *ti, long rank,
                     tf_field_value *fields) {
  const tf_func_desc *fd = &ti->funcs[ni->fn];
  char t[TEXT];
  printf("%s", fd->name);
  if (show_sites) printf(" cs=%016" PRIx64, ni->callsite);
  if (ni->thread) printf(" thread=%u", ni->thread);
  int64_t nv;
  values(n, -1, rank, t, sizeof t);
  if (!plain_int(t, &nv)) { /* value counts vary: slots do not map to fields */
    printf(" nvalues=%s", t);
    for (uint32_t j = 0; j < ni->nslots; j++) {
      values(n, (int)j, rank, t, sizeof t);
      printf(" v%u=%s", j, t);
    }
    return 0;
  }
  slots sl;
  if (slots_read(n, ni->nslots, rank, &sl)) return -1;
  /* the fields up to the first that does not fit: shown; then the reason if
   * it is an array whose lengths vary (no slots left: nothing more) */
  tf_event_fields(fd, sl.val, sl.n, fields);
  uint32_t pos = 0;
  for (uint32_t k = 0; k < fd->nfields; k++) {
    const tf_field_value *f = &fields[k];
    const char *suffix = f->desc->kind == TF_FIELD_REQ ? "(back)" : f->desc->kind == TF_FIELD_REQ_NEW ? "(new+)" : "";
    if (!f->v) {
      /* an array whose lengths vary: the positions of the following fields vary */
      if (pos < sl.n) printf(" %s: lengths %s", f->desc->name, sl.text[pos]);
      break;
    }
    pos = (uint32_t)(f->v - sl.val);
    if (!f->desc->is_array) {
      printf(" %s%s=%s", f->desc->name, suffix, sl.text[pos]);
    } else {
      printf(" %s%s=<", f->desc->name, suffix);
      for (uint32_t j = 0; j < f->n; j++) printf("%s%s", j ? "; " : "", sl.text[pos + j]);
      fputs(">", stdout);
    }
    pos += f->n;
  }
  slots_free(&sl);
  return 0;
}

/* 0, or -1 when memory is short. */
static int put_nodes(const tf_trace *tr, const tf_node *const *nodes, uint32_t n, int depth, const char *parent_ranks,
                     const tf_trace_info *ti, long rank, int no_time, tf_field_value *fields) {
  char ranks[TEXT], t[TEXT];
  for (uint32_t i = 0; i < n; i++) {
    const tf_node *x = nodes[i];
    if (rank >= 0 && !tf_node_has_rank(x, (int32_t)rank)) continue;
    tf_node_info ni;
    tf_node_get(x, &ni);
    tf_node_ranks(x, ranks, sizeof ranks);
    printf("%*s", 2 * depth, "");
    if (ni.is_loop) {
      values(x, -1, rank, t, sizeof t);
      printf("loop x%s {", t);
      if (ni.cst >= 0) {
        printf("  cst#%lld", (long long)ni.cst);
        put_cst_node(ni.cst);
      }
    } else if (put_event(x, &ni, ti, rank, fields)) {
      return -1;
    }
    if (rank < 0 && strcmp(ranks, parent_ranks) != 0) printf("  @%s", ranks);
    fputs("\n", stdout);
    if (!ni.is_loop && !no_time) tf_put_times(tr, x, 2 * depth + 4, rank);
    if (ni.is_loop) {
      if (put_nodes(tr, ni.body, ni.nbody, depth + 1, ranks, ti, rank, no_time, fields)) return -1;
      printf("%*s}\n", 2 * depth, "");
    }
  }
  return 0;
}

int cmd_show(int argc, char **argv) {
  long rank;
  const char *cst_path = NULL;
  for (int i = 0; i < argc;) { /* --sites, --cst (argv[0] is the first argument): before the shared options */
    int sites = strcmp(argv[i], "--sites") == 0;
    if (sites || (strcmp(argv[i], "--cst") == 0 && i + 1 < argc)) {
      int k = sites ? 1 : 2; /* the arguments it takes */
      if (sites) show_sites = 1;
      else cst_path = argv[i + 1];
      memmove(argv + i, argv + i + k, (size_t)(argc - i - k + 1) * sizeof *argv); /* argv[argc] (NULL) too */
      argc -= k;
    } else
      i++;
  }
  if (cst_path && cst_read("tracefold show", cst_path, &program)) return 1; /* cst_read named the file and the problem */
  int no_time, rc = tf_take_options(&argc, &argv, "show", &rank, &no_time);
  if (rc) {
    cst_free(&program);
    return rc;
  }
  tf_input in;
  if ((rc = tf_input_open(argc, argv, TF_INPUT_VALIDATE, "show", &in))) {
    cst_free(&program);
    return rc;
  }
  int32_t *ranks;
  int n;
  if ((rc = tf_input_pick(&in, rank, "show", &ranks, &n))) {
    tf_input_close(&in);
    cst_free(&program);
    return rc;
  }
  const tf_node *const *top;
  uint32_t ntop = tf_trace_top(in.t, &top);
  if (in.info->source == TF_SOURCE_FLAT) {
    fprintf(stderr, "tracefold show: %s holds flat files only; show reads merged or compressed traces\n", argv[0]);
    tf_input_close(&in);
    cst_free(&program);
    return 1;
  }
  char all[TEXT] = "";
  if (ntop) tf_node_ranks(top[0], all, sizeof all);
  if (rank >= 0) {
    uint64_t ne = 0;
    tf_trace_rank(in.t, (int32_t)rank, &ne, NULL);
    printf("rank %ld of %d: %" PRIu64 " events\n", rank, in.info->nranks, ne);
  } else {
    printf("%d of %d ranks, %" PRIu64 " events%s\n", in.info->nranks_present, in.info->nranks, in.info->nevents,
           in.info->partial ? " (partial)" : "");
  }
  const tf_mtrace *mt = tf_trace_mtrace(in.t);
  if (mt && mt->extrap) printf("extrapolated: %s\n", mt->extrap);
  if (mt && mt->flat_runs) /* doc/FOLDING.md "Flat runs" */
    printf("flat runs: %" PRIu64 " (%" PRIu64 " events, shown one by one)\n", mt->flat_runs, mt->flat_events);
  /* ranks shown against the first node's (normally every rank's) */
  if (!no_time && in.info->timing != TF_TIMING_NONE)
    printf("times: %s, compute in %s%s (mean (min .. max)%s)\n", tf_timing_mode_name(in.info->timing),
           tf_time_unit_name(in.info->unit), in.info->unit == TF_UNIT_NS ? ", call in ns" : "",
           in.info->nranks_present > 1 ? " with the ranks of the extremes" : "");
  int bad = put_nodes(in.t, top, ntop, 1, all, in.info, rank, no_time, in.fields);
  if (bad) fprintf(stderr, "tracefold show: out of memory\n");
  tf_input_close(&in);
  cst_free(&program);
  return bad || ferror(stdout) ? 1 : 0;
}
