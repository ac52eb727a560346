/* walltime.c — libtf_walltime.so, a PMPI shim that intercepts only
 * MPI_Init, MPI_Init_thread and MPI_Finalize, to time an untraced run the
 * way tracefold-replay times a replay: from when the last rank returned from
 * MPI_Init to when the last rank called MPI_Finalize (CLOCK_REALTIME, common
 * to the ranks of one node). Rank 0 prints "walltime: SECONDS" on stderr.
 * bench/replay.sh preloads it into the original run, which it compares
 * replays with: the application as it runs without the recorder.
 * Fortran: MPICH's mpi_f08 routines do not enter the C MPI_ functions, so
 * the shim also defines the Fortran init and finalize symbols (every
 * name mangling the recorder intercepts) and calls the C ones itself.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double t_init;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  t_init = now();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  t_init = now();
  return rc;
}

int MPI_Finalize(void) {
  double t[2] = {t_init, now()}, last[2] = {0, 0};
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Reduce(t, last, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) fprintf(stderr, "walltime: %.9f\n", last[1] - last[0]);
  return PMPI_Finalize();
}

/* Fortran entry points: ierr is optional in mpi_f08 (a null pointer) */
#define WT_FORTRAN_INIT(sym)                                                                 \
  void sym(MPI_Fint *ierr);                                                                 \
  void sym(MPI_Fint *ierr) {                                                                \
    int rc = MPI_Init(NULL, NULL);                                                          \
    if (ierr) *ierr = rc;                                                                   \
  }
#define WT_FORTRAN_INIT_THREAD(sym)                                                          \
  void sym(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);                         \
  void sym(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {                        \
    int p = 0, rc = MPI_Init_thread(NULL, NULL, (int)*required, &p);                        \
    *provided = p;                                                                          \
    if (ierr) *ierr = rc;                                                                   \
  }
#define WT_FORTRAN_FINALIZE(sym)                                                             \
  void sym(MPI_Fint *ierr);                                                                 \
  void sym(MPI_Fint *ierr) {                                                                \
    int rc = MPI_Finalize();                                                                \
    if (ierr) *ierr = rc;                                                                   \
  }
#define WT_FORTRAN_NAMES(macro, lower, upper) \
  macro(lower##_) macro(lower) macro(lower##__) macro(upper) macro(lower##_f08_)
WT_FORTRAN_NAMES(WT_FORTRAN_INIT, mpi_init, MPI_INIT)
WT_FORTRAN_NAMES(WT_FORTRAN_INIT_THREAD, mpi_init_thread, MPI_INIT_THREAD)
WT_FORTRAN_NAMES(WT_FORTRAN_FINALIZE, mpi_finalize, MPI_FINALIZE)
