/* functable.c — encode, decode, grow, search and copy function tables; see functable.h. */
#define _POSIX_C_SOURCE 200809L
#include "format/functable.h"

#include <stdlib.h>
#include <string.h>

#define TF_FIELDS_MAX 4096 /* fields of one function (readers' limit) */

void tf_functable_encode_one(tf_buf *b, const tf_func_desc *fd) {
  tf_buf_put_str(b, fd->name);
  tf_buf_put_uvar(b, fd->nfields);
  for (uint32_t k = 0; k < fd->nfields; k++) {
    tf_buf_put_u8(b, fd->fields[k].kind);
    tf_buf_put_u8(b, fd->fields[k].is_array);
    tf_buf_put_str(b, fd->fields[k].name);
  }
}

void tf_functable_encode(tf_buf *b, const tf_func_desc *funcs, uint32_t n) {
  tf_buf_put_uvar(b, n);
  for (uint32_t i = 0; i < n; i++) tf_functable_encode_one(b, &funcs[i]);
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

/* Room for one more function with k fields; the functions' field pointers
 * follow the fields array wherever it moves. 0 or -1 (out of memory). */
static int grow(tf_functable *ft, uint64_t k) {
  tf_func_desc *funcs = realloc(ft->funcs, ((size_t)ft->n + 1) * sizeof *funcs);
  if (!funcs) return -1;
  ft->funcs = funcs;
  tf_field_desc *fields = realloc(ft->fields, (size_t)(ft->nfields + k + 1) * sizeof *fields);
  if (!fields) return -1;
  ft->fields = fields;
  uint64_t f = 0;
  for (uint32_t i = 0; i < ft->n; f += ft->funcs[i].nfields, i++) ft->funcs[i].fields = ft->fields + f;
  return 0;
}

/* A string of the cursor, kept in ft; NULL when truncated or out of memory
 * (*nomem says which). */
static const char *get_str(tf_cursor *c, tf_functable *ft, int *nomem) {
  size_t len = (size_t)tf_cur_uvar(c);
  const char *s = c->bad ? NULL : (const char *)tf_cur_bytes(c, len);
  if (!s) return NULL;
  const char *kept = keep(ft, s, len);
  if (!kept) *nomem = 1;
  return kept;
}

int tf_functable_decode_one(tf_cursor *c, tf_functable *ft) {
  int nomem = 0;
  const char *name = get_str(c, ft, &nomem);
  uint64_t k = tf_cur_uvar(c);
  if (nomem) return -2;
  if (!name || c->bad || ft->n >= TF_FUNCTABLE_MAX || k > TF_FIELDS_MAX || k > (uint64_t)(c->end - c->p)) return -1;
  if (grow(ft, k)) return -2;
  tf_field_desc *fields = ft->fields + ft->nfields;
  for (uint64_t j = 0; j < k; j++) {
    fields[j].kind = tf_cur_u8(c);
    fields[j].is_array = tf_cur_u8(c);
    if (!(fields[j].name = get_str(c, ft, &nomem))) return nomem ? -2 : -1;
    if (fields[j].kind >= TF_FIELD_KIND_COUNT || fields[j].is_array > 1) return -1;
  }
  if (c->bad) return -1;
  ft->funcs[ft->n++] = (tf_func_desc){.name = name, .nfields = (uint32_t)k, .fields = fields};
  ft->nfields += k;
  return 0;
}

int tf_functable_decode(tf_cursor *c, tf_functable *ft) {
  *ft = (tf_functable){0};
  uint64_t n = tf_cur_uvar(c);
  if (c->bad || n > TF_FUNCTABLE_MAX || n > (uint64_t)(c->end - c->p)) return -1;
  for (uint64_t i = 0; i < n; i++) {
    int rc = tf_functable_decode_one(c, ft);
    if (rc) return rc;
  }
  return 0;
}

int tf_functable_add(tf_functable *ft, const tf_func_desc *fd) {
  if (grow(ft, fd->nfields)) return -1;
  tf_field_desc *fields = ft->fields + ft->nfields;
  const char *name = keep(ft, fd->name, strlen(fd->name));
  if (!name) return -1;
  for (uint32_t k = 0; k < fd->nfields; k++) {
    fields[k] = fd->fields[k];
    if (!(fields[k].name = keep(ft, fd->fields[k].name, strlen(fd->fields[k].name)))) return -1;
  }
  ft->funcs[ft->n++] = (tf_func_desc){.name = name, .nfields = fd->nfields, .fields = fields};
  ft->nfields += fd->nfields;
  return 0;
}

int tf_functable_copy(tf_functable *ft, const tf_func_desc *funcs, uint32_t n) {
  *ft = (tf_functable){0};
  for (uint32_t i = 0; i < n; i++)
    if (tf_functable_add(ft, &funcs[i])) return -1;
  return 0;
}

int tf_func_same(const tf_func_desc *a, const tf_func_desc *b) {
  if (strcmp(a->name, b->name) || a->nfields != b->nfields) return 0;
  for (uint32_t k = 0; k < a->nfields; k++)
    if (a->fields[k].kind != b->fields[k].kind || a->fields[k].is_array != b->fields[k].is_array ||
        strcmp(a->fields[k].name, b->fields[k].name))
      return 0;
  return 1;
}

int tf_functable_same(const tf_func_desc *a, uint32_t na, const tf_func_desc *b, uint32_t nb) {
  if (na != nb) return 0;
  for (uint32_t i = 0; i < na; i++)
    if (!tf_func_same(&a[i], &b[i])) return 0;
  return 1;
}

uint32_t tf_functable_find(const tf_functable *ft, const char *name) {
  for (uint32_t i = 0; i < ft->n; i++)
    if (strcmp(ft->funcs[i].name, name) == 0) return i;
  return UINT32_MAX;
}

void tf_functable_free(tf_functable *ft) {
  for (size_t i = 0; i < ft->nstrings; i++) free(ft->strings[i]);
  free(ft->strings);
  free(ft->funcs);
  free(ft->fields);
  *ft = (tf_functable){0};
}
