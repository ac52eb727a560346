/* rank_reader.c — reads and validates per-rank trace files: flat
 * (reference) ones, and compressed ones whose folded segments it unrolls
 * (tf_file_* in tracefold.h; rank_reader.h).
 *
 * The whole file is loaded, its CRC-32 checked, and every record parsed once
 * at open against the file's own function table (a scalar field takes one
 * value, an array field its length plus that many values). After a
 * successful open, iteration cannot fail. Any inconsistency is reported as
 * an error naming the file and the byte offset; nothing is trusted before it
 * is checked, so hostile files cannot make the reader crash or loop.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/bytes.h"
#include "util/fields.h"
#include "util/file_io.h"
#include "format/functable.h"
#include "format/rank_reader.h"
#include "format/segment.h"
#include "tracefold.h"
#include "fold/unroll.h"
#include "fold/request_transform.h"

enum { REC_END = 0, REC_EVENT = 1, REC_CALLSITE = 2, REC_LOST = 3, REC_SEGMENT = 4, REC_PARTIAL = 5, REC_FUNCTION = 6 };

struct tf_file_reader {
  uint8_t *data;
  size_t len;
  tf_file_info info;
  tf_functable ft;
  char **strings; /* every string allocated for info/funcs/callsites */
  size_t nstrings, capstrings;
  tf_callsite *callsites;
  size_t records_at; /* offset of the first record */
  tf_cursor cur;     /* iteration state */
  int64_t *vals;
  uint32_t capvals;
  /* compressed files */
  tf_fnode ***segs;
  uint32_t *segn;
  tf_order *orders; /* per segment: how its streams (threads) interleave */
  uint32_t segcap;  /* segments segs, segn and orders have room for */
  uint32_t version;
  tf_mem mem;
  tf_unroll unroll;
  int unrolling;
  uint32_t seg_flags; /* TF_SEGMENT_KEEP_RUNS: flat runs kept as nodes, segments for the merge only */
  int taken;          /* tf_file_folded_take: the nodes are the caller's, no events any more */
  int borrowed;       /* data is the caller's (tf_file_open_mem_runs): never freed here */
  char path[200];
  char error[512];
};

static char *keep_string(tf_file_reader *r, tf_cursor *c) {
  uint64_t n = tf_cur_uvar(c);
  if (c->bad || n > (uint64_t)(c->end - c->p)) {
    c->bad = 1;
    return NULL;
  }
  if (r->nstrings == r->capstrings) {
    size_t cap = r->capstrings ? 2 * r->capstrings : 64;
    char **s = realloc(r->strings, cap * sizeof *s);
    if (!s) return NULL;
    r->strings = s;
    r->capstrings = cap;
  }
  char *s = malloc((size_t)n + 1);
  if (!s) return NULL;
  memcpy(s, tf_cur_bytes(c, (size_t)n), (size_t)n);
  s[n] = 0;
  r->strings[r->nstrings++] = s;
  return s;
}

void tf_file_close(tf_file_reader *r) {
  if (!r) return;
  if (r->unrolling) tf_unroll_free(&r->unroll);
  for (uint32_t s = 0; s < r->info.nsegments; s++) {
    for (uint32_t i = 0; i < r->segn[s]; i++) tf_fnode_free(r->segs[s][i], &r->mem);
    free(r->segs[s]);
    tf_order_free(&r->orders[s], &r->mem);
  }
  free(r->segs);
  free(r->segn);
  free(r->orders);
  for (size_t i = 0; i < r->nstrings; i++) free(r->strings[i]);
  free(r->strings);
  tf_functable_free(&r->ft);
  free(r->callsites);
  free(r->vals);
  if (!r->borrowed) free(r->data);
  free(r);
}

static int grow_vals(tf_file_reader *r, uint64_t n) {
  if (n <= r->capvals) return 0;
  int64_t *v = realloc(r->vals, (size_t)n * sizeof *v);
  if (!v) return -1;
  r->vals = v;
  r->capvals = (uint32_t)n;
  return 0;
}

/* Decode one event record body (after the tag) into ev; 0 ok, -1 malformed
 * (with check, why the values do not fit their function's fields in why,
 * if they do not). */
static int decode_event(tf_file_reader *r, tf_cursor *c, tf_event *ev, int check, char *why, size_t whylen) {
  uint64_t fn = tf_cur_uvar(c), thread = tf_cur_uvar(c), cs = tf_cur_uvar(c);
  uint64_t comp = tf_cur_uvar(c), dur = tf_cur_uvar(c), nvals = tf_cur_uvar(c);
  if (c->bad) return -1;
  if (check && (fn >= r->info.nfuncs || thread > UINT32_MAX || cs >= r->info.ncallsites ||
                nvals > (uint64_t)(c->end - c->p) || nvals > UINT32_MAX))
    return -1;
  if (grow_vals(r, nvals)) return -1;
  for (uint64_t i = 0; i < nvals; i++) r->vals[i] = tf_cur_svar(c);
  if (c->bad) return -1;
  if (check && tf_event_fields_why(&r->info.funcs[fn], r->vals, (uint32_t)nvals, why, whylen) != TF_OK) return -1;
  ev->fn = (uint32_t)fn;
  ev->thread = (uint32_t)thread;
  ev->callsite = r->callsites[cs].sig;
  ev->compute_ns = comp;
  ev->duration_ns = dur;
  ev->nvals = (uint32_t)nvals;
  ev->vals = r->vals;
  return 0;
}

static tf_status parse(tf_file_reader *r, const char *path, tf_file_reader **out, char *err, size_t errlen);

tf_status tf_file_open(const char *path, tf_file_reader **out, char *err, size_t errlen) {
  *out = NULL;
  tf_file_reader *r = calloc(1, sizeof *r);
  if (!r) return tf_failf(err, errlen, TF_ERR_NOMEM, "%s: out of memory", path);
  tf_status st = tf_load_file(path, &r->data, &r->len, err, errlen);
  if (st) {
    tf_file_close(r);
    return st;
  }
  return parse(r, path, out, err, errlen);
}

/* A file held in memory, its segments decoded with seg_flags (segment.h);
 * borrowed: data stays the caller's (it is only read). */
static tf_status open_mem(uint8_t *data, size_t len, const char *name, uint32_t seg_flags, int borrowed,
                          tf_file_reader **out, char *err, size_t errlen) {
  *out = NULL;
  tf_file_reader *r = calloc(1, sizeof *r);
  if (!r) {
    if (!borrowed) free(data);
    return tf_failf(err, errlen, TF_ERR_NOMEM, "%s: out of memory", name);
  }
  r->data = data;
  r->len = len;
  r->seg_flags = seg_flags;
  r->borrowed = borrowed;
  return parse(r, name, out, err, errlen);
}

tf_status tf_file_open_mem(uint8_t *data, size_t len, const char *name, tf_file_reader **out, char *err,
                           size_t errlen) {
  return open_mem(data, len, name, 0, 0, out, err, errlen);
}

tf_status tf_file_open_mem_runs(const uint8_t *data, size_t len, const char *name, tf_file_reader **out, char *err,
                                size_t errlen) {
  return open_mem((uint8_t *)data, len, name, TF_SEGMENT_KEEP_RUNS | TF_SEGMENT_BORROW_RUNS, 1, out, err, errlen);
}

static tf_status parse(tf_file_reader *r, const char *path, tf_file_reader **out, char *err, size_t errlen) {
  tf_status st;
  char bad_event[384] = ""; /* why an event's values do not fit its fields */
  int comp = r->len >= 8 && memcmp(r->data, TF_COMP_MAGIC, 8) == 0;
  if (r->len < 12 || (!comp && memcmp(r->data, TF_FLAT_MAGIC, 8) != 0)) {
    tf_file_close(r);
    return tf_failf(err, errlen, TF_ERR_FORMAT, "%s: not a tracefold trace file (bad magic)", path);
  }
  r->info.kind = comp ? TF_FILE_COMPRESSED : TF_FILE_FLAT;
  tf_cursor c = {r->data + 8, r->data + r->len, 0};
  /* compressed files: version 2 (one stream per segment) and 3 (streams per thread) */
  uint32_t version = tf_cur_u32(&c), known = comp ? TF_COMP_VERSION : TF_FLAT_VERSION;
  if (version < TF_VERSION_OLDEST || version > known) {
    tf_file_close(r);
    return tf_failf(err, errlen, TF_ERR_VERSION, "%s: %s format version %u, this reader knows versions %u to %u", path,
                comp ? "compressed" : "flat", version, TF_VERSION_OLDEST, known);
  }
  r->version = version;
  if (r->len < 16) {
    size_t len = r->len;
    tf_file_close(r);
    return tf_failf(err, errlen, TF_ERR_TRUNCATED, "%s: truncated (%zu bytes)", path, len);
  }
  uint32_t stored_crc = (uint32_t)r->data[r->len - 4] | (uint32_t)r->data[r->len - 3] << 8 |
                        (uint32_t)r->data[r->len - 2] << 16 | (uint32_t)r->data[r->len - 1] << 24;
  int crc_ok = tf_crc32(0, r->data, r->len - 4) == stored_crc;
  c.end = r->data + r->len - 4;

  /* header */
  tf_file_info *in = &r->info;
  uint64_t rank = tf_cur_uvar(&c), nranks = tf_cur_uvar(&c);
  int64_t level = tf_cur_svar(&c);
  in->start_unix_ns = tf_cur_uvar(&c);
  in->exe = keep_string(r, &c);
  in->mpi = keep_string(r, &c);
  uint64_t timing = tf_cur_uvar(&c), bins = tf_cur_uvar(&c), unit = tf_cur_uvar(&c);
  if (version >= 3) { /* the run identity */
    in->run_id = tf_cur_u64(&c);
    in->run_start_unix_ns = tf_cur_uvar(&c);
  }
  if (c.bad || !in->exe || !in->mpi || rank >= nranks || nranks > INT32_MAX || level < INT32_MIN ||
      level > INT32_MAX || timing > TF_TIMING_PATH || bins > TF_BINS_MAX || unit > TF_UNIT_CPU_NS ||
      (bins == 0 && (timing == TF_TIMING_HISTOGRAM || timing == TF_TIMING_PATH)))
    goto malformed;
  in->timing = (uint32_t)timing;
  in->bins = (uint32_t)bins;
  in->unit = (uint32_t)unit;
  in->rank = (int32_t)rank;
  in->nranks = (int32_t)nranks;
  in->thread_level = (int32_t)level;
  int frc = tf_functable_decode(&c, &r->ft);
  if (frc == -2) goto nomem;
  if (frc) goto malformed_or_truncated;
  in->nfuncs = r->ft.n;
  in->funcs = r->ft.funcs;
  r->records_at = (size_t)(c.p - r->data);

  /* records: validate everything once */
  size_t capcs = 0;
  uint64_t nev = 0;
  for (;;) {
    uint8_t tag = tf_cur_u8(&c);
    if (c.bad) goto truncated;
    if (tag == REC_END) {
      uint64_t declared = tf_cur_uvar(&c);
      if (c.bad) goto truncated;
      if (declared != nev || c.p != c.end) goto malformed;
      in->nevents = nev;
      break;
    } else if (tag == REC_CALLSITE) {
      uint64_t idx = tf_cur_uvar(&c);
      if (c.bad || idx != in->ncallsites) goto malformed_or_truncated;
      if (in->ncallsites == capcs) {
        capcs = capcs ? 2 * capcs : 64;
        tf_callsite *ncs = realloc(r->callsites, capcs * sizeof *ncs);
        if (!ncs) goto nomem;
        r->callsites = ncs;
      }
      tf_callsite *cs = &r->callsites[in->ncallsites];
      cs->sig = tf_cur_u64(&c);
      cs->module = keep_string(r, &c);
      cs->offset = tf_cur_uvar(&c);
      if (c.bad || !cs->module) goto malformed_or_truncated;
      in->ncallsites++;
    } else if (tag == REC_LOST) {
      in->lost_events += tf_cur_uvar(&c);
      if (c.bad) goto truncated;
    } else if (tag == REC_PARTIAL) {
      uint64_t why = tf_cur_uvar(&c);
      if (c.bad) goto truncated;
      if (why < 1 || why > 255) goto malformed;
      in->partial = (uint32_t)why;
    } else if (tag == REC_FUNCTION && comp && version >= 4) { /* the next function of the table */
      int drc = tf_functable_decode_one(&c, &r->ft);
      if (drc == -2) goto nomem;
      if (drc) goto malformed_or_truncated;
      in->nfuncs = r->ft.n;
      in->funcs = r->ft.funcs;
    } else if (tag == REC_EVENT && !comp) {
      tf_event ev;
      if (decode_event(r, &c, &ev, 1, bad_event, sizeof bad_event)) goto malformed_or_truncated;
      nev++;
    } else if (tag == REC_SEGMENT && comp) {
      uint64_t segev = tf_cur_uvar(&c), seglen = tf_cur_uvar(&c);
      if (c.bad || seglen > (uint64_t)(c.end - c.p)) goto malformed_or_truncated;
      if (segev > UINT64_MAX / 2 - nev) goto malformed;
      uint32_t ns = in->nsegments;
      if (ns == r->segcap) { /* geometric growth: files of many segments (a small memory cap) read in linear time */
        if (ns > UINT32_MAX / 4) goto malformed;
        uint32_t cap = ns ? 2 * ns : 8;
        tf_fnode ***nsegs = realloc(r->segs, cap * sizeof *nsegs);
        if (nsegs) r->segs = nsegs;
        uint32_t *nsegn = nsegs ? realloc(r->segn, cap * sizeof *nsegn) : NULL;
        if (!nsegn) goto nomem;
        r->segn = nsegn;
        tf_order *nord = realloc(r->orders, cap * sizeof *nord);
        if (!nord) goto nomem;
        r->orders = nord;
        r->segcap = cap;
      }
      tf_cursor sc = {c.p, c.p + seglen, 0};
      const char *why = NULL;
      int rc = tf_segment_decode(&sc, segev, in->nfuncs, in->ncallsites, in->timing | r->seg_flags, in->bins, r->version, &r->segs[ns],
                                 &r->segn[ns], &r->orders[ns], &r->mem, &why);
      in->nsegments++; /* even when partial: close frees it */
      if (rc || sc.p != sc.end) {
        st = crc_ok ? TF_ERR_FORMAT : TF_ERR_CHECKSUM;
        tf_failf(err, errlen, st, "%s: %s in segment %u at byte %zu", path,
             crc_ok ? (why ? why : "trailing bytes") : "corrupted (checksum mismatch)", ns, (size_t)(sc.p - r->data));
        tf_file_close(r);
        return st;
      }
      c.p = sc.end;
      nev += segev;
    } else {
      goto malformed;
    }
  }
  if (!crc_ok) {
    tf_file_close(r);
    return tf_failf(err, errlen, TF_ERR_CHECKSUM, "%s: checksum mismatch (file corrupted)", path);
  }
  in->callsites = r->callsites;
  if (r->seg_flags) snprintf(r->path, sizeof r->path, "%s", path);
  if (comp && !r->seg_flags) {
    if (tf_unroll_init(&r->unroll, (tf_fnode **const *)r->segs, r->segn, r->orders, in->nsegments, in->funcs))
      goto nomem;
    r->unrolling = 1;
    snprintf(r->path, sizeof r->path, "%s", path); /* named in later errors */
  }
  tf_file_rewind(r);
  *out = r;
  return TF_OK;

malformed_or_truncated:
  if (c.p >= c.end) goto truncated;
malformed:
  st = crc_ok ? TF_ERR_FORMAT : TF_ERR_CHECKSUM;
  tf_failf(err, errlen, st, "%s: %s at byte %zu%s%s%s", path,
           crc_ok ? "malformed content" : "corrupted (checksum mismatch)", (size_t)(c.p - r->data),
           crc_ok && bad_event[0] ? " (event " : "", crc_ok ? bad_event : "", crc_ok && bad_event[0] ? ")" : "");
  tf_file_close(r);
  return st;
nomem:
  tf_file_close(r);
  return tf_failf(err, errlen, TF_ERR_NOMEM, "%s: out of memory", path);
truncated:
  tf_failf(err, errlen, TF_ERR_TRUNCATED, "%s: truncated (file ends inside the trace; %zu bytes)", path, r->len);
  tf_file_close(r);
  return TF_ERR_TRUNCATED;
}

const tf_file_info *tf_file_get_info(const tf_file_reader *r) { return &r->info; }

void tf_file_rewind(tf_file_reader *r) {
  if (r->unrolling) tf_unroll_rewind(&r->unroll);
  r->cur.p = r->data + r->records_at;
  r->cur.end = r->data + r->len - 4;
  r->cur.bad = 0;
}

const char *tf_file_error(const tf_file_reader *r) { return r->error; }

uint32_t tf_file_folded(const tf_file_reader *r, tf_fnode **const **segs, const uint32_t **segn,
                        const tf_order **orders) {
  *segs = (tf_fnode **const *)r->segs;
  *segn = r->segn;
  if (orders) *orders = r->orders;
  return r->unrolling || r->seg_flags ? r->info.nsegments : 0;
}

tf_fnode ***tf_file_folded_take(tf_file_reader *r, uint32_t *nsegs, const uint32_t **segn, const tf_order **orders,
                                tf_mem **mem) {
  *nsegs = r->unrolling || r->seg_flags ? r->info.nsegments : 0;
  if (r->unrolling) { /* its iterators go first: the nodes may go from here on */
    tf_unroll_free(&r->unroll);
    r->unrolling = 0;
  }
  r->taken = 1;
  *segn = r->segn;
  if (orders) *orders = r->orders;
  *mem = &r->mem;
  return r->segs;
}

static int next_unrolled(tf_file_reader *r, tf_event *ev) {
  tf_unroll_event ue;
  int rc = tf_unroll_next(&r->unroll, &ue);
  if (rc < 0) {
    snprintf(r->error, sizeof r->error, "%s: malformed content: %s", r->path, r->unroll.error);
    return -1;
  }
  if (rc == 0) return 0;
  *ev = (tf_event){.fn = ue.fn,
                   .thread = ue.thread,
                   .callsite = r->callsites[ue.site].sig,
                   .compute_ns = ue.compute_ns,
                   .duration_ns = ue.duration_ns,
                   .nvals = ue.nvals,
                   .vals = ue.vals};
  return 1;
}

int tf_file_next(tf_file_reader *r, tf_event *ev) {
  if (r->taken) {
    snprintf(r->error, sizeof r->error, "%s: its folded nodes were taken over, its events are gone", r->path);
    return -1;
  }
  if (r->unrolling) return next_unrolled(r, ev);
  if (r->seg_flags) {
    snprintf(r->error, sizeof r->error, "%s: opened for the merge only (flat runs kept), not for its events", r->path);
    return -1;
  }
  for (;;) {
    uint8_t tag = tf_cur_u8(&r->cur);
    if (r->cur.bad || tag == REC_END) return 0;
    if (tag == REC_LOST || tag == REC_PARTIAL) {
      tf_cur_uvar(&r->cur);
      continue;
    }
    if (tag == REC_CALLSITE) {
      tf_cur_uvar(&r->cur);
      tf_cur_u64(&r->cur);
      uint64_t n = tf_cur_uvar(&r->cur);
      tf_cur_bytes(&r->cur, (size_t)n);
      tf_cur_uvar(&r->cur);
      continue;
    }
    return decode_event(r, &r->cur, ev, 0, NULL, 0) == 0;
  }
}

/* ------------------------------------------------------------ the run of a file */

tf_status tf_file_peek_run(const uint8_t *data, size_t len, tf_run_peek *out) {
  *out = (tf_run_peek){.rank = -1};
  int comp = len >= 8 && memcmp(data, TF_COMP_MAGIC, 8) == 0;
  if (len < 12 || (!comp && memcmp(data, TF_FLAT_MAGIC, 8) != 0)) return TF_ERR_FORMAT;
  tf_cursor c = {data + 8, data + len, 0};
  uint32_t version = tf_cur_u32(&c);
  if (version < TF_VERSION_OLDEST || version > (comp ? TF_COMP_VERSION : TF_FLAT_VERSION)) return TF_ERR_VERSION;
  uint64_t rank = tf_cur_uvar(&c);
  tf_cur_uvar(&c); /* nranks */
  tf_cur_svar(&c); /* thread level */
  out->start_unix_ns = tf_cur_uvar(&c);
  uint64_t n = tf_cur_uvar(&c);
  const uint8_t *exe = c.bad ? NULL : tf_cur_bytes(&c, n > SIZE_MAX ? SIZE_MAX : (size_t)n);
  if (exe) snprintf(out->exe, sizeof out->exe, "%.*s", n < sizeof out->exe ? (int)n : (int)sizeof out->exe - 1, (const char *)exe);
  n = tf_cur_uvar(&c);
  tf_cur_bytes(&c, n > SIZE_MAX ? SIZE_MAX : (size_t)n); /* mpi */
  tf_cur_uvar(&c);
  tf_cur_uvar(&c);
  tf_cur_uvar(&c); /* timing, bins, unit */
  if (version >= 3) {
    out->run_id = tf_cur_u64(&c);
    out->run_start_unix_ns = tf_cur_uvar(&c);
  }
  if (c.bad || rank > INT32_MAX) return TF_ERR_TRUNCATED;
  out->rank = (int32_t)rank;
  return TF_OK;
}
