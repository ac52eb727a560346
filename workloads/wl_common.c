/* wl_common.c — argument parsing and per-function call counting for workloads. */
#define _POSIX_C_SOURCE 200809L /* getopt, optarg under -std=c11 */
#include "wl_common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WL_MAX_FUNCS 128

static struct {
  const char *name;
  long count;
} wl_counts[WL_MAX_FUNCS];
static int wl_nfuncs;
static pthread_mutex_t wl_lock = PTHREAD_MUTEX_INITIALIZER;

void wl_parse_args(int argc, char **argv, int default_iters, int default_size, wl_args *out) {
  out->iters = default_iters;
  out->size = default_size;
  out->counts_prefix = NULL;
  out->smpi_subset = 0;
  int opt;
  while ((opt = getopt(argc, argv, "i:s:c:x")) != -1) {
    switch (opt) {
    case 'i': out->iters = atoi(optarg); break;
    case 's': out->size = atoi(optarg); break;
    case 'c': out->counts_prefix = optarg; break;
    case 'x': out->smpi_subset = 1; break;
    default:
      fprintf(stderr, "usage: %s [-i iters] [-s size] [-c counts_prefix] [-x]\n", argv[0]);
      exit(2);
    }
  }
  if (out->iters < 1 || out->size < 1) {
    fprintf(stderr, "%s: -i and -s must be positive\n", argv[0]);
    exit(2);
  }
}

void wl_start(int *argc, char ***argv, int default_iters, int default_size, wl_args *args, int *rank, int *nprocs) {
  WL(MPI_Init, argc, argv);
  WL(MPI_Comm_rank, MPI_COMM_WORLD, rank);
  WL(MPI_Comm_size, MPI_COMM_WORLD, nprocs);
  wl_parse_args(*argc, *argv, default_iters, default_size, args);
}

void wl_start_multiple(const char *name, int *argc, char ***argv, int default_iters, int default_size, wl_args *args,
                       int *rank, int *nprocs) {
  int provided;
  WL(MPI_Init_thread, argc, argv, MPI_THREAD_MULTIPLE, &provided);
  WL(MPI_Comm_rank, MPI_COMM_WORLD, rank);
  WL(MPI_Comm_size, MPI_COMM_WORLD, nprocs);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (*rank == 0) fprintf(stderr, "%s: MPI_THREAD_MULTIPLE not provided (got level %d)\n", name, provided);
    WL(MPI_Abort, MPI_COMM_WORLD, 1);
  }
  wl_parse_args(*argc, *argv, default_iters, default_size, args);
}

void wl_count_inc(const char *name) {
  pthread_mutex_lock(&wl_lock);
  int i;
  for (i = 0; i < wl_nfuncs; i++)
    if (strcmp(wl_counts[i].name, name) == 0) break;
  if (i == wl_nfuncs) {
    if (wl_nfuncs == WL_MAX_FUNCS) {
      fprintf(stderr, "wl_common: too many distinct MPI functions\n");
      abort();
    }
    wl_counts[wl_nfuncs].name = name;
    wl_counts[wl_nfuncs].count = 0;
    wl_nfuncs++;
  }
  wl_counts[i].count++;
  pthread_mutex_unlock(&wl_lock);
}

static int wl_cmp_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int wl_finalize(const wl_args *args, int rank) {
  wl_count_inc("MPI_Finalize");
  if (args->counts_prefix) {
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", args->counts_prefix, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
      perror(path);
      exit(3);
    }
    /* names are the first member: sort the records by name */
    qsort(wl_counts, (size_t)wl_nfuncs, sizeof wl_counts[0], wl_cmp_name);
    for (int i = 0; i < wl_nfuncs; i++) fprintf(f, "%s %ld\n", wl_counts[i].name, wl_counts[i].count);
    fclose(f);
  }
  return MPI_Finalize();
}
