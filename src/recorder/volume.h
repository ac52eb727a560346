/* volume.h — time-independent compute volumes for the recorder.
 *
 * With TRACEFOLD_VOLUME set, a compute burst (the stretch between two MPI
 * calls of one thread) is measured as a volume instead of wall time:
 * instructions retired by the thread (PAPI preset PAPI_TOT_INS) where
 * hardware counters work, otherwise the thread's CPU time in ns
 * (CLOCK_THREAD_CPUTIME_ID), which, unlike wall time, does not grow while
 * the thread waits for a shared core. A burst is the difference of two
 * tf_volume_now() readings on the same thread.
 *
 * Never fails and never aborts: every problem falls back to CPU time; the
 * caller of tf_volume_start says so (once per job), and a later thread
 * whose counter fails is said at most once per process.
 */
#ifndef TF_VOLUME_H
#define TF_VOLUME_H

#include <stddef.h>
#include <stdint.h>

#include "tracefold.h" /* tf_time_unit */

typedef enum tf_volume_request {
  TF_VOLUME_OFF = 0, /* no counters: tf_volume_now returns CPU ns */
  TF_VOLUME_ON = 1,  /* instructions if possible, else CPU time (warned once) */
  TF_VOLUME_CPU = 2  /* CPU time, no warning */
} tf_volume_request;

/* Process-wide start: once, at MPI_Init, on the thread that initialises MPI.
 * With TF_VOLUME_ON, tries PAPI (library and thread support, PAPI_TOT_INS
 * counted on the calling thread); on any failure it uses CPU time and puts
 * the reason (PAPI's, or "this tracefold was built without PAPI") in why,
 * which is "" otherwise; nothing is printed. Returns the unit
 * tf_volume_now() counts in: TF_UNIT_INSTRUCTIONS or TF_UNIT_CPU_NS. */
tf_time_unit tf_volume_start(tf_volume_request req, char *why, size_t whylen);

/* The calling thread's counter now: instructions it retired so far, or its
 * CPU time in ns. Any thread may call it; its first call sets up its own
 * PAPI event set (under a lock; later calls take no lock). If that setup
 * fails on a later thread, the process warns once and that thread reports
 * CPU ns: its bursts are then in a different unit from the rest (rare: the
 * main thread's counter worked). */
uint64_t tf_volume_now(void);

/* Stops and releases the counters (MPI_Finalize / exit). Safe when never
 * started; afterwards tf_volume_now returns CPU ns. Must not run while other
 * threads are inside tf_volume_now. */
void tf_volume_stop(void);

#endif
