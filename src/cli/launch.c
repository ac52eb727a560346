/* launch.c — what `tracefold replay` and `tracefold simulate` share: the
 * trace checked whole before anything is launched, and the launched job
 * (mpirun, smpirun) run in a process group of its own, so that when it
 * fails, or tracefold is stopped, nothing it started is left behind. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

int tf_launch_limit(const char *verb, const char *s, long long *limit) {
  *limit = TF_RANKS_LIMIT;
  if (!s) return 0;
  return tf_opt_number(verb, "--ranks-limit", s, 1, INT32_MAX, "a rank count", limit);
}

int tf_launch_check(const char *verb, const char *trace, unsigned flags, long long np, long long limit) {
  char err[2048];
  tf_trace *t;
  if (tf_trace_open(trace, flags, &t, err, sizeof err) != TF_OK) {
    fprintf(stderr, "tracefold %s: %s\n", verb, err);
    return -1;
  }
  const tf_trace_info *in = tf_trace_get_info(t);
  int rc = -1;
  if (in->nranks > limit) {
    fprintf(stderr, "tracefold %s: %s: %d ranks, above the limit of %lld launched ranks (--ranks-limit N raises it); "
                    "nothing was launched\n", verb, trace, in->nranks, limit);
  } else if (np > 0 && np != in->nranks) {
    fprintf(stderr, "tracefold %s: %s was recorded with %d ranks; -n %lld cannot replay it (nothing was launched)\n", verb,
            trace, in->nranks, np);
  } else if (in->partial || in->nranks_present != in->nranks) {
    fprintf(stderr, "tracefold %s: %s: a partial trace (the run stopped before MPI_Finalize, or ranks are missing: %d "
                    "of %d present) cannot be replayed; nothing was launched\n", verb, trace, in->nranks_present,
            in->nranks);
  } else if (tf_trace_validate(t, err, sizeof err) != TF_OK) {
    fprintf(stderr, "tracefold %s: %s: %s; nothing was launched\n", verb, trace, err);
  } else {
    rc = in->nranks;
  }
  tf_trace_close(t);
  return rc;
}

/* ------------------------------------------------------------ the job */

static volatile sig_atomic_t stop_sig;
static void on_stop(int sig) { stop_sig = sig; }

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

int tf_launch(const char *verb, char *const *args, int hush, tf_progress *progress) {
  fflush(stdout);
  fflush(stderr);
  struct sigaction sa, old[3];
  static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop; /* no SA_RESTART: waitpid returns at once */
  sigemptyset(&sa.sa_mask);
  stop_sig = 0;
  for (int i = 0; i < 3; i++) sigaction(sigs[i], &sa, &old[i]);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "tracefold %s: cannot start %s: %s\n", verb, args[0], strerror(errno));
    for (int i = 0; i < 3; i++) sigaction(sigs[i], &old[i], NULL);
    return -1;
  }
  if (pid == 0) {
    setpgid(0, 0);
    for (int i = 0; i < 3; i++) sigaction(sigs[i], &old[i], NULL);
    if (hush) {
      int fd = open("/dev/null", O_WRONLY);
      if (fd >= 0) dup2(fd, 1);
    }
    execvp(args[0], args);
    fprintf(stderr, "tracefold %s: cannot run %s: %s\n", verb, args[0], strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid); /* also here: the group exists before either side goes on */
  int status = 0, forwarded = 0;
  long waited_ms = 0;
  int shown = progress && progress->on; /* the elapsed time, while the job runs */
  for (;;) {
    pid_t w = waitpid(pid, &status, forwarded || shown ? WNOHANG : 0);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      status = -1;
      break;
    }
    if (stop_sig && !forwarded) { /* stopped: the job goes too, politely first */
      kill(-pid, stop_sig == SIGHUP ? SIGTERM : stop_sig);
      forwarded = 1;
    }
    if (forwarded) {
      if (waited_ms == 5000) kill(-pid, SIGKILL);
      sleep_ms(50);
      waited_ms += 50;
    } else if (shown && w == 0) {
      tf_progress_elapsed(progress);
      sleep_ms(50);
    }
  }
  if (shown) tf_progress_end(progress);
  kill(-pid, SIGKILL); /* whatever the launcher left in its group */
  for (int i = 0; i < 3; i++) sigaction(sigs[i], &old[i], NULL);
  if (stop_sig) { /* die of the signal, as without us */
    signal(stop_sig, SIG_DFL);
    raise(stop_sig);
  }
  if (status < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
