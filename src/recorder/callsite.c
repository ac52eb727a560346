/* callsite.c — call-site signatures that are equal on every rank.
 *
 * A call site is the return address into the code that called MPI. Under
 * ASLR and PIE the absolute address differs between ranks, so the signature
 * is hash(basename of the module, address - module load base): identical on
 * every rank of one binary. The module path and offset are kept in the
 * trace so the site can be resolved later to function and file:line
 * (addr2line -e MODULE OFFSET-1).
 *
 * Sites are cached per return address, so dladdr runs once per distinct
 * address. When the caller is inside an MPI library, though (a Fortran
 * binding of the library calling the C MPI_ function; the recorder's own
 * Fortran entry points make this rare: functions without one, calls the MPI
 * library makes itself), the return address is the binding's, reached from
 * every place in the program that calls it, so no per-address cache can
 * give the program's site; the stack is walked to the first frame outside
 * libtracefold and the MPI libraries. That walk stops at that frame, and
 * which module each frame address belongs to is cached too, so a call
 * through a binding costs one short unwind (~1-2 us), not a dladdr per frame.
 */
#define _GNU_SOURCE
#include "callsite.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unwind.h>

#include "handle_map.h"
#include "util/callsite_sig.h"

static tf_handle_map by_ra; /* ra -> id = site index, kind = 1 when inside an MPI library */
static tf_site *sites;
static uint32_t nsites, capsites;

/* The program's call sites by return address, direct-mapped in front of
 * by_ra: nearly every call comes from a site seen before, and the slot a
 * multiplicative hash picks answers it without by_ra's probing. A slot
 * holds the complement of the address (0: empty; no return address is all
 * ones) and the site's index. Only sites in the program go in: an address
 * inside an MPI library needs the stack walk every time. Sites are never
 * forgotten before tf_callsites_free, which empties it. */
#define SITE_CACHE_BITS 8
static struct site_slot {
  uintptr_t not_ra;
  uint32_t index;
} site_cache[1u << SITE_CACHE_BITS];

static struct site_slot *site_slot_of(void *ra) {
  return &site_cache[((uint64_t)(uintptr_t)ra * 0x9E3779B97F4A7C15ULL) >> (64 - SITE_CACHE_BITS)];
}

enum { FRAME_PROGRAM = 1, FRAME_SELF, FRAME_MPI }; /* where a frame's address is (frames.kind) */
static tf_handle_map frames;                       /* frame address -> kind */

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

static int in_mpi_library(const char *module) {
  const char *b = base_name(module);
  return strncmp(b, "libmpi", 6) == 0 || strncmp(b, "libpmpi", 7) == 0 || strncmp(b, "libopen-", 8) == 0;
}

/* where addr is: libtracefold, an MPI library, or the program (anything
 * else, and addresses dladdr does not know); cached per address */
static int frame_kind(void *addr) {
  static void *self_base;
  if (!self_base) {
    Dl_info me;
    if (dladdr((void *)&tf_callsite_index, &me)) self_base = me.dli_fbase;
  }
  tf_obj *o = tf_map_find(&frames, (uint64_t)(uintptr_t)addr);
  if (o) return o->kind;
  Dl_info di;
  int kind = FRAME_PROGRAM;
  if (dladdr(addr, &di) && di.dli_fname) {
    if (di.dli_fbase == self_base) kind = FRAME_SELF;
    else if (in_mpi_library(di.dli_fname)) kind = FRAME_MPI;
  }
  o = tf_map_put(&frames, (uint64_t)(uintptr_t)addr);
  if (o) o->kind = (uint8_t)kind;
  return kind;
}

typedef struct walk {
  void *found;
  int frames;
} walk;

static _Unwind_Reason_Code walk_frame(struct _Unwind_Context *ctx, void *arg) {
  walk *w = arg;
  void *ip = (void *)_Unwind_GetIP(ctx);
  if (!ip || ++w->frames > 64) return _URC_END_OF_STACK;
  if (frame_kind(ip) != FRAME_PROGRAM) return _URC_NO_REASON;
  w->found = ip; /* a return address, like backtrace(3)'s */
  return _URC_END_OF_STACK;
}

/* first frame outside libtracefold and the MPI libraries */
static void *outer_caller(void) {
  walk w = {NULL, 0};
  _Unwind_Backtrace(walk_frame, &w);
  return w.found;
}

static int64_t add_site(void *ra) {
  Dl_info di;
  const char *module = "?";
  uintptr_t base = 0;
  if (ra && dladdr(ra, &di) && di.dli_fname) {
    module = di.dli_fname;
    base = (uintptr_t)di.dli_fbase;
  }
  if (nsites == capsites) {
    uint32_t cap = capsites ? 2 * capsites : 64;
    tf_site *s = realloc(sites, cap * sizeof *s);
    if (!s) return -1;
    sites = s;
    capsites = cap;
  }
  tf_site *s = &sites[nsites];
  s->offset = (uint64_t)((uintptr_t)ra - base);
  s->module = strdup(module);
  if (!s->module) return -1;
  s->sig = tf_callsite_sig(module, s->offset);
  return nsites++;
}

/* tf_callsite_index without the cache */
__attribute__((noinline)) static int64_t index_uncached(void *ra, int *is_new) {
  *is_new = 0;
  uint64_t key = (uint64_t)(uintptr_t)ra;
  tf_obj *o = tf_map_find(&by_ra, key);
  if (!o) {
    Dl_info di;
    int via = ra && dladdr(ra, &di) && di.dli_fname && in_mpi_library(di.dli_fname);
    o = tf_map_put(&by_ra, key);
    if (!o) return -1;
    o->kind = (uint8_t)via;
    if (via) {
      o->id = -1;
    } else {
      o->id = add_site(ra);
      if (o->id < 0) return -1;
      *is_new = 1;
    }
  }
  if (o->kind) {
    void *outer = outer_caller();
    if (!outer || outer == ra) return -1;
    return tf_callsite_index(outer, is_new);
  }
  if (o->id >= 0) *site_slot_of(ra) = (struct site_slot){~(uintptr_t)ra, (uint32_t)o->id};
  return o->id;
}

int64_t tf_callsite_index(void *ra, int *is_new) {
  const struct site_slot *e = site_slot_of(ra);
  if (__builtin_expect(e->not_ra != ~(uintptr_t)ra, 0)) return index_uncached(ra, is_new);
  *is_new = 0;
  return e->index;
}

const tf_site *tf_callsite_get(uint32_t index) { return index < nsites ? &sites[index] : NULL; }

void tf_callsites_free(void) {
  for (uint32_t i = 0; i < nsites; i++) free(sites[i].module);
  free(sites);
  sites = NULL;
  nsites = capsites = 0;
  tf_map_free(&by_ra);
  tf_map_free(&frames);
  memset(site_cache, 0, sizeof site_cache);
}
