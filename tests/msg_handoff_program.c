/* msg_handoff_program.c — a matched message one thread takes and another
 * receives, for the test genapp.refused.msg_handoff: `tracefold genapp`
 * must refuse its trace, naming the message and both threads (a program
 * of one pthread per recorded thread would have the second thread look up
 * a message its own thread never took; doc/GENAPP.md, "What is refused").
 *
 * Each rank sends itself one int (MPI_Isend); worker 1 takes the message
 * with MPI_Mprobe and ends; worker 2, started after worker 1 is joined,
 * receives it with MPI_Mrecv; the main thread completes the send. Command-
 * line arguments (genapp.sh passes -c FILE) are ignored. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static MPI_Message message;
static int received = -1;

static void *take(void *arg) {
  (void)arg;
  MPI_Status st;
  MPI_Mprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &message, &st);
  return NULL;
}

static void *receive(void *arg) {
  (void)arg;
  MPI_Mrecv(&received, 1, MPI_INT, &message, MPI_STATUS_IGNORE);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "msg_handoff: MPI_THREAD_MULTIPLE is not provided\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int value = 100 + rank;
  MPI_Request req;
  MPI_Isend(&value, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, &req);
  pthread_t t;
  pthread_create(&t, NULL, take, NULL);
  pthread_join(t, NULL);
  pthread_create(&t, NULL, receive, NULL);
  pthread_join(t, NULL);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  int ok = received == value;
  printf("rank %d: %s\n", rank, ok ? "received its own message" : "wrong message");
  MPI_Finalize();
  return ok ? 0 : 1;
}
