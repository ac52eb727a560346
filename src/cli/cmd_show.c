/* cmd_show.c — `tracefold show`: the loop structure of a compressed trace,
 * as a person would write it down.
 *
 *   loop x100 {                       a loop and its iteration count
 *     MPI_Isend peer=1 tag=0..99 ...  an event; each parameter is its value
 *   }                                 sequence over all its occurrences
 * Value sequences: 5 (always 5), 7 x4 (7 four times, within a longer sequence), 0..99 (counting up
 * by 1), 0..90/+10 (by 10), {a, b} x8 (the group a, b eight times),
 * {..} x8 +1 (each repetition adds 1 to every value), [..] several parts
 * in order. Request ids are shown relative to the requests the rank
 * created: new (the next id), back=k (created k requests before the last).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "unroll.h"

static void put_value(int64_t v) {
  char b[64];
  tf_format_value(v, b, sizeof b);
  fputs(b, stdout);
}

static void put_items(const tf_vitem *it, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) fputs(", ", stdout);
    const tf_vitem *x = &it[i];
    if (x->nbody) {
      fputs("{", stdout);
      put_items(x->body, x->nbody);
      printf("} x%" PRIu64, x->count);
      if (x->step) printf(" %+" PRId64, x->step);
    } else if (x->count == 1) {
      put_value(x->base);
    } else if (x->step == 0) {
      put_value(x->base);
      printf(" x%" PRIu64, x->count);
    } else {
      put_value(x->base);
      fputs("..", stdout);
      put_value((int64_t)((uint64_t)x->base + (uint64_t)x->step * (x->count - 1)));
      if (x->step != 1) printf("/%+" PRId64, x->step);
    }
  }
}

static void put_vseq(const tf_vseq *s) {
  int64_t c;
  if (tf_vseq_is_constant(s, &c)) { /* the same value in every occurrence */
    put_value(c);
    return;
  }
  uint32_t parts = s->n + (s->tcount ? 1 : 0);
  if (parts > 1) fputs("[", stdout);
  put_items(s->items, s->n);
  if (s->tcount) {
    tf_vitem tail = tf_vseq_tail(s);
    if (s->n) fputs(", ", stdout);
    put_items(&tail, 1);
  }
  if (parts > 1) fputs("]", stdout);
}

static void put_event(const tf_fnode *x, const tf_file_info *fi) {
  const tf_func_desc *fd = &fi->funcs[x->fn];
  printf("%s", fd->name);
  if (x->thread) printf(" thread=%u", x->thread);
  int64_t nv;
  if (!tf_vseq_is_constant(&x->nvals, &nv)) { /* array lengths vary: slots do not map to fields */
    fputs(" nvalues=", stdout);
    put_vseq(&x->nvals);
    for (uint32_t j = 0; j < x->nslots; j++) {
      printf(" v%u=", j);
      put_vseq(&x->slots[j]);
    }
    return;
  }
  uint32_t pos = 0;
  for (uint32_t k = 0; k < fd->nfields && pos < x->nslots; k++) {
    const tf_field_desc *f = &fd->fields[k];
    const char *suffix = f->kind == TF_FIELD_REQ ? "(back)" : f->kind == TF_FIELD_REQ_NEW ? "(new+)" : "";
    if (!f->is_array) {
      printf(" %s%s=", f->name, suffix);
      put_vseq(&x->slots[pos++]);
      continue;
    }
    int64_t len;
    if (!tf_vseq_is_constant(&x->slots[pos], &len) || len < 0 || (uint64_t)len > x->nslots - pos - 1) {
      printf(" %s: lengths ", f->name);
      put_vseq(&x->slots[pos]);
      return; /* positions of the following fields vary */
    }
    pos++;
    printf(" %s%s=<", f->name, suffix);
    for (int64_t j = 0; j < len; j++) {
      if (j) fputs("; ", stdout);
      put_vseq(&x->slots[pos++]);
    }
    fputs(">", stdout);
  }
}

static void put_nodes(tf_fnode *const *nodes, uint32_t n, int depth, const tf_file_info *fi) {
  for (uint32_t i = 0; i < n; i++) {
    const tf_fnode *x = nodes[i];
    printf("%*s", 2 * depth, "");
    if (x->is_loop) {
      fputs("loop x", stdout);
      int64_t c;
      if (tf_vseq_is_constant(&x->iters, &c))
        printf("%" PRId64, c);
      else
        put_vseq(&x->iters);
      fputs(" {\n", stdout);
      put_nodes(x->body, x->nbody, depth + 1, fi);
      printf("%*s}\n", 2 * depth, "");
    } else {
      put_event(x, fi);
      fputs("\n", stdout);
    }
  }
}

int cmd_show(int argc, char **argv) {
  long rank;
  int rc = tf_take_options(&argc, &argv, "show", &rank, NULL);
  if (rc) return rc;
  tf_input in;
  if (tf_input_open(argc, argv, TF_WANT_COMPRESSED, "show", &in)) return 1;
  int found = rank < 0;
  for (int i = 0; i < in.n; i++) {
    const tf_file_info *fi = tf_file_get_info(in.readers[i]);
    if (rank >= 0 && fi->rank != rank) continue;
    found = 1;
    tf_fnode **const *segs;
    const uint32_t *segn;
    uint32_t ns = tf_file_folded(in.readers[i], &segs, &segn);
    printf("rank %d: %" PRIu64 " events in %u segment%s\n", fi->rank, fi->nevents, ns, ns == 1 ? "" : "s");
    for (uint32_t s = 0; s < ns; s++) {
      if (ns > 1) printf("segment %u:\n", s);
      put_nodes(segs[s], segn[s], 1, fi);
    }
  }
  tf_input_close(&in);
  if (!found) {
    fprintf(stderr, "tracefold show: rank %ld is not in the trace\n", rank);
    return 2;
  }
  return ferror(stdout) ? 1 : 0;
}
