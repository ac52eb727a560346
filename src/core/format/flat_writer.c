/* flat_writer.c — encoder for flat (reference) trace files; see flat_writer.h. */
#define _GNU_SOURCE /* O_TMPFILE, linkat */
#include "format/flat_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/bytes.h"
#include "util/file_io.h"
#include "format/functable.h"

#define TF_FLUSH_AT (1u << 20)

enum { REC_END = 0, REC_EVENT = 1, REC_CALLSITE = 2, REC_LOST = 3, REC_SEGMENT = 4, REC_PARTIAL = 5, REC_FUNCTION = 6 };

/* A full buffer handed out by a deferred writer, waiting to be written. */
typedef struct pending {
  struct pending *next;
  tf_buf buf;
} pending;

struct tf_file_writer {
  FILE *f;
  char *path;
  char *part; /* written as path.part, renamed to path when complete */
  tf_buf buf;
  uint32_t crc;      /* of the bytes flushed */
  uint64_t flushed;  /* bytes flushed so far (deferred: handed out, maybe not yet written) */
  uint64_t nevents;
  _Atomic int io_error; /* errno of the first failed write, 0 if none */
  const tf_func_desc *funcs; /* the caller's function table: events must fit it */
  uint32_t nfuncs;
  /* compressed files declare a function (function record) before its first
   * use: file_id[fn] is its index in the file, UINT32_MAX while undeclared;
   * flat files carry the whole table in their header (NULL: the same index) */
  int declares; /* a compressed file */
  uint32_t *file_id;
  uint32_t ndeclared;
  uint64_t ncallsites; /* declared so far: events refer to them, indices are dense */
  /* deferred (tf_file_writer_defer): full buffers wait in a queue, oldest
   * first, for tf_file_writer_write_out, which writes them in that order */
  int deferred;
  pthread_mutex_t qlock; /* the queue: held for a push or a pop, never during I/O */
  pthread_mutex_t io;    /* the file: held while it is opened and written */
  pending *head, *tail;
  _Atomic uint32_t queued; /* buffers in the queue: read without qlock (tf_file_writer_pending, every call) */
  int checked;             /* tf_file_writer_checked: the caller checks that values fit their fields */
};

static void set_error(tf_file_writer *w, int e) {
  int none = 0;
  atomic_compare_exchange_strong(&w->io_error, &none, e ? e : EIO); /* the first failure is the one reported */
}

/* A lazy writer creates its file at the first write. */
static void open_file(tf_file_writer *w) {
  if (w->f || w->io_error) return;
  if (!(w->f = fopen(w->part, "wb"))) set_error(w, errno);
}

static void write_bytes(tf_file_writer *w, const uint8_t *p, size_t n) {
  open_file(w);
  if (!w->io_error && fwrite(p, 1, n, w->f) != n) set_error(w, errno);
  if (!w->io_error && fflush(w->f) != 0) set_error(w, errno); /* on disk now: snapshots copy it */
}

static pending *pop(tf_file_writer *w) {
  pthread_mutex_lock(&w->qlock);
  pending *q = w->head;
  if (q && !(w->head = q->next)) w->tail = NULL;
  if (q) atomic_fetch_sub(&w->queued, 1);
  pthread_mutex_unlock(&w->qlock);
  return q;
}

static int queue_empty(tf_file_writer *w) { return atomic_load(&w->queued) == 0; }

/* The queue, oldest first; w->io held. */
static void write_queue(tf_file_writer *w) {
  for (pending *q; (q = pop(w));) {
    write_bytes(w, q->buf.data, q->buf.len);
    tf_buf_free(&q->buf);
    free(q);
  }
}

static void flush_buf(tf_file_writer *w) {
  if (w->buf.len == 0) return;
  w->crc = tf_crc32(w->crc, w->buf.data, w->buf.len);
  w->flushed += w->buf.len;
  pending *q = w->deferred ? malloc(sizeof *q) : NULL;
  if (!q && w->deferred) { /* no memory to defer it: written now, after what is queued */
    pthread_mutex_lock(&w->io);
    write_queue(w);
    write_bytes(w, w->buf.data, w->buf.len);
    pthread_mutex_unlock(&w->io);
  } else if (!q) {
    write_bytes(w, w->buf.data, w->buf.len);
  }
  if (!q) {
    w->buf.len = 0;
    return;
  }
  /* handed out whole: the caller's lock is not held while it is written */
  q->next = NULL;
  q->buf = w->buf;
  w->buf = (tf_buf){0};
  pthread_mutex_lock(&w->qlock);
  if (w->tail) w->tail->next = q;
  else w->head = q;
  w->tail = q;
  atomic_fetch_add(&w->queued, 1);
  pthread_mutex_unlock(&w->qlock);
}

void tf_file_writer_defer(tf_file_writer *w) { w->deferred = 1; }

void tf_file_writer_checked(tf_file_writer *w) { w->checked = 1; }

int tf_file_writer_pending(tf_file_writer *w) { return w->deferred && !queue_empty(w); }

void tf_file_writer_write_out(tf_file_writer *w, int wait) {
  if (!w || !w->deferred) return;
  if (wait) pthread_mutex_lock(&w->io);
  else if (pthread_mutex_trylock(&w->io) != 0) return; /* the thread writing takes ours too (below) */
  for (;;) {
    write_queue(w);
    pthread_mutex_unlock(&w->io);
    /* a buffer handed out after the last pop, by a thread whose trylock
     * failed while we held the file, is written now rather than later */
    if (queue_empty(w) || pthread_mutex_trylock(&w->io) != 0) return;
  }
}

/* Deferred buffers dropped unwritten (the writer is abandoned or failed). */
static void drop_pending(tf_file_writer *w) {
  for (pending *q; (q = pop(w));) {
    tf_buf_free(&q->buf);
    free(q);
  }
}

static tf_file_writer *open_writer(const char *path, tf_file_kind kind, const tf_file_info *info, int lazy,
                                   char *err, size_t errlen) {
  tf_file_writer *w = calloc(1, sizeof *w);
  if (w) {
    pthread_mutex_init(&w->qlock, NULL);
    pthread_mutex_init(&w->io, NULL);
  }
  if (!w || !(w->path = strdup(path))) {
    if (err) snprintf(err, errlen, "%s: out of memory", path);
    free(w);
    return NULL;
  }
  size_t plen = strlen(path) + 6;
  if ((w->part = malloc(plen))) snprintf(w->part, plen, "%s.part", path);
  if (!lazy && w->part) w->f = fopen(w->part, "wb");
  if (!w->part || (!lazy && !w->f)) {
    if (err) snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    free(w->part);
    free(w->path);
    free(w);
    return NULL;
  }
  tf_buf *b = &w->buf;
  tf_buf_put_bytes(b, kind == TF_FILE_COMPRESSED ? TF_COMP_MAGIC : TF_FLAT_MAGIC, 8);
  tf_buf_put_u32(b, kind == TF_FILE_COMPRESSED ? TF_COMP_VERSION : TF_FLAT_VERSION);
  tf_buf_put_uvar(b, (uint64_t)info->rank);
  tf_buf_put_uvar(b, (uint64_t)info->nranks);
  tf_buf_put_svar(b, info->thread_level);
  tf_buf_put_uvar(b, info->start_unix_ns);
  tf_buf_put_str(b, info->exe);
  tf_buf_put_str(b, info->mpi);
  tf_buf_put_uvar(b, info->timing);
  tf_buf_put_uvar(b, info->bins);
  tf_buf_put_uvar(b, info->unit);
  tf_buf_put_u64(b, info->run_id); /* version 3 */
  tf_buf_put_uvar(b, info->run_start_unix_ns);
  w->funcs = info->funcs;
  w->nfuncs = info->nfuncs;
  w->declares = kind == TF_FILE_COMPRESSED;
  if (w->declares) { /* version 4: only the functions used, each declared by a record */
    tf_functable_encode(b, NULL, 0);
    if ((w->file_id = malloc((info->nfuncs ? info->nfuncs : 1) * sizeof *w->file_id)))
      memset(w->file_id, 0xff, (info->nfuncs ? info->nfuncs : 1) * sizeof *w->file_id);
    else
      w->io_error = ENOMEM;
  } else {
    tf_functable_encode(b, info->funcs, info->nfuncs);
  }
  return w;
}

int64_t tf_file_writer_function(tf_file_writer *w, uint32_t fn) {
  if (fn >= w->nfuncs) return -2;
  if (!w->declares) return fn;
  if (!w->file_id) return -1;
  if (w->file_id[fn] != UINT32_MAX) return w->file_id[fn];
  const tf_func_desc *fd = &w->funcs[fn];
  size_t bound = 1 + 10 + strlen(fd->name) + 10; /* tag, name, field count, then the fields */
  for (uint32_t k = 0; k < fd->nfields; k++) bound += 2 + 10 + strlen(fd->fields[k].name);
  if (w->io_error || tf_buf_reserve(&w->buf, bound)) return -1; /* whole record or nothing */
  tf_buf_put_u8(&w->buf, REC_FUNCTION);
  tf_functable_encode_one(&w->buf, fd);
  return w->file_id[fn] = w->ndeclared++;
}

tf_file_writer *tf_file_writer_open(const char *path, tf_file_kind kind, const tf_file_info *info, char *err,
                                    size_t errlen) {
  return open_writer(path, kind, info, 0, err, errlen);
}

tf_file_writer *tf_file_writer_open_lazy(const char *path, tf_file_kind kind, const tf_file_info *info, char *err,
                                         size_t errlen) {
  return open_writer(path, kind, info, 1, err, errlen);
}

int tf_file_writer_callsite(tf_file_writer *w, uint32_t index, uint64_t sig, const char *module, uint64_t offset) {
  tf_buf *b = &w->buf;
  size_t mlen = module ? strlen(module) : 0;
  if (index != w->ncallsites) return -2; /* the reader takes them dense, in order */
  if (w->io_error || tf_buf_reserve(b, 1 + 10 + 8 + 10 + mlen + 10)) return -1; /* whole record or nothing */
  w->ncallsites++;
  tf_buf_put_u8(b, REC_CALLSITE);
  tf_buf_put_uvar(b, index);
  tf_buf_put_u64(b, sig);
  tf_buf_put_str(b, module);
  tf_buf_put_uvar(b, offset);
  return 0;
}

int tf_file_writer_event(tf_file_writer *w, uint32_t fn, uint32_t thread, uint32_t callsite_index,
                         uint64_t compute_ns, uint64_t duration_ns, uint32_t nvals, const int64_t *vals) {
  tf_buf *b = &w->buf;
  /* what the reader would refuse is not written: the same checks, the same splitter */
  if (fn >= w->nfuncs || callsite_index >= w->ncallsites ||
      (!w->checked && tf_event_fields(&w->funcs[fn], vals, nvals, NULL) != TF_OK))
    return -2;
  /* reserve the worst case first: an event is written whole or not at all */
  if (w->io_error || tf_buf_reserve(b, 1 + 6 * 10 + (size_t)nvals * 10)) return -1;
  uint8_t *p = b->data + b->len;
  *p++ = REC_EVENT;
  p = tf_uvar_at(p, fn);
  p = tf_uvar_at(p, thread);
  p = tf_uvar_at(p, callsite_index);
  p = tf_uvar_at(p, compute_ns);
  p = tf_uvar_at(p, duration_ns);
  p = tf_uvar_at(p, nvals);
  for (uint32_t i = 0; i < nvals; i++) p = tf_uvar_at(p, tf_zigzag(vals[i]));
  b->len = (size_t)(p - b->data);
  w->nevents++;
  if (b->len >= TF_FLUSH_AT) flush_buf(w);
  return w->io_error ? -1 : 0;
}

int tf_file_writer_segment(tf_file_writer *w, const uint8_t *nodes, size_t len, uint64_t nevents) {
  tf_buf *b = &w->buf;
  if (w->io_error || tf_buf_reserve(b, 1 + 10 + 10 + len)) return -1;
  tf_buf_put_u8(b, REC_SEGMENT);
  tf_buf_put_uvar(b, nevents);
  tf_buf_put_uvar(b, len);
  tf_buf_put_bytes(b, nodes, len);
  w->nevents += nevents;
  if (b->len >= TF_FLUSH_AT) flush_buf(w);
  return w->io_error ? -1 : 0;
}


void tf_file_writer_lost(tf_file_writer *w, uint64_t n) {
  tf_buf_put_u8(&w->buf, REC_LOST);
  tf_buf_put_uvar(&w->buf, n);
}

void tf_file_writer_partial(tf_file_writer *w, uint32_t reason) {
  tf_buf_put_u8(&w->buf, REC_PARTIAL);
  tf_buf_put_uvar(&w->buf, reason);
}

tf_status tf_file_writer_close(tf_file_writer *w, char *err, size_t errlen) { return tf_file_writer_close_errno(w, err, errlen, NULL); }

tf_status tf_file_writer_close_errno(tf_file_writer *w, char *err, size_t errlen, int *eno) {
  tf_buf *b = &w->buf;
  if (eno) *eno = 0;
  tf_buf_put_u8(b, REC_END);
  tf_buf_put_uvar(b, w->nevents);
  flush_buf(w);
  tf_file_writer_write_out(w, 1);
  open_file(w);
  tf_status st = TF_OK;
  if (b->failed) {
    st = TF_ERR_NOMEM;
    if (err) snprintf(err, errlen, "%s: out of memory while encoding events", w->path);
  } else {
    uint8_t crc[4] = {(uint8_t)w->crc, (uint8_t)(w->crc >> 8), (uint8_t)(w->crc >> 16), (uint8_t)(w->crc >> 24)};
    if (!w->io_error && fwrite(crc, 1, 4, w->f) != 4) set_error(w, errno);
    if (w->f && fclose(w->f) != 0 && !w->io_error) set_error(w, errno);
    w->f = NULL;
    if (!w->io_error && rename(w->part, w->path) != 0) set_error(w, errno);
    if (w->io_error) {
      st = TF_ERR_IO;
      if (err) snprintf(err, errlen, "%s: write failed: %s", w->path, strerror(w->io_error));
    }
  }
  if (w->f) fclose(w->f);
  if (st != TF_OK) unlink(w->part); /* no half-written file left behind (the final name is untouched) */
  if (eno && st != TF_OK) *eno = w->io_error ? w->io_error : ENOMEM;
  drop_pending(w); /* none left unless a buffer could not be written */
  tf_buf_free(b);
  free(w->file_id);
  free(w->part);
  free(w->path);
  free(w);
  return st;
}

int tf_file_writer_error(const tf_file_writer *w) { return w->io_error ? w->io_error : w->buf.failed ? ENOMEM : 0; }

void tf_file_writer_abandon(tf_file_writer *w) {
  if (!w) return;
  if (w->f) fclose(w->f);
  unlink(w->part);
  drop_pending(w);
  tf_buf_free(&w->buf);
  free(w->file_id);
  free(w->part);
  free(w->path);
  free(w);
}

/* ------------------------------------------------------------ snapshots */

static void put_tail(tf_buf *b, const uint8_t *seg, size_t seglen, uint64_t segevents, uint64_t lost, uint32_t partial,
                     uint64_t nevents) {
  if (seglen) {
    tf_buf_put_u8(b, REC_SEGMENT);
    tf_buf_put_uvar(b, segevents);
    tf_buf_put_uvar(b, seglen);
    tf_buf_put_bytes(b, seg, seglen);
  }
  if (lost) {
    tf_buf_put_u8(b, REC_LOST);
    tf_buf_put_uvar(b, lost);
  }
  if (partial) {
    tf_buf_put_u8(b, REC_PARTIAL);
    tf_buf_put_uvar(b, partial);
  }
  tf_buf_put_u8(b, REC_END);
  tf_buf_put_uvar(b, nevents);
}

int tf_file_writer_snapshot(const tf_file_writer *w, const uint8_t *seg, size_t seglen, uint64_t segevents,
                            uint64_t lost, uint32_t partial, tf_file_snapshot *out) {
  *out = (tf_file_snapshot){0};
  if (w->io_error || w->buf.failed) return -1;
  tf_buf b = {0};
  tf_buf_put_bytes(&b, w->buf.data, w->buf.len);
  put_tail(&b, seg, seglen, segevents, lost, partial, w->nevents + (seglen ? segevents : 0));
  uint32_t crc = tf_crc32(w->crc, b.data, b.len);
  tf_buf_put_u32(&b, crc);
  if (b.failed || (w->flushed && !(out->part = strdup(w->part)))) {
    tf_buf_free(&b);
    return -1;
  }
  out->prefix = w->flushed;
  out->data = b.data;
  out->len = b.len;
  return 0;
}

/* A new file without a name in path's directory, or -1. */
static int open_unnamed_beside(const char *path) {
#ifdef O_TMPFILE
  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) : 1;
  char *dir = malloc(dlen + 2);
  if (!dir) return -1;
  memcpy(dir, slash ? path : ".", dlen);
  dir[dlen] = 0;
  if (slash && dlen == 0) strcpy(dir, "/");
  int fd = open(dir, O_TMPFILE | O_WRONLY, 0666);
  free(dir);
  return fd;
#else
  (void)path;
  return -1;
#endif
}

int tf_file_snapshot_write(const tf_file_snapshot *s, const char *path) {
  size_t n = strlen(path) + 6;
  char *tmp = malloc(n);
  if (!tmp) return ENOMEM;
  snprintf(tmp, n, "%s.ckpt", path);
  /* An unnamed file in the trace directory (O_TMPFILE), named only once
   * complete: a rank killed meanwhile (SIGKILL) leaves nothing behind. Where
   * the file system cannot, path.ckpt is written and renamed. */
  int err = 0, unnamed = 1, in = -1, out = open_unnamed_beside(path);
  if (out < 0) {
    unnamed = 0;
    out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  }
  if (out < 0) err = errno;
  if (!err && s->prefix && (in = open(s->part, O_RDONLY)) < 0) err = errno;
  char buf[65536];
  for (uint64_t off = 0; !err && off < s->prefix;) { /* the bytes the writer flushed, as they were then */
    size_t want = s->prefix - off < sizeof buf ? (size_t)(s->prefix - off) : sizeof buf;
    ssize_t k = pread(in, buf, want, (off_t)off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      err = k < 0 ? errno : EIO;
      break;
    }
    for (ssize_t done = 0; !err && done < k;) {
      ssize_t x = write(out, buf + done, (size_t)(k - done));
      if (x < 0 && errno == EINTR) continue;
      if (x <= 0) err = x < 0 ? errno : EIO;
      else done += x;
    }
    off += (uint64_t)k;
  }
  for (size_t off = 0; !err && off < s->len;) {
    ssize_t k = write(out, s->data + off, s->len - off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) err = k < 0 ? errno : EIO;
    else off += (size_t)k;
  }
  if (in >= 0) close(in);
  if (!err && unnamed) { /* name it path.ckpt, then rename over path */
    char fdpath[64];
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", out);
    unlink(tmp); /* a leftover of a rank killed between the two steps */
    if (linkat(AT_FDCWD, fdpath, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) != 0) err = errno;
  }
  if (out >= 0 && close(out) != 0 && !err) err = errno;
  if (!err && rename(tmp, path) != 0) err = errno;
  if (err && out >= 0) unlink(tmp);
  free(tmp);
  return err;
}

void tf_file_snapshot_free(tf_file_snapshot *s) {
  free(s->part);
  free(s->data);
  *s = (tf_file_snapshot){0};
}

tf_status tf_file_writer_finish_mem(tf_file_writer *w, uint8_t **data, size_t *len, int *on_disk, char *err,
                                    size_t errlen) {
  *data = NULL;
  *len = 0;
  *on_disk = w->flushed != 0;
  if (*on_disk) { /* flushed before: complete the file and read it back */
    char *path = strdup(w->path);
    tf_status st = path ? tf_file_writer_close(w, err, errlen) : TF_ERR_NOMEM;
    if (st == TF_OK) st = tf_load_file(path, data, len, err, errlen);
    free(path);
    return st;
  }
  tf_buf *b = &w->buf;
  tf_buf_put_u8(b, REC_END);
  tf_buf_put_uvar(b, w->nevents);
  tf_buf_put_u32(b, tf_crc32(0, b->data, b->len));
  tf_status st = TF_OK;
  if (b->failed) {
    st = TF_ERR_NOMEM;
    if (err) snprintf(err, errlen, "%s: out of memory while encoding events", w->path);
    tf_buf_free(b);
  } else {
    *data = b->data;
    *len = b->len;
  }
  free(w->file_id);
  free(w->part);
  free(w->path);
  free(w);
  return st;
}
