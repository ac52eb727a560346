/* cmd_dump.c — `tracefold dump` and `tracefold unroll`: one line per event,
 * every field.
 *
 *   <rank> <thread> <seq> <function> cs=<signature> [compute=<ns> dur=<ns>] <field>=<value>...
 * Arrays print as [a,b,c], strings (MPI-IO file names) as "text"; "-" is a value that is not significant for this
 * call on this rank; peers and matched sources are offsets from the caller.
 * `dump` reads the flat (reference) files of a trace when there are any,
 * `unroll` the merged (or compressed) trace, so that with
 * TRACEFOLD_MODE=both
 *   diff <(tracefold dump --no-time T) <(tracefold unroll --no-time T)
 * checks that folding and merging lost nothing. (Folded traces keep
 * per-event time statistics, not each delta: unroll prints the mean.)
 */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"

const char tf_help_dump[] =
    "usage: tracefold dump [--rank R] [--no-time] TRACE\n"
    "  every event of every rank (or rank R), one line each:\n"
    "    <rank> <thread> <seq> <function> cs=<signature> [compute=<ns> dur=<ns>] <field>=<value>...\n"
    "  read from the trace directory's flat (reference) files when it has them (TRACEFOLD_MODE=both),\n"
    "  else as unroll\n"
    "  --rank R    only rank R\n"
    "  --no-time   leave the times out\n"
    "example: diff <(tracefold dump --no-time tracefold-app-4p) <(tracefold unroll --no-time tracefold-app-4p)\n";

const char tf_help_unroll[] =
    "usage: tracefold unroll [--rank R] [--no-time] TRACE\n"
    "  every event of every rank (or rank R), one line each, unrolled from the folded trace:\n"
    "    <rank> <thread> <seq> <function> cs=<signature> [compute=<ns> dur=<ns>] <field>=<value>...\n"
    "  (a folded trace keeps time statistics per event: the times are their means)\n"
    "  --rank R    only rank R\n"
    "  --no-time   leave the times out\n"
    "example: tracefold unroll --rank 0 --no-time tracefold-app-4p | head\n";

static int print_events(int argc, char **argv, unsigned flags, const char *verb) {
  long rank;
  int no_time, rc = tf_take_options(&argc, &argv, verb, &rank, &no_time);
  if (rc) return rc;
  tf_input in;
  if ((rc = tf_input_open(argc, argv, flags, verb, &in))) return rc;
  int32_t *ranks;
  int n, bad = 0;
  if ((rc = tf_input_pick(&in, rank, verb, &ranks, &n))) {
    tf_input_close(&in);
    return rc;
  }
  const tf_trace_info *ti = in.info;
  char v[64];
  for (int i = 0; i < n && !bad; i++) {
    tf_rank_cursor *c = tf_input_cursor(&in, ranks[i]);
    if (!c) {
      bad = 1;
      break;
    }
    tf_event ev;
    uint64_t seq = 0;
    while ((rc = tf_input_next(&in, c, &ev)) == 1) {
      const tf_func_desc *fd = &ti->funcs[ev.fn];
      printf("%d %u %" PRIu64 " %s cs=%016" PRIx64, ranks[i], ev.thread, seq++, fd->name, ev.callsite);
      if (!no_time) printf(" compute=%" PRIu64 " dur=%" PRIu64, ev.compute_ns, ev.duration_ns);
      if (tf_event_fields(fd, ev.vals, ev.nvals, in.fields) != TF_OK) { /* the readers let none through */
        printf("\n");
        fprintf(stderr, "tracefold %s: rank %d event %" PRIu64 ": its %u values do not fit %s's %u fields\n", verb,
                ranks[i], seq - 1, ev.nvals, fd->name, fd->nfields);
        bad = 1;
        break;
      }
      for (uint32_t k = 0; k < fd->nfields; k++) {
        const tf_field_value *f = &in.fields[k];
        if (f->desc->is_array && tf_field_is_text(f)) {
          printf(" %s=\"", f->desc->name); /* a string (MPI-IO file name): its characters */
          for (uint32_t j = 0; j < f->n; j++) putchar((int)f->v[j]);
          printf("\"");
        } else if (f->desc->is_array) {
          printf(" %s=[", f->desc->name);
          for (uint32_t j = 0; j < f->n; j++) {
            tf_format_value(f->v[j], v, sizeof v);
            printf("%s%s", j ? "," : "", v);
          }
          printf("]");
        } else {
          tf_format_value(f->v[0], v, sizeof v);
          printf(" %s=%s", f->desc->name, v);
        }
      }
      printf("\n");
    }
    if (rc < 0) bad = 1;
    tf_rank_cursor_close(c);
  }
  tf_input_close(&in);
  return bad || ferror(stdout) ? 1 : 0;
}

int cmd_dump(int argc, char **argv) { return print_events(argc, argv, TF_OPEN_PREFER_FLAT, "dump"); }
int cmd_unroll(int argc, char **argv) { return print_events(argc, argv, 0, "unroll"); }
