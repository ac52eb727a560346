/* functable.c — encode, decode, copy and compare function tables; see functable.h. */
#define _POSIX_C_SOURCE 200809L
#include "format/functable.h"

#include <stdlib.h>
#include <string.h>

void tf_functable_encode(tf_buf *b, const tf_func_desc *funcs, uint32_t n) {
  tf_buf_put_uvar(b, n);
  for (uint32_t i = 0; i < n; i++) {
    const tf_func_desc *fd = &funcs[i];
    tf_buf_put_str(b, fd->name);
    tf_buf_put_uvar(b, fd->nfields);
    for (uint32_t k = 0; k < fd->nfields; k++) {
      tf_buf_put_u8(b, fd->fields[k].kind);
      tf_buf_put_u8(b, fd->fields[k].is_array);
      tf_buf_put_str(b, fd->fields[k].name);
    }
  }
}

static char *keep(tf_functable *ft, const char *s, size_t len) {
  char *c = malloc(len + 1);
  char **ns = c ? realloc(ft->strings, (ft->nstrings + 1) * sizeof *ns) : NULL;
  if (!ns) {
    free(c);
    return NULL;
  }
  ft->strings = ns;
  memcpy(c, s, len);
  c[len] = 0;
  return ft->strings[ft->nstrings++] = c;
}

/* Allocate n functions and nf fields. */
static int alloc_table(tf_functable *ft, uint64_t n, uint64_t nf) {
  ft->funcs = calloc(n ? n : 1, sizeof *ft->funcs);
  ft->fields = calloc(nf ? nf : 1, sizeof *ft->fields);
  return ft->funcs && ft->fields ? 0 : -1;
}

int tf_functable_decode(tf_cursor *c, tf_functable *ft) {
  *ft = (tf_functable){0};
  uint64_t n = tf_cur_uvar(c);
  if (c->bad || n > 65536 || n > (uint64_t)(c->end - c->p)) return -1;
  /* first pass: count the fields */
  tf_cursor scan = *c;
  uint64_t nf = 0;
  for (uint64_t i = 0; i < n && !scan.bad; i++) {
    tf_cur_bytes(&scan, (size_t)tf_cur_uvar(&scan));
    uint64_t k = tf_cur_uvar(&scan);
    if (k > 4096 || k > (uint64_t)(scan.end - scan.p)) return -1;
    nf += k;
    for (uint64_t j = 0; j < k && !scan.bad; j++) {
      tf_cur_u8(&scan);
      tf_cur_u8(&scan);
      tf_cur_bytes(&scan, (size_t)tf_cur_uvar(&scan));
    }
  }
  if (scan.bad) return -1;
  if (alloc_table(ft, n, nf)) return -2;
  ft->n = (uint32_t)n;
  uint64_t f = 0;
  for (uint64_t i = 0; i < n; i++) {
    size_t len = (size_t)tf_cur_uvar(c);
    const char *s = (const char *)tf_cur_bytes(c, len);
    if (!s) len = 0;
    if (!(ft->funcs[i].name = keep(ft, s ? s : "", len))) return -2;
    ft->funcs[i].nfields = (uint32_t)tf_cur_uvar(c);
    ft->funcs[i].fields = ft->fields + f;
    for (uint32_t k = 0; k < ft->funcs[i].nfields; k++, f++) {
      ft->fields[f].kind = tf_cur_u8(c);
      ft->fields[f].is_array = tf_cur_u8(c);
      len = (size_t)tf_cur_uvar(c);
      s = (const char *)tf_cur_bytes(c, len);
      if (!s) len = 0;
      if (!(ft->fields[f].name = keep(ft, s ? s : "", len))) return -2;
      if (ft->fields[f].kind >= TF_FIELD_KIND_COUNT || ft->fields[f].is_array > 1) return -1;
    }
  }
  return c->bad ? -1 : 0;
}

int tf_functable_copy(tf_functable *ft, const tf_func_desc *funcs, uint32_t n) {
  *ft = (tf_functable){0};
  uint64_t nf = 0;
  for (uint32_t i = 0; i < n; i++) nf += funcs[i].nfields;
  if (alloc_table(ft, n, nf)) return -1;
  ft->n = n;
  uint64_t f = 0;
  for (uint32_t i = 0; i < n; i++) {
    ft->funcs[i] = funcs[i];
    ft->funcs[i].fields = ft->fields + f;
    if (!(ft->funcs[i].name = keep(ft, funcs[i].name, strlen(funcs[i].name)))) return -1;
    for (uint32_t k = 0; k < funcs[i].nfields; k++, f++) {
      ft->fields[f] = funcs[i].fields[k];
      if (!(ft->fields[f].name = keep(ft, funcs[i].fields[k].name, strlen(funcs[i].fields[k].name)))) return -1;
    }
  }
  return 0;
}

int tf_functable_same(const tf_func_desc *a, uint32_t na, const tf_func_desc *b, uint32_t nb) {
  if (na != nb) return 0;
  for (uint32_t i = 0; i < na; i++) {
    if (strcmp(a[i].name, b[i].name) || a[i].nfields != b[i].nfields) return 0;
    for (uint32_t k = 0; k < a[i].nfields; k++)
      if (a[i].fields[k].kind != b[i].fields[k].kind || a[i].fields[k].is_array != b[i].fields[k].is_array ||
          strcmp(a[i].fields[k].name, b[i].fields[k].name))
        return 0;
  }
  return 1;
}

void tf_functable_free(tf_functable *ft) {
  for (size_t i = 0; i < ft->nstrings; i++) free(ft->strings[i]);
  free(ft->strings);
  free(ft->funcs);
  free(ft->fields);
  *ft = (tf_functable){0};
}
