/* streams.c — the order in which a rank's streams (threads) interleave; see streams.h. */
#include "fold/streams.h"

void tf_order_free(tf_order *o, tf_mem *m) {
  tf_vseq_free(&o->sizes, m);
  tf_vseq_free(&o->runs, m);
  tf_vseq_free(&o->lengths, m);
}

int tf_order_copy(tf_order *dst, const tf_order *src, tf_mem *m) {
  tf_order_init(dst);
  if (tf_vseq_copy(&dst->sizes, &src->sizes, m) || tf_vseq_copy(&dst->runs, &src->runs, m) ||
      tf_vseq_copy(&dst->lengths, &src->lengths, m)) {
    tf_order_free(dst, m);
    return -1;
  }
  return 0;
}

void tf_order_seal(tf_order *o, tf_mem *m) {
  tf_vseq_seal(&o->sizes, m);
  tf_vseq_seal(&o->runs, m);
  tf_vseq_seal(&o->lengths, m);
}

/* ------------------------------------------------------------ building */

void tf_order_build_stream(tf_order_builder *b, int64_t size, tf_mem *m) {
  if (b->nstreams) tf_vseq_push(&b->o.sizes, b->last_size, m);
  b->last_size = size;
  b->nstreams++;
}

void tf_order_build_events(tf_order_builder *b, int64_t stream, uint64_t count, tf_mem *m) {
  if (!count) return;
  if (b->has_run && b->run == stream) {
    b->run_len += count;
    return;
  }
  if (b->has_run) tf_vseq_push(&b->o.lengths, (int64_t)b->run_len, m);
  tf_vseq_push(&b->o.runs, stream, m);
  b->has_run = 1;
  b->run = stream;
  b->run_len = count;
}

void tf_order_build_segment(tf_order_builder *b, const tf_order *o, uint64_t n, uint64_t nevents, tf_mem *m) {
  int64_t first = (int64_t)b->nstreams;
  /* its streams: the sizes it lists, then its last one (held back, as the
   * builder holds back the last stream's size) */
  if (b->nstreams) tf_vseq_push(&b->o.sizes, b->last_size, m);
  tf_vseq_append_items(&b->o.sizes, &o->sizes, 0, m);
  b->nstreams += o->sizes.nvalues + 1;
  b->last_size = (int64_t)(n - (uint64_t)tf_vseq_sum(&o->sizes));
  if (!nevents) return;
  if (!o->runs.nvalues) { /* one stream: one run */
    tf_order_build_events(b, first, nevents, m);
    return;
  }
  if (b->has_run) tf_vseq_push(&b->o.lengths, (int64_t)b->run_len, m);
  tf_vseq_append_items(&b->o.runs, &o->runs, first, m);
  tf_vseq_append_items(&b->o.lengths, &o->lengths, 0, m);
  /* its last run is open now; nothing built later continues it (later
   * streams are new), so its stream need not be known */
  b->has_run = 1;
  b->run = -1;
  b->run_len = nevents - (uint64_t)tf_vseq_sum(&o->lengths);
}

void tf_order_build_end(tf_order_builder *b, tf_order *out, tf_mem *m) {
  if (b->nstreams <= 1) { /* one stream: nothing to say */
    tf_order_free(&b->o, m);
  }
  *out = b->o;
  tf_order_init(&b->o);
  b->nstreams = 0;
  b->has_run = 0;
  tf_order_seal(out, m);
}

void tf_order_build_free(tf_order_builder *b, tf_mem *m) {
  tf_order_free(&b->o, m);
  tf_order_build_init(b);
}

/* ------------------------------------------------------------ checks */

int tf_order_check(const tf_order_facts *f, uint64_t n, uint64_t nevents, const char **why) {
  __int128 nstreams = f->sizes_count + 1;
  if (nstreams > TF_STREAMS_MAX) return *why = "too many streams", -1;
  if (f->sizes_count && (f->sizes_min < 0 || f->sizes_sum > (__int128)n))
    return *why = "stream sizes do not fit the nodes", -1;
  if (nstreams == 1) {
    if (f->runs_count || f->lengths_count) return *why = "an order of runs for one stream", -1;
    return 0;
  }
  if (f->runs_count < 1 || f->runs_count > (__int128)nevents) return *why = "bad number of runs", -1;
  if (f->runs_min < 0 || f->runs_max >= nstreams) return *why = "a run of an unknown stream", -1;
  if (f->lengths_count != f->runs_count - 1) return *why = "run lengths do not match the runs", -1;
  if (f->lengths_count && (f->lengths_min < 1 || f->lengths_sum >= (__int128)nevents))
    return *why = "run lengths do not fit the events", -1;
  return 0;
}
