/* compute_sim.c — compute time under SimGrid (tracefold-sim; compute.c is
 * the live version). A delay of s seconds measured on the recording host
 * becomes s x R flops (R = --ref-speed, the recording host's speed in the
 * platform's units) executed on the rank's simulated host: the same delay
 * on a host of speed R, half of it on one twice as fast. This is what
 * smpi_execute(s) does with smpi/host-speed = R; smpi_execute_benched(s)
 * would run s x (the simulated host's own speed) flops, a delay no host
 * speed changes. Time-independent traces reach here already divided by
 * their rate (R by default), so instructions become as many flops. The
 * engine's own work is not charged: tracefold simulate runs with
 * smpi/simulate-computation off, so only this file advances a rank's
 * simulated clock between MPI calls. */
#include <simgrid/engine.h>

#include "replay.h"

/* The simulated clock, read directly: MPI_Wtime would also stop and
 * restart SMPI's CPU timers (two system calls) at every event. */
double rp_now(void) { return simgrid_get_clock(); }

/* A local call (no peer, no simulated time) leaves its compute pending:
 * executed with the next call's, one execution instead of several (the
 * same simulated time, less simulation work). */
void rp_compute(rp_thread *T, double seconds, int now) {
  if (seconds > 0) T->pending_flops += seconds * T->E->opt.ref_speed;
  if (!now || T->pending_flops <= 0) return;
  smpi_execute_flops(T->pending_flops);
  T->pending_flops = 0;
}
