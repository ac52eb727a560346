/* fields.c — the replayed event's fields: its parameter vector split into
 * its function's fields (tf_event_fields), what the engine needs to know of
 * each function's fields, and the fields as MPI arguments; see fields.h. */
#include <stdio.h>
#include <string.h>

#include "fields.h"
#include "scratch.h"

rp_fninfo rp_info[TF_FN_COUNT];

void rp_fninfo_init(void) {
  for (uint32_t fn = 0; fn < TF_FN_COUNT; fn++) {
    const tf_func_desc *d = &tf_schema[fn];
    rp_fninfo *x = &rp_info[fn];
    for (uint32_t i = 0; i < d->nfields && i < RP_MAXFIELDS; i++) {
      const tf_field_desc *fd = &d->fields[i];
      x->role[i] = fd->kind == TF_FIELD_BYTES ? RP_ROLE_BYTES : RP_ROLE_NONE;
    }
    x->flag = (int8_t)rp_field_index(fn, "flag");
    x->index = (int8_t)rp_field_index(fn, "index");
    x->indices = (int8_t)rp_field_index(fn, "array_of_indices");
    x->request = (int8_t)rp_field_index(fn, "request");
    x->requests = (int8_t)rp_field_index(fn, "array_of_requests");
    x->status_src = (int8_t)rp_field_index(fn, "status.src");
    x->statuses_src = (int8_t)rp_field_index(fn, "statuses.src");
    x->comm = (int8_t)rp_field_index(fn, "comm");
    x->source = (int8_t)rp_field_index(fn, "source");
    x->tag = (int8_t)rp_field_index(fn, "tag");
    size_t len = strlen(d->name);
    x->persistent = len > 5 && strcmp(d->name + len - 5, "_init") == 0;
    x->frees = len > 5 && strcmp(d->name + len - 5, "_free") == 0;
  }
}

int rp_layout(uint32_t fn, const tf_event *ev, tf_field_value *fields) {
  const tf_func_desc *d = &tf_schema[fn];
  if (d->nfields > RP_MAXFIELDS) return -1;
  return tf_event_fields(d, ev->vals, ev->nvals, fields) == TF_OK ? 0 : -1;
}

int rp_field_index(uint32_t fn, const char *name) {
  const tf_func_desc *d = &tf_schema[fn];
  for (uint32_t i = 0; i < d->nfields; i++)
    if (strcmp(d->fields[i].name, name) == 0) return (int)i;
  return -1;
}

int rp_fields(rp_thread *T) {
  const tf_func_desc *d = &tf_schema[T->fn];
  T->nf = d->nfields;
  if (rp_layout(T->fn, &T->ev, T->field) == 0) return 0;
  snprintf(T->error, sizeof T->error, "%s: its %u values do not fit the function's %u fields", d->name, T->ev.nvals,
           d->nfields);
  return -1;
}

uint64_t rp_event_bytes(const rp_thread *T) {
  uint64_t sum = 0;
  const uint8_t *role = rp_info[T->fn].role;
  for (uint32_t i = 0; i < T->nf; i++)
    if (role[i] == RP_ROLE_BYTES && T->field[i].n && T->field[i].v[0] > 0) sum += (uint64_t)T->field[i].v[0];
  return sum;
}

int rp_event_local(const rp_thread *T) {
  const tf_func_desc *d = &tf_schema[T->fn];
  int comm = 0, peers = 0;
  for (uint32_t i = 0; i < d->nfields; i++) {
    switch (d->fields[i].kind) {
    case TF_FIELD_REQ: /* completes or starts communication */
    case TF_FIELD_MSG:
    case TF_FIELD_ROOT: /* collectives */
    case TF_FIELD_FILE: /* MPI-IO: takes time (simulated from the trace, --io skip) */
    case TF_FIELD_FILE_NEW:
    case TF_FIELD_NAME: /* MPI_File_delete */
      return 0;
    case TF_FIELD_COMM:
    case TF_FIELD_WIN: /* one-sided: peers are ranks of the window */
    case TF_FIELD_WIN_NEW: comm = 1; break;
    case TF_FIELD_PEER:
      for (uint32_t k = 0; k < T->field[i].n; k++)
        if (T->field[i].v[k] != TF_PROC_NULL) return 0;
      peers++;
      break;
    default: break;
    }
  }
  return !comm || peers > 0;
}
