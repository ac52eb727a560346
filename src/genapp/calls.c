/* calls.c — which functions a generated program can call, and their code.
 *
 * A function's call is the replay engine's, generated from gen/mpi.table
 * (tfg_call_code, gen/emit_genapp.py). It can be part of a program when
 * the trace records it with the schema's fields and when the program's
 * runtime (app_runtime.c) defines every rp_* helper that code uses: the
 * support follows the runtime, nothing is listed by hand. MPI_Init,
 * MPI_Init_thread and MPI_Finalize the program makes itself (and starts
 * and joins its threads around them); the other functions the replay
 * engine makes itself ({engine}) are refused, naming the function. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "genapp_code.h"
#include "genapp_impl.h"

int tfg_is_named(const tfg_gen *g, uint32_t fn, const char *name) {
  return fn < g->info->nfuncs && g->schema_of[fn] < TF_FN_COUNT && strcmp(tf_schema[g->schema_of[fn]].name, name) == 0;
}

static int made_by_program(const tfg_gen *g, uint32_t fn) {
  return tfg_is_named(g, fn, "MPI_Init") || tfg_is_named(g, fn, "MPI_Init_thread") ||
         tfg_is_named(g, fn, "MPI_Finalize");
}

/* The first rp_* helper code uses that the runtime lacks, into missing; 0 if none. */
static int lacks_helper(const char *code, char *missing, size_t len) {
  for (const char *p = strstr(code, "rp_"); p; p = strstr(p + 1, "rp_")) {
    if (p > code && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
    size_t n = 3;
    while (isalnum((unsigned char)p[n]) || p[n] == '_') n++;
    char name[128];
    if (n + 2 > sizeof name) continue;
    memcpy(name, p, n);
    name[n] = '(';
    name[n + 1] = 0;
    if (strncmp(name, "rp_call_", 8) == 0 || strcmp(name, "rp_thread(") == 0 || strcmp(name, "rp_span(") == 0) continue;
    if (p[n] != '(') continue; /* a type or a variable */
    if (strstr(tfg_runtime_code, name) || strstr(tfg_portable_code, name)) continue;
    name[n] = 0;
    snprintf(missing, len, "%s", name);
    return 1;
  }
  return 0;
}

/* A function the replay engine makes itself that the runtime makes too: it defines rp_call_<name>. */
static int runtime_makes(const char *name) {
  char def[128];
  snprintf(def, sizeof def, "int rp_call_%s(", name + 4);
  return strstr(tfg_runtime_code, def) != NULL;
}

static int check_nodes(tfg_gen *g, tf_mnode *const *x, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (x[i]->is_loop) {
      if (check_nodes(g, x[i]->body, x[i]->nbody)) return -1;
      continue;
    }
    uint32_t fn = x[i]->fn;
    const char *name = fn < g->info->nfuncs ? g->info->funcs[fn].name : "an unnamed function";
    if (fn >= g->info->nfuncs || g->schema_of[fn] >= TF_FN_COUNT)
      return tfg_fail(g, "the trace calls %s, which this tracefold does not know (or with other parameters)", name);
    if (x[i]->thread >= g->nthreads) g->nthreads = x[i]->thread + 1;
    uint32_t k = g->schema_of[fn];
    g->used[k] = 1;
    if (made_by_program(g, fn)) continue;
    if (!tfg_call_code[k] && !runtime_makes(name))
      return tfg_fail(g, "the trace calls %s, which genapp does not support (the replay engine makes it itself; "
                      "doc/GENAPP.md)", name);
    if (!tfg_call_code[k]) continue;
    int since = strncmp(tfg_call_code[k], "#if MPI_VERSION >= ", 19) == 0 ? atoi(tfg_call_code[k] + 19) : 0;
    if (since > g->mpi_version) g->mpi_version = since, g->mpi_version_fn = tf_schema[k].name;
    if (strstr(tfg_call_code[k], "rp_io_name(") || strstr(tfg_call_code[k], "rp_file(")) g->uses_files = 1;
    char missing[128];
    if (lacks_helper(tfg_call_code[k], missing, sizeof missing))
      return tfg_fail(g, "the trace calls %s, which genapp does not support (its call needs %s, which the generated "
                      "program's runtime lacks; doc/GENAPP.md)", name, missing);
  }
  return 0;
}

int tfg_calls_check(tfg_gen *g) {
  const tf_trace_info *in = g->info;
  g->schema_of = malloc((in->nfuncs + 1) * sizeof *g->schema_of);
  g->used = calloc(TF_FN_COUNT, 1);
  if (!g->schema_of || !g->used) return tfg_fail(g, "out of memory");
  for (uint32_t j = 0; j < in->nfuncs; j++) { /* by name, with identical fields (as the replay engine) */
    g->schema_of[j] = TF_FN_COUNT;
    const tf_func_desc *d = &in->funcs[j];
    for (uint32_t k = 0; k < TF_FN_COUNT; k++) {
      const tf_func_desc *s = &tf_schema[k];
      if (strcmp(s->name, d->name) != 0) continue;
      int same = s->nfields == d->nfields;
      for (uint32_t f = 0; same && f < s->nfields; f++)
        same = strcmp(s->fields[f].name, d->fields[f].name) == 0 && s->fields[f].kind == d->fields[f].kind &&
               s->fields[f].is_array == d->fields[f].is_array;
      if (same) g->schema_of[j] = k;
    }
  }
  g->nthreads = 1;
  return check_nodes(g, g->mt->top, g->mt->ntop);
}

void tfg_call_stmt(tfg_gen *g, const tf_mnode *x, const char *values, const char *nvalues, tfg_text *t) {
  uint32_t k = g->schema_of[x->fn];
  const char *name = tf_schema[k].name;
  if (strcmp(name, "MPI_Init") == 0) {
    tfg_put(t, "(void)%s;\nMPI_Init(&tfg_argc, &tfg_argv);\n", values);
  } else if (strcmp(name, "MPI_Init_thread") == 0) { /* fields: required, provided */
    tfg_put(t, "int provided;\nMPI_Init_thread(&tfg_argc, &tfg_argv, rp_mpi_thread(%s[0]), &provided);\n", values);
  } else if (strcmp(name, "MPI_Finalize") == 0) {
    tfg_put(t, "(void)%s;\n%s%sMPI_Finalize();\n", values, g->nthreads > 1 ? "tfg_threads_join();\n" : "",
            g->uses_files ? "tfg_io_end();\n" : "");
    return;
  } else {
    tfg_free_wait_stmt(g, x, t);
    tfg_put(t, "tfg_call(\"%s\", fk_%s, fa_%s, %u, rp_call_%s, %s, %s);\n", name, name, name, tf_schema[k].nfields,
            name + 4, values, nvalues);
    return;
  }
  tfg_put(t, "tfg_started();\n");
}

void tfg_calls_emit(tfg_gen *g, tfg_text *t) {
  for (uint32_t k = 0; k < TF_FN_COUNT; k++) {
    const tf_func_desc *s = &tf_schema[k];
    if (!g->used[k] || (!tfg_call_code[k] && !runtime_makes(s->name))) continue; /* MPI_Init, MPI_Finalize */
    tfg_put(t, "/* %s: its fields' kinds and which are arrays */\nstatic const unsigned char fk_%s[] = {", s->name, s->name);
    for (uint32_t f = 0; f < s->nfields; f++) tfg_put(t, "%s%u", f ? ", " : "", s->fields[f].kind);
    tfg_put(t, "%s}, fa_%s[] = {", s->nfields ? "" : "0", s->name);
    for (uint32_t f = 0; f < s->nfields; f++) tfg_put(t, "%s%u", f ? ", " : "", s->fields[f].is_array);
    tfg_put(t, "%s};\n", s->nfields ? "" : "0");
    if (tfg_call_code[k]) tfg_puts(t, tfg_call_code[k]);
    tfg_puts(t, "\n");
  }
}
