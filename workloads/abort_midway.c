/* abort_midway — a ring/halo exchange that stops before MPI_Finalize, for
 * the tests of partial traces (tests/partial.sh). Not in the list of
 * workloads that run to completion (TF_WORKLOADS).
 *
 * Communication, each step: one MPI_Sendrecv around the periodic ring
 * (right, from left), then a halo exchange with both neighbours
 * (2 MPI_Irecv, 2 MPI_Isend, one MPI_Waitall), then one MPI_Allreduce of a
 * residual; every 5th step an MPI_Barrier.
 *
 * How the run ends:
 *   -a K  at step K (before its exchange) rank P-1 writes its counts (the
 *         MPI_Abort call included), then calls MPI_Abort(MPI_COMM_WORLD, 3);
 *         the other ranks are blocked in the exchange until the launcher
 *         kills them.
 *   -e K  at step K (before its exchange) every rank writes its counts, then
 *         calls exit(0) without MPI_Finalize.
 *   -s    after the -i steps every rank writes its counts, then sleeps in a
 *         loop, making no MPI call, until it is killed (the test sends it
 *         SIGTERM). The counts file appears whole (written then renamed),
 *         so it doubles as the "inside the sleep loop" marker.
 *   none  after the -i steps: MPI_Reduce, then counts and MPI_Finalize.
 *
 * A launcher kills every other rank (MPICH's hydra with SIGKILL) as soon as
 * one rank ends without MPI_Finalize, which would cut short the other ranks'
 * own last moments (where tracefold writes their partial traces). So with
 * -e and -s, and -c PREFIX, the ranks meet once more on the way out, without
 * MPI: each creates PREFIX.done.<rank> and waits (at most 30 s) until all P
 * exist. With -e this is an atexit handler registered before MPI_Init, so it
 * runs after those the MPI library and tracefold register at MPI_Init; with
 * -s it is a SIGTERM handler installed before MPI_Init, which tracefold's
 * own handler chains to, so PREFIX.done.<rank> also shows that it did. The
 * signal handler then dies of SIGTERM (default action), the exit status the
 * launcher would have seen without it.
 *
 * Counts oracle: each rank writes "<prefix>.<rank>" (-c PREFIX), one
 * "MPI_Name count" line per function sorted by name, as wl_common does —
 * kept here because wl_common writes its counts only at MPI_Finalize.
 * Options: -i I steps (default 20), -n N doubles per message (default 64),
 * -c PREFIX, -a K, -e K, -s.
 */
#define _POSIX_C_SOURCE 200809L /* getopt, nanosleep, sigaction */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define AM_MAX_FUNCS 32

static struct {
  const char *name;
  long count;
} counts[AM_MAX_FUNCS];
static int nfuncs;

static void count_inc(const char *name) {
  int i;
  for (i = 0; i < nfuncs; i++)
    if (strcmp(counts[i].name, name) == 0) break;
  if (i == nfuncs) {
    if (nfuncs == AM_MAX_FUNCS) abort();
    counts[nfuncs].name = name;
    counts[nfuncs].count = 0;
    nfuncs++;
  }
  counts[i].count++;
}

/* Count one call of MPI function `fn`, then make it. */
#define AM(fn, ...) (count_inc(#fn), fn(__VA_ARGS__))

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Write the counts so far to PREFIX.<rank> (via a temporary file and rename:
 * a reader never sees half a file). */
static void write_counts(const char *prefix, int rank) {
  if (!prefix) return;
  char path[4096], tmp[4200];
  snprintf(path, sizeof path, "%s.%d", prefix, rank);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    perror(tmp);
    exit(3);
  }
  qsort(counts, (size_t)nfuncs, sizeof counts[0], cmp_name);
  for (int i = 0; i < nfuncs; i++) fprintf(f, "%s %ld\n", counts[i].name, counts[i].count);
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    perror(path);
    exit(3);
  }
}

static void usage(const char *prog) {
  fprintf(stderr, "usage: %s [-i iters] [-n doubles] [-c counts_prefix] [-a K | -e K | -s]\n", prog);
  exit(2);
}

/* ---- the last meeting (see the top): only async-signal-safe calls */
static const char *g_prefix;
static int g_rank = -1, g_nprocs;

static void done_path(char *buf, size_t len, int rank) {
  /* snprintf is not async-signal-safe: build "<prefix>.done.<rank>" by hand */
  size_t n = 0;
  for (const char *p = g_prefix; *p && n + 24 < len; p++) buf[n++] = *p;
  for (const char *p = ".done."; *p; p++) buf[n++] = *p;
  char digits[16];
  int nd = 0;
  for (unsigned r = (unsigned)rank; nd == 0 || r; r /= 10) digits[nd++] = (char)('0' + r % 10);
  while (nd) buf[n++] = digits[--nd];
  buf[n] = 0;
}

static void meet_all(void) {
  if (!g_prefix || g_rank < 0) return;
  char path[4200];
  done_path(path, sizeof path, g_rank);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) close(fd);
  for (int tries = 0; tries < 3000; tries++) { /* 30 s */
    int all = 1;
    for (int r = 0; r < g_nprocs && all; r++) {
      struct stat sb;
      done_path(path, sizeof path, r);
      all = stat(path, &sb) == 0;
    }
    if (all) return;
    struct timespec t = {0, 10 * 1000 * 1000};
    nanosleep(&t, NULL);
  }
}

static void meet_then_die(int sig) {
  meet_all();
  signal(sig, SIG_DFL);
  raise(sig);
}

int main(int argc, char **argv) {
  /* options first: the exit and signal handlers must be in place before MPI_Init */
  int iters = 20, n = 64, abort_at = -1, exit_at = -1, wait_forever = 0, opt;
  const char *prefix = NULL;
  while ((opt = getopt(argc, argv, "i:n:c:a:e:s")) != -1) {
    switch (opt) {
    case 'i': iters = atoi(optarg); break;
    case 'n': n = atoi(optarg); break;
    case 'c': prefix = optarg; break;
    case 'a': abort_at = atoi(optarg); break;
    case 'e': exit_at = atoi(optarg); break;
    case 's': wait_forever = 1; break;
    default: usage(argv[0]);
    }
  }
  if (iters < 1 || n < 1) usage(argv[0]);
  g_prefix = prefix;
  if (exit_at >= 0) atexit(meet_all);
  if (wait_forever) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = meet_then_die;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
  }

  int rank, nprocs;
  AM(MPI_Init, &argc, &argv);
  AM(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
  AM(MPI_Comm_size, MPI_COMM_WORLD, &nprocs);
  g_nprocs = nprocs;
  g_rank = rank;

  const int right = (rank + 1) % nprocs, left = (rank + nprocs - 1) % nprocs;
  double *buf = malloc(4 * (size_t)n * sizeof *buf);
  if (!buf) {
    fprintf(stderr, "abort_midway: out of memory\n");
    return 1;
  }
  double *ring = buf, *rbuf = buf + n, *halo_l = buf + 2 * n, *halo_r = buf + 3 * n;
  for (int k = 0; k < n; k++) ring[k] = (double)(rank * n + k);

  for (int step = 0; step < iters; step++) {
    if (step == abort_at && rank == nprocs - 1) {
      count_inc("MPI_Abort");
      write_counts(prefix, rank);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (step == exit_at) {
      write_counts(prefix, rank);
      exit(0);
    }
    MPI_Status st;
    AM(MPI_Sendrecv, ring, n, MPI_DOUBLE, right, step, rbuf, n, MPI_DOUBLE, left, step, MPI_COMM_WORLD, &st);
    MPI_Request reqs[4];
    AM(MPI_Irecv, halo_l, n, MPI_DOUBLE, left, 100, MPI_COMM_WORLD, &reqs[0]);
    AM(MPI_Irecv, halo_r, n, MPI_DOUBLE, right, 101, MPI_COMM_WORLD, &reqs[1]);
    AM(MPI_Isend, rbuf, n, MPI_DOUBLE, right, 100, MPI_COMM_WORLD, &reqs[2]);
    AM(MPI_Isend, rbuf, n, MPI_DOUBLE, left, 101, MPI_COMM_WORLD, &reqs[3]);
    AM(MPI_Waitall, 4, reqs, MPI_STATUSES_IGNORE);
    double res = 0.0, gres = 0.0;
    for (int k = 0; k < n; k++) {
      ring[k] = 0.5 * rbuf[k] + 0.25 * (halo_l[k] + halo_r[k]) + (double)step / 64.0;
      res += ring[k] - rbuf[k];
    }
    AM(MPI_Allreduce, &res, &gres, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if ((step + 1) % 5 == 0) AM(MPI_Barrier, MPI_COMM_WORLD);
  }

  if (wait_forever) {
    write_counts(prefix, rank);
    for (;;) {
      struct timespec t = {0, 50 * 1000 * 1000};
      nanosleep(&t, NULL);
    }
  }

  double sum = 0.0, gsum = 0.0;
  for (int k = 0; k < n; k++) sum += ring[k] * (double)(k + 1);
  AM(MPI_Reduce, &sum, &gsum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("abort_midway: %d ranks, %d steps, sum %.12e\n", nprocs, iters, gsum);
  free(buf);
  count_inc("MPI_Finalize");
  write_counts(prefix, rank);
  return MPI_Finalize();
}
