/* args.c — an event's fields as MPI arguments (ints, tags, roots,
 * arrays, one-sided assertions and lock types, file names and the
 * scratch directory's removal, statuses,
 * communicator sizes), the memory its buffers span (rp_span_*) and the
 * payload buffers that hold it: the rp_* helpers the replay engine's calls
 * and the programs `tracefold genapp` writes share. The replay engine
 * compiles this file (declared in fields.h, payload.h, io.h);
 * gen/emit_genapp.py embeds its text, without the #include lines, into
 * every generated program's runtime (src/genapp/app_runtime.c), which
 * defines the same rp_thread fields, rp_alloc, rp_alloc_kept, rp_die and
 * rp_dtype_span. Rules of the text: those of
 * app_runtime.c (C11, <mpi.h> and the C library, warning-free). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fields.h"
#include "handles.h"
#include "io.h"
#include "payload.h"
#include "replay.h"
#include "scratch.h"

/* ------------------------------------------------------------ communicators */

int rp_comm_rank(MPI_Comm c) {
  int r = 0;
  if (c != MPI_COMM_NULL) PMPI_Comm_rank(c, &r);
  return r;
}

int rp_coll_size(MPI_Comm c) {
  int inter = 0, n = 0;
  if (c == MPI_COMM_NULL) return 0;
  PMPI_Comm_test_inter(c, &inter);
  if (inter)
    PMPI_Comm_remote_size(c, &n);
  else
    PMPI_Comm_size(c, &n);
  return n;
}

int rp_local_size(MPI_Comm c) {
  int n = 0;
  if (c != MPI_COMM_NULL) PMPI_Comm_size(c, &n);
  return n;
}

int rp_neighbors(MPI_Comm c, int out) {
  int topo = MPI_UNDEFINED, in = 0, outd = 0;
  if (c == MPI_COMM_NULL || PMPI_Topo_test(c, &topo) != MPI_SUCCESS) return 0;
  if (topo == MPI_CART) {
    PMPI_Cartdim_get(c, &in);
    in = outd = 2 * in;
  } else if (topo == MPI_GRAPH) {
    PMPI_Graph_neighbors_count(c, rp_comm_rank(c), &in);
    outd = in;
  } else if (topo == MPI_DIST_GRAPH) {
    int weighted = 0;
    PMPI_Dist_graph_neighbors_count(c, &in, &outd, &weighted);
  }
  return out ? outd : in;
}

/* Through a volatile: MPI_UNWEIGHTED is a sentinel address (Open MPI: (int *)2), and GCC, seeing it passed
 * where the header declares an array, warns of reading from a region of size 0 (-Wstringop-overread, an
 * error in genapp's one-file programs, which inline this). */
int *rp_unweighted(void) {
  int *volatile unweighted = MPI_UNWEIGHTED;
  return unweighted;
}

void rp_user_function(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)in, (void)inout, (void)len, (void)dt; /* contents are arbitrary in a replay */
}

/* ------------------------------------------------------------ scalars and arrays */

static inline int64_t scalar(const rp_thread *T, int i) { return T->field[i].n ? T->field[i].v[0] : TF_NONE; }

int64_t rp_int64(const rp_thread *T, int i) {
  int64_t v = scalar(T, i);
  if (v == TF_UNDEFINED) return MPI_UNDEFINED;
  if (v <= TF_SPECIAL_MAX) return 0;
  return v;
}
int rp_int(const rp_thread *T, int i) { return (int)rp_int64(T, i); }
int rp_tag(const rp_thread *T, int i) { return scalar(T, i) == TF_ANY_TAG ? MPI_ANY_TAG : rp_int(T, i); }
int rp_root(const rp_thread *T, int i) {
  int64_t v = scalar(T, i);
  return v == TF_ROOT ? MPI_ROOT : v == TF_PROC_NULL ? MPI_PROC_NULL : rp_int(T, i);
}

int rp_max_int(const rp_thread *T) {
  int64_t m = 16;
  for (uint32_t i = 0; i < T->nf; i++) {
    const tf_field_value *f = &T->field[i];
    if (!f->desc->is_array && f->v[0] > m && f->v[0] < (1 << 24)) m = f->v[0];
  }
  return (int)m;
}

static inline int *ints_in(rp_thread *T, int i, int keep) {
  const tf_field_value *f = &T->field[i];
  size_t bytes = (f->n + 1) * sizeof(int);
  int *a = keep ? rp_alloc_kept(T, bytes) : rp_alloc(T, bytes);
  for (uint32_t k = 0; k < f->n; k++) a[k] = f->v[k] == TF_UNDEFINED ? MPI_UNDEFINED : (int)f->v[k];
  return a;
}

int *rp_ints(rp_thread *T, int i) { return ints_in(T, i, 0); }
int *rp_ints_kept(rp_thread *T, int i) { return ints_in(T, i, 1); }

static inline MPI_Aint *aints_in(rp_thread *T, int i, int keep) {
  size_t bytes = (T->field[i].n + 1) * sizeof(MPI_Aint);
  MPI_Aint *a = keep ? rp_alloc_kept(T, bytes) : rp_alloc(T, bytes);
  for (uint32_t k = 0; k < T->field[i].n; k++) a[k] = (MPI_Aint)T->field[i].v[k];
  return a;
}
MPI_Aint *rp_aints(rp_thread *T, int i) { return aints_in(T, i, 0); }
MPI_Aint *rp_aints_kept(rp_thread *T, int i) { return aints_in(T, i, 1); }

int rp_assert(const rp_thread *T, int i) {
  int64_t v = scalar(T, i);
  if (v <= TF_SPECIAL_MAX) return 0;
  static const struct { int64_t tf; int mpi; } modes[] = {
      {TF_MODE_NOCHECK, MPI_MODE_NOCHECK},     {TF_MODE_NOSTORE, MPI_MODE_NOSTORE},
      {TF_MODE_NOPUT, MPI_MODE_NOPUT},         {TF_MODE_NOPRECEDE, MPI_MODE_NOPRECEDE},
      {TF_MODE_NOSUCCEED, MPI_MODE_NOSUCCEED}};
  int bits = (int)(v >> 5); /* bits MPI does not define, as recorded */
  for (size_t k = 0; k < sizeof modes / sizeof *modes; k++)
    if (v & modes[k].tf) bits |= modes[k].mpi;
  return bits;
}

int rp_lock_type(const rp_thread *T, int i) {
  int64_t v = scalar(T, i);
  if (v == TF_LOCK_EXCLUSIVE) return MPI_LOCK_EXCLUSIVE;
  if (v == TF_LOCK_SHARED) return MPI_LOCK_SHARED;
  return v == TF_UNDEFINED ? MPI_UNDEFINED : (int)(v - 1000);
}

int *rp_scratch_ints(rp_thread *T, int n) { return rp_alloc(T, (size_t)(n > 0 ? n : 1) * sizeof(int)); }

/* ------------------------------------------------------------ spans */

rp_span rp_span_union(rp_span a, rp_span b) {
  return (rp_span){a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

/* n elements of a datatype whose extent and true bounds are ts, the first
 * at byte off: element k's data is at off + k x extent + [true_lb, true_ub). */
static inline rp_span elements(rp_thread *T, int64_t n, rp_typespan ts, int64_t off) {
  if (n <= 0) return RP_SPAN_NONE;
  const int64_t limit = (int64_t)1 << 50; /* beyond any memory: a corrupted trace */
  if (n > limit || ts.extent > limit || ts.extent < -limit || (ts.extent && n > limit / llabs(ts.extent)))
    rp_die(T, "a buffer of %lld elements of extent %lld: too large", (long long)n, (long long)ts.extent);
  int64_t last = (n - 1) * (int64_t)ts.extent; /* where the last element starts */
  return (rp_span){off + ts.true_lb + (last < 0 ? last : 0), off + ts.true_ub + (last > 0 ? last : 0)};
}

static inline rp_typespan span_at(rp_thread *T, int dtype, uint32_t k) {
  const tf_field_value *f = &T->field[dtype];
  return rp_dtype_span(T, k < f->n ? f->v[k] : TF_NONE);
}

rp_span rp_span_block(rp_thread *T, int count, int dtype, int64_t times) {
  int64_t n = scalar(T, count), id = scalar(T, dtype);
  if (n <= 0 || times <= 0 || id == TF_NONE) return RP_SPAN_NONE; /* "-": not significant here */
  return elements(T, n * times, rp_dtype_span(T, id), 0);
}

rp_span rp_span_displs(rp_thread *T, int counts, int displs, int dtype) {
  const tf_field_value *c = &T->field[counts], *d = &T->field[displs];
  int w = T->field[dtype].desc->is_array; /* per-peer datatypes: displacements in bytes */
  rp_typespan one = w ? (rp_typespan){1, 0, 1} : span_at(T, dtype, 0);
  rp_span s = RP_SPAN_NONE;
  for (uint32_t k = 0; k < c->n && k < d->n; k++) {
    if (c->v[k] <= 0 || d->v[k] <= TF_SPECIAL_MAX) continue;
    rp_typespan ts = w ? span_at(T, dtype, k) : one;
    s = rp_span_union(s, elements(T, c->v[k], ts, w ? d->v[k] : d->v[k] * (int64_t)ts.extent));
  }
  return s;
}

rp_span rp_span_sum(rp_thread *T, int counts, int dtype) {
  const tf_field_value *c = &T->field[counts];
  int64_t n = 0;
  for (uint32_t k = 0; k < c->n; k++)
    if (c->v[k] > 0) n += c->v[k];
  return scalar(T, dtype) == TF_NONE ? RP_SPAN_NONE : elements(T, n, span_at(T, dtype, 0), 0);
}

rp_span rp_span_mine(rp_thread *T, int counts, int dtype, MPI_Comm comm) {
  const tf_field_value *c = &T->field[counts];
  int r = rp_comm_rank(comm);
  if (r < 0 || (uint32_t)r >= c->n || scalar(T, dtype) == TF_NONE) return RP_SPAN_NONE;
  return elements(T, c->v[r], span_at(T, dtype, 0), 0);
}

rp_span rp_span_bytes(rp_thread *T, int n) {
  int64_t b = scalar(T, n);
  return b > 0 ? (rp_span){0, b} : RP_SPAN_NONE;
}

rp_span rp_span_one(rp_thread *T, int dtype) {
  int64_t id = scalar(T, dtype);
  return id == TF_NONE ? RP_SPAN_NONE : elements(T, 1, rp_dtype_span(T, id), 0);
}

/* ------------------------------------------------------------ file names */

const char *rp_string(rp_thread *T, int i) {
  const tf_field_value *f = &T->field[i];
  char *s = rp_alloc(T, (size_t)f->n + 1);
  for (uint32_t k = 0; k < f->n; k++) s[k] = (char)f->v[k];
  return s;
}

const char *rp_io_name(rp_thread *T, int i) {
  char *s = (char *)rp_string(T, i);
  if (*s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..")) return s;
  for (char *p = s; *p; p++)
    if (*p == '/') *p = '_';
  if (*s == '.' || !*s) {
    char *t = rp_alloc(T, strlen(s) + 2);
    t[0] = '_';
    strcpy(t + 1, s);
    s = t;
  }
  return s;
}

/* Remove dir and the files in it (the scratch directory of the MPI-IO calls: no subdirectories). */
void rp_remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char file[8192];
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
        unlink(file);
      }
    closedir(d);
  }
  rmdir(dir);
}

/* ------------------------------------------------------------ statuses */

MPI_Status *rp_status(rp_thread *T, int src) {
  if (src < 0 || !T->field[src].n || T->field[src].v[0] == TF_NONE) return MPI_STATUS_IGNORE;
  return &T->status;
}

MPI_Status *rp_statuses(rp_thread *T, int src, int count) {
  if (src < 0 || T->field[src].n == 0) return MPI_STATUSES_IGNORE;
  int n = count >= 0 ? rp_int(T, count) : (int)T->field[src].n;
  return rp_alloc(T, (size_t)(n > 0 ? n : 1) * sizeof(MPI_Status));
}

MPI_Status *rp_last_status(rp_thread *T) { return &T->last_status; }

/* ------------------------------------------------------------ payload buffers */

/* A buffer of *cap bytes at *buf holding s: the pointer p with [p + s.lo,
 * p + s.hi) inside it (p itself inside too, for the calls' sake), except
 * for a span that starts RP_FAR_SPAN bytes or more past p: a datatype of
 * absolute addresses (MPI_Get_address displacements, used with
 * MPI_BOTTOM), whose span alone is held, p then pointing before it. */
#define RP_FAR_SPAN ((int64_t)1 << 30)
static inline void *hold(rp_thread *T, void **buf, size_t *cap, rp_span s) {
  if (s.lo > s.hi) s = (rp_span){0, 0};
  int64_t lo = s.lo < 0 || s.lo >= RP_FAR_SPAN ? s.lo : 0, hi = s.hi > 0 ? s.hi : 0;
  size_t need = (size_t)(hi - lo) + 64;
  if (*cap < need || !*buf) {
    size_t ncap = *cap ? *cap : 4096;
    while (ncap < need) ncap *= 2;
    void *nb = calloc(1, ncap);
    if (!nb) rp_die(T, "out of memory (a payload buffer of %zu bytes)", ncap);
    if (*buf) { /* a pending nonblocking call may still use the old one */
      void **nr = realloc(T->retired, (T->nretired + 1) * sizeof *nr);
      if (!nr) rp_die(T, "out of memory");
      T->retired = nr;
      T->retired[T->nretired++] = *buf;
    }
    *buf = nb;
    *cap = ncap;
  }
  return (void *)((uintptr_t)*buf - (uintptr_t)lo); /* lo may be far past p (above) */
}

void *rp_sbuf(rp_thread *T, rp_span s) { return hold(T, &T->sbuf, &T->scap, s); }
void *rp_rbuf(rp_thread *T, rp_span s) { return hold(T, &T->rbuf, &T->rcap, s); }
