/* container.c — the framing of a merged trace file (doc/FORMAT.md 3.1);
 * see container.h.
 *
 * version 6:    "TFTRACE\n" u32 version, u8 codec, uvar raw length,
 *               uvar stored length, stored bytes, u32 CRC-32 of every byte
 *               before it; the body (raw) is section*: u8 id, uvar length,
 *               content
 * versions 2-5: "TFTRACE\n" u32 version, then per section u8 id, u8 codec,
 *               uvar raw length, uvar stored length, stored bytes, u32 CRC
 *               of the stored bytes; end: u8 0, u32 CRC of every byte before
 * codec: 0 stored, 1 one zstd frame, 2 (version 6) one zstd frame over the
 * built-in dictionary (trace_dict.c).
 */
#include "merge/container.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "format/trace_dict.h"
#include "util/file_io.h"

enum { CODEC_STORED = 0, CODEC_ZSTD = 1, CODEC_ZSTD_DICT = 2 };

/* ------------------------------------------------------------ write */

void tf_body_put_ext(tf_body *body, const uint8_t *p, size_t len) {
  if (!len) return;
  if (body->next == body->cap_ext) {
    size_t cap = body->cap_ext ? 2 * body->cap_ext : 16;
    tf_body_ext *e = realloc(body->ext, cap * sizeof *e);
    if (!e) {
      body->failed = 1;
      return;
    }
    body->ext = e;
    body->cap_ext = cap;
  }
  body->ext[body->next++] = (tf_body_ext){body->b.len, p, len};
  body->ext_len += len;
}

void tf_body_free(tf_body *body) {
  tf_buf_free(&body->b);
  free(body->ext);
  *body = (tf_body){0};
}

void tf_container_put_section(tf_body *body, uint8_t id, const tf_buf *content) {
  tf_buf_put_u8(&body->b, id);
  tf_buf_put_uvar(&body->b, content->len);
  tf_buf_put_bytes(&body->b, content->data, content->len);
}

size_t tf_container_open_section(tf_body *body, uint8_t id) {
  tf_buf_put_u8(&body->b, id);
  return body->b.len;
}

void tf_container_close_section(tf_body *body, size_t start) {
  tf_buf *b = &body->b;
  size_t len = b->len - start, k = body->next;
  while (k > 0 && body->ext[k - 1].at >= start) len += body->ext[--k].len; /* the ranges inside the section */
  uint8_t room[10];
  tf_buf head = {room, 0, sizeof room, 0}; /* the length's varint: it fits, room never grows */
  tf_buf_put_uvar(&head, len);
  if (tf_buf_reserve(b, head.len)) {
    b->failed = 1;
    return;
  }
  memmove(b->data + start + head.len, b->data + start, b->len - start);
  memcpy(b->data + start, room, head.len);
  b->len += head.len;
  for (; k < body->next; k++) body->ext[k].at += head.len;
}

/* The body's pieces in order: call put(ctx, p, len) for each; 0, or the first nonzero put returned. */
static int pieces(const tf_body *body, int (*put)(void *, const uint8_t *, size_t), void *ctx) {
  size_t at = 0;
  for (size_t k = 0; k <= body->next; k++) {
    size_t to = k < body->next ? body->ext[k].at : body->b.len;
    int rc = to > at ? put(ctx, body->b.data + at, to - at) : 0;
    if (!rc && k < body->next) rc = put(ctx, body->ext[k].p, body->ext[k].len);
    if (rc) return rc;
    at = to;
  }
  return 0;
}

static int append(void *out, const uint8_t *p, size_t len) {
  tf_buf_put_bytes(out, p, len);
  return ((tf_buf *)out)->failed;
}

/* One zstd frame of raw (with the dictionary or without) into z (room cap);
 * its size, or 0 when it failed. */
static size_t frame(ZSTD_CCtx *cx, void *z, size_t cap, const tf_buf *raw, int level, int with_dict) {
  size_t dlen = 0;
  const uint8_t *dict = with_dict ? tf_trace_dict(&dlen) : NULL;
  size_t zn = ZSTD_compress_usingDict(cx, z, cap, raw->data, raw->len, dict, dlen, level);
  return ZSTD_isError(zn) ? 0 : zn;
}

/* Bodies above this size are compressed once, without the trace dictionary (which pays only on small
 * traces): a trace of flat runs (an irregular stream, doc/FOLDING.md) is megabytes of event bytes, where the
 * second pass took a third of MPI_Finalize (415,359 events: 1.32 s with it, 0.84-0.99 s without). */
#define LARGE_BODY ((size_t)1 << 20)

/* A large body's frame: streamed piece by piece, at level 3 at most, with tables of its own. A large body is
 * flat runs (an irregular stream's events, doc/FOLDING.md "Flat runs"), where level 9 (and its 13 MB of
 * tables for a body of a few megabytes) took 0.22 s for bench_irregular's 415,359 events (12.3 MB of body, 1.52
 * MB compressed) and these take 0.03-0.05 s and 2.6 MB, for 1.63 MB (bench/RESULTS.md "Irregular streams:
 * memory and time at MPI_Finalize"). */
enum { LARGE_LEVEL = 3, LARGE_WINDOW_LOG = 20, LARGE_HASH_LOG = 18, LARGE_CHAIN_LOG = 17 };

typedef struct stream {
  ZSTD_CCtx *cx;
  tf_buf z;
} stream;

static int stream_put(void *ctx, const uint8_t *p, size_t len) {
  stream *s = ctx;
  ZSTD_inBuffer in = {p, len, 0};
  while (in.pos < in.size) {
    if (tf_buf_reserve(&s->z, ZSTD_CStreamOutSize())) return -1;
    ZSTD_outBuffer o = {s->z.data + s->z.len, s->z.cap - s->z.len, 0};
    if (ZSTD_isError(ZSTD_compressStream2(s->cx, &o, &in, ZSTD_e_continue))) return -1;
    s->z.len += o.pos;
  }
  return 0;
}

/* The body in one frame into z; 0, or -1 (z freed). */
static int large_frame(const tf_body *body, int level, tf_buf *z) {
  stream s = {ZSTD_createCCtx(), {0}};
  size_t total = body->b.len + body->ext_len;
  level = level < LARGE_LEVEL ? level : LARGE_LEVEL;
  int rc = !s.cx || ZSTD_isError(ZSTD_CCtx_setParameter(s.cx, ZSTD_c_compressionLevel, level)) ||
           ZSTD_isError(ZSTD_CCtx_setParameter(s.cx, ZSTD_c_windowLog, LARGE_WINDOW_LOG)) ||
           ZSTD_isError(ZSTD_CCtx_setParameter(s.cx, ZSTD_c_hashLog, LARGE_HASH_LOG)) ||
           ZSTD_isError(ZSTD_CCtx_setParameter(s.cx, ZSTD_c_chainLog, LARGE_CHAIN_LOG)) ||
           ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(s.cx, total)) || pieces(body, stream_put, &s) ? -1 : 0;
  for (size_t left = 1; !rc && left;) { /* the frame's end */
    ZSTD_inBuffer in = {NULL, 0, 0};
    if (tf_buf_reserve(&s.z, ZSTD_CStreamOutSize())) {
      rc = -1;
      break;
    }
    ZSTD_outBuffer o = {s.z.data + s.z.len, s.z.cap - s.z.len, 0};
    left = ZSTD_compressStream2(s.cx, &o, &in, ZSTD_e_end);
    if (ZSTD_isError(left)) rc = -1;
    else s.z.len += o.pos;
  }
  ZSTD_freeCCtx(s.cx);
  if (rc) tf_buf_free(&s.z);
  *z = s.z;
  return rc;
}

void tf_container_put_file(tf_buf *out, const tf_body *body, int zstd_level) {
  size_t raw_len = body->b.len + body->ext_len;
  tf_buf flat = {0}, zl = {0};
  const tf_buf *whole = &body->b;
  if (body->next && raw_len <= LARGE_BODY && zstd_level > 0) { /* small: compressed whole, both ways */
    pieces(body, append, &flat);
    whole = &flat;
  }
  const uint8_t *stored = NULL; /* NULL: stored, the body's pieces as they are */
  size_t slen = raw_len;
  uint8_t codec = CODEC_STORED;
  void *z[2] = {NULL, NULL};
  if (zstd_level > 0 && raw_len > LARGE_BODY) {
    if (!large_frame(body, zstd_level, &zl) && zl.len < slen) {
      stored = zl.data;
      slen = zl.len;
      codec = CODEC_ZSTD;
    }
  } else if (zstd_level > 0) {
    size_t cap = ZSTD_compressBound(whole->len);
    ZSTD_CCtx *cx = ZSTD_createCCtx();
    for (int with_dict = 0; cx && with_dict < 2; with_dict++) {
      if (!(z[with_dict] = malloc(cap))) break;
      size_t zn = frame(cx, z[with_dict], cap, whole, zstd_level, with_dict);
      if (zn && zn < slen) {
        stored = z[with_dict];
        slen = zn;
        codec = with_dict ? CODEC_ZSTD_DICT : CODEC_ZSTD;
      }
    }
    ZSTD_freeCCtx(cx);
  }
  size_t start = out->len;
  tf_buf_put_bytes(out, TF_TRACE_MAGIC, 8);
  tf_buf_put_u32(out, TF_TRACE_VERSION);
  tf_buf_put_u8(out, codec);
  tf_buf_put_uvar(out, raw_len);
  tf_buf_put_uvar(out, slen);
  if (stored) tf_buf_put_bytes(out, stored, slen);
  else pieces(body, append, out);
  if (body->failed || body->b.failed) out->failed = 1;
  tf_buf_put_u32(out, out->failed ? 0 : tf_crc32(0, out->data + start, out->len - start));
  free(z[0]);
  free(z[1]);
  tf_buf_free(&zl);
  tf_buf_free(&flat);
}

/* ------------------------------------------------------------ read */

static const char *section_name(uint8_t id) {
  static const char *const names[] = {"END", "INFO", "FUNCS", "CALLSITES", "RANKS", "NODES"};
  return id < sizeof names / sizeof names[0] ? names[id] : id >= 64 ? "optional" : "reserved";
}

static int add(tf_container *c, uint8_t id, const uint8_t *data, size_t len, size_t at) {
  if (!(c->n & (c->n + 1))) { /* 0, 1, 3, 7, ...: full */
    tf_section *s = realloc(c->sec, (size_t)(c->n + 1) * 2 * sizeof *s);
    if (!s) return -1;
    c->sec = s;
  }
  c->sec[c->n++] = (tf_section){.id = id, .data = data, .len = len, .at = at};
  return 0;
}

/* stored bytes of a codec -> raw_len bytes (*raw: NULL when stored as they
 * are). TF_OK or an error naming what (a section, the body) and where. */
static tf_status unpack(tf_container *c, uint8_t codec, const uint8_t *stored, uint64_t stored_len, uint64_t raw_len,
                        const uint8_t **raw, const char *name, const char *what, size_t at, char *err, size_t errlen) {
  *raw = stored;
  if (codec == CODEC_STORED) {
    if (raw_len != stored_len)
      return tf_failf(err, errlen, TF_ERR_FORMAT, "%s: %s: stored length %llu differs from its length %llu at byte %zu",
                      name, what, (unsigned long long)stored_len, (unsigned long long)raw_len, at);
    return TF_OK;
  }
  if (codec != CODEC_ZSTD && !(codec == CODEC_ZSTD_DICT && c->version >= 6))
    return tf_failf(err, errlen, TF_ERR_FORMAT, "%s: %s: unknown codec %u at byte %zu", name, what, codec, at);
  unsigned long long fs = ZSTD_getFrameContentSize(stored, (size_t)stored_len);
  if (raw_len > ((uint64_t)1 << 32) || raw_len > stored_len * 4096 + 65536 || fs != raw_len)
    return tf_failf(err, errlen, TF_ERR_FORMAT, "%s: %s: bad compressed size at byte %zu", name, what, at);
  uint8_t **o = realloc(c->owned, (size_t)(c->nowned + 1) * sizeof *o);
  uint8_t *out = o ? malloc(raw_len ? (size_t)raw_len : 1) : NULL;
  if (o) c->owned = o;
  if (!out) return tf_failf(err, errlen, TF_ERR_NOMEM, "%s: out of memory", name);
  c->owned[c->nowned++] = out;
  size_t dlen = 0;
  const uint8_t *dict = codec == CODEC_ZSTD_DICT ? tf_trace_dict(&dlen) : NULL;
  ZSTD_DCtx *dx = ZSTD_createDCtx();
  size_t got = dx ? ZSTD_decompress_usingDict(dx, out, (size_t)raw_len, stored, (size_t)stored_len, dict, dlen) : 0;
  ZSTD_freeDCtx(dx);
  if (!dx) return tf_failf(err, errlen, TF_ERR_NOMEM, "%s: out of memory", name);
  if (ZSTD_isError(got) || got != raw_len)
    return tf_failf(err, errlen, TF_ERR_FORMAT, "%s: %s: bad zstd data at byte %zu", name, what, at);
  *raw = out;
  return TF_OK;
}

/* Version 6: one body, one CRC. */
static tf_status read_v6(tf_cursor *cur, const uint8_t *data, const char *name, tf_container *c, char *err,
                         size_t errlen) {
  uint8_t codec = tf_cur_u8(cur);
  uint64_t raw_len = tf_cur_uvar(cur), stored_len = tf_cur_uvar(cur);
  size_t at = (size_t)(cur->p - data);
  const uint8_t *stored = cur->bad ? NULL : tf_cur_bytes(cur, stored_len > SIZE_MAX ? SIZE_MAX : (size_t)stored_len);
  size_t crc_at = (size_t)(cur->p - data);
  uint32_t crc = tf_cur_u32(cur);
  if (cur->bad) return tf_failf(err, errlen, TF_ERR_TRUNCATED, "%s: truncated (file ends before its checksum)", name);
  if (crc != tf_crc32(0, data, crc_at))
    return tf_failf(err, errlen, TF_ERR_CHECKSUM, "%s: checksum mismatch (file corrupted)", name);
  if (cur->p != cur->end)
    return tf_failf(err, errlen, TF_ERR_FORMAT, "%s: %zu bytes after its checksum", name, (size_t)(cur->end - cur->p));
  const uint8_t *body;
  tf_status st = unpack(c, codec, stored, stored_len, raw_len, &body, name, "body", at, err, errlen);
  if (st != TF_OK) return st;
  tf_cursor b = {body, body + raw_len, 0};
  while (b.p != b.end) {
    size_t sat = (size_t)(b.p - body);
    uint8_t id = tf_cur_u8(&b);
    uint64_t n = tf_cur_uvar(&b);
    const uint8_t *content = b.bad ? NULL : tf_cur_bytes(&b, n > SIZE_MAX ? SIZE_MAX : (size_t)n);
    if (b.bad)
      return tf_failf(err, errlen, TF_ERR_FORMAT, "%s: section %s at byte %zu of the body runs past its end", name,
                      section_name(id), sat);
    if (id == 0) return tf_failf(err, errlen, TF_ERR_FORMAT, "%s: section id 0 at byte %zu of the body", name, sat);
    if (add(c, id, content, (size_t)n, sat)) return tf_failf(err, errlen, TF_ERR_NOMEM, "%s: out of memory", name);
  }
  return TF_OK;
}

/* Versions 2 to 5: sections framed, compressed and checked one by one. */
static tf_status read_v2(tf_cursor *cur, const uint8_t *data, const char *name, tf_container *c, char *err,
                         size_t errlen) {
  for (;;) {
    size_t at = (size_t)(cur->p - data);
    uint8_t id = tf_cur_u8(cur);
    if (cur->bad)
      return tf_failf(err, errlen, TF_ERR_TRUNCATED, "%s: truncated (file ends before its end record; %zu bytes)", name,
                      (size_t)(cur->end - data));
    if (id == 0) {
      uint32_t crc = tf_cur_u32(cur);
      if (cur->bad) return tf_failf(err, errlen, TF_ERR_TRUNCATED, "%s: truncated (file ends inside its end record)", name);
      if (crc != tf_crc32(0, data, at + 1))
        return tf_failf(err, errlen, TF_ERR_CHECKSUM, "%s: checksum mismatch (file corrupted)", name);
      if (cur->p != cur->end)
        return tf_failf(err, errlen, TF_ERR_FORMAT, "%s: %zu bytes after the end record", name, (size_t)(cur->end - cur->p));
      return TF_OK;
    }
    const char *sname = section_name(id);
    uint8_t codec = tf_cur_u8(cur);
    uint64_t raw_len = tf_cur_uvar(cur), stored_len = tf_cur_uvar(cur);
    const uint8_t *stored = cur->bad ? NULL : tf_cur_bytes(cur, stored_len > SIZE_MAX ? SIZE_MAX : (size_t)stored_len);
    uint32_t crc = tf_cur_u32(cur);
    if (cur->bad)
      return tf_failf(err, errlen, TF_ERR_TRUNCATED, "%s: truncated (file ends inside section %s at byte %zu)", name, sname,
                      at);
    if (crc != tf_crc32(0, stored, (size_t)stored_len))
      return tf_failf(err, errlen, TF_ERR_CHECKSUM, "%s: section %s corrupted (checksum mismatch) at byte %zu", name,
                      sname, at);
    if (id > 64) continue; /* optional sections this reader does not know are skipped (64: EXTRAP) */
    char what[32];
    snprintf(what, sizeof what, "section %s", sname);
    const uint8_t *content;
    tf_status st = unpack(c, codec, stored, stored_len, raw_len, &content, name, what, at, err, errlen);
    if (st != TF_OK) return st;
    if (add(c, id, content, (size_t)raw_len, at)) return tf_failf(err, errlen, TF_ERR_NOMEM, "%s: out of memory", name);
  }
}

tf_status tf_container_read(const uint8_t *data, size_t len, const char *name, tf_container *c, char *err,
                            size_t errlen) {
  *c = (tf_container){0};
  if (len < 12 || memcmp(data, TF_TRACE_MAGIC, 8) != 0)
    return tf_failf(err, errlen,
                    len && len < 12 && memcmp(data, TF_TRACE_MAGIC, len < 8 ? len : 8) == 0 ? TF_ERR_TRUNCATED
                                                                                           : TF_ERR_FORMAT,
                    "%s: not a tracefold trace file (bad magic)", name);
  tf_cursor cur = {data + 8, data + len, 0};
  c->version = tf_cur_u32(&cur);
  if (c->version < TF_VERSION_OLDEST || c->version > TF_TRACE_VERSION)
    return tf_failf(err, errlen, TF_ERR_VERSION, "%s: merged trace format version %u, this reader knows versions %u to %u",
                    name, c->version, TF_VERSION_OLDEST, TF_TRACE_VERSION);
  tf_status st = c->version >= 6 ? read_v6(&cur, data, name, c, err, errlen) : read_v2(&cur, data, name, c, err, errlen);
  if (st != TF_OK) tf_container_free(c);
  return st;
}

void tf_container_free(tf_container *c) {
  for (uint32_t i = 0; i < c->nowned; i++) free(c->owned[i]);
  free(c->owned);
  free(c->sec);
  *c = (tf_container){0};
}

tf_status tf_container_first_section(const uint8_t *data, size_t len, uint8_t *buf, size_t cap, uint32_t *version,
                                     tf_section *out) {
  if (len < 12 || memcmp(data, TF_TRACE_MAGIC, 8) != 0) return TF_ERR_FORMAT;
  tf_cursor c = {data + 8, data + len, 0};
  *version = tf_cur_u32(&c);
  if (*version < TF_VERSION_OLDEST || *version > TF_TRACE_VERSION) return TF_ERR_VERSION;
  uint8_t id = *version >= 6 ? 0 : tf_cur_u8(&c), codec = tf_cur_u8(&c);
  uint64_t raw_len = tf_cur_uvar(&c), stored_len = tf_cur_uvar(&c);
  if (c.bad || (codec != CODEC_STORED && codec != CODEC_ZSTD && !(codec == CODEC_ZSTD_DICT && *version >= 6)))
    return TF_ERR_FORMAT;
  size_t avail = (size_t)(c.end - c.p) < stored_len ? (size_t)(c.end - c.p) : (size_t)stored_len;
  const uint8_t *raw = c.p;
  size_t got = avail < raw_len ? avail : (size_t)raw_len;
  if (codec != CODEC_STORED) { /* as much of the frame as there is, up to cap bytes */
    ZSTD_DCtx *dx = ZSTD_createDCtx();
    if (!dx) return TF_ERR_NOMEM;
    size_t dlen = 0;
    const uint8_t *dict = codec == CODEC_ZSTD_DICT ? tf_trace_dict(&dlen) : NULL;
    size_t rc = ZSTD_DCtx_loadDictionary(dx, dict, dlen), left = 1;
    ZSTD_inBuffer in = {c.p, avail, 0};
    ZSTD_outBuffer o = {buf, cap, 0};
    while (!ZSTD_isError(rc) && left && o.pos < o.size && in.pos < in.size) rc = left = ZSTD_decompressStream(dx, &o, &in);
    ZSTD_freeDCtx(dx);
    if (ZSTD_isError(rc)) return TF_ERR_FORMAT;
    raw = buf;
    got = o.pos;
  }
  tf_cursor s = {raw, raw + got, 0};
  if (*version >= 6) { /* the body's first section */
    id = tf_cur_u8(&s);
    raw_len = tf_cur_uvar(&s);
  }
  if (s.bad || raw_len > (size_t)(s.end - s.p)) return TF_ERR_FORMAT;
  *out = (tf_section){.id = id, .data = s.p, .len = (size_t)raw_len};
  return TF_OK;
}
