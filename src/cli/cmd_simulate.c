/* cmd_simulate.c — `tracefold simulate [options] TRACE`: replay a trace in
 * SimGrid's SMPI on a platform of the user's or one it generates, and
 * report the simulated time next to the recorded one. It writes the
 * platform and hostfile (platform.c), runs smpirun on tracefold-sim (the
 * replay engine built with smpicc) and, for --sweep, runs once per value
 * and prints a table from the engine's report files. smpirun is
 * TRACEFOLD_SMPIRUN or the one found at build time; the engine is
 * TRACEFOLD_SIM, else tracefold-sim beside this program, else the build's. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "platform.h"

const char tf_help_simulate[] =
    "usage: tracefold simulate [options] TRACE\n"
    "  replay the trace in SimGrid's SMPI (smpirun tracefold-sim) and print the simulated time next to the\n"
    "  recorded one, with each rank's compute and MPI time\n"
    "platform (one of):\n"
    "  --platform FILE.xml    a SimGrid platform; its hosts, in order, take the ranks\n"
    "  --nodes N              a generated cluster of N nodes (default: one per rank), with\n"
    "  --bandwidth B          link bandwidth (default 10Gbps; also GBps, Mbps, ...)\n"
    "  --latency L            node-to-node latency (default 1us; also ns, ms, s)\n"
    "  --speed S              node speed (default: the recording host's, --ref-speed)\n"
    "  --cores C              cores per node (default 1)\n"
    "  --fold                 allow more ranks than hosts (consecutive ranks share a host)\n"
    "what-if:\n"
    "  --sweep P=V1,V2,...    one simulation per value of P (bandwidth, latency, speed,\n"
    "                         nodes or compute-scale), then a table\n"
    "  --compute-scale X      multiply every compute delay by X (default 1)\n"
    "  --ref-speed S          speed of the host the trace was recorded on (default 1Gf):\n"
    "                         a recorded second of compute is S flops\n"
    "replay (as tracefold replay):\n"
    "  --compute MODE         none | mean | histogram (default)\n"
    "  --rate R               instruction traces: instructions per second (default: --ref-speed)\n"
    "  --seed N               seed of the histogram draws\n"
    "  --quiet                no per-function table\n"
    "SimGrid:\n"
    "  --cfg NAME:VALUE       a SimGrid setting (repeatable), e.g. --cfg=smpi/bw-factor:0:0.9; over 64\n"
    "                         ranks the defaults are smpi/coll-selector:ompi, smpi/allreduce:rdb\n"
    "                         and smpi/send-is-detached-thresh:0\n"
    "  --keep DIR             write the platform, hostfile and report into DIR and keep them\n"
    "  --ranks-limit N        simulate traces of up to N ranks (default 4096)\n"
    "  --progress             the time elapsed (and the sweep's step) on stderr while smpirun runs, even\n"
    "                         when stderr is not a terminal\n"
    "example: tracefold simulate --sweep bandwidth=1Gbps,10Gbps,100Gbps tracefold-app-16p\n";

typedef enum sweep_param { SWEEP_NONE, SWEEP_BANDWIDTH, SWEEP_LATENCY, SWEEP_SPEED, SWEEP_NODES, SWEEP_SCALE } sweep_param;
static const char *const sweep_names[] = {"", "bandwidth", "latency", "speed", "nodes", "compute-scale"};

typedef struct sim_options {
  const char *trace, *platform_file, *keep, *compute, *rate, *seed, *limit;
  tf_platform plat;
  int nodes_given, speed_given, fold, quiet, progress;
  double scale, ref_speed;
  sweep_param sweep;
  char *sweep_values; /* comma-separated, owned */
  const char *cfgs[32];
  int ncfgs;
} sim_options;

static int bad(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "tracefold simulate: ");
  fprintf(stderr, fmt, a, b);
  fprintf(stderr, "\n");
  return 2;
}

static int parse_count(const char *s, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < 1 || v > 1 << 24) return -1;
  *out = (int)v;
  return 0;
}

static int parse_scale(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= 0) || v > 1e12) return -1;
  *out = v;
  return 0;
}

/* One value of a sweep (or option) into the options; 0 or 2 after a message. */
static int set_param(sim_options *o, sweep_param p, const char *v) {
  switch (p) {
  case SWEEP_BANDWIDTH:
    return tf_parse_quantity(TF_Q_BANDWIDTH, v, &o->plat.bandwidth) ? bad("bandwidth %s: expected %s", v, tf_quantity_units(TF_Q_BANDWIDTH)) : 0;
  case SWEEP_LATENCY:
    return tf_parse_quantity(TF_Q_LATENCY, v, &o->plat.latency) ? bad("latency %s: expected %s", v, tf_quantity_units(TF_Q_LATENCY)) : 0;
  case SWEEP_SPEED:
    o->speed_given = 1;
    return tf_parse_quantity(TF_Q_SPEED, v, &o->plat.speed) ? bad("speed %s: expected %s", v, tf_quantity_units(TF_Q_SPEED)) : 0;
  case SWEEP_NODES:
    o->nodes_given = 1;
    return parse_count(v, &o->plat.nodes) ? bad("nodes %s: expected a node count >= 1%s", v, "") : 0;
  case SWEEP_SCALE:
    return parse_scale(v, &o->scale) ? bad("compute-scale %s: expected a factor >= 0%s", v, "") : 0;
  case SWEEP_NONE: break;
  }
  return 0;
}

/* One of the options that take a value (given last, without it). */
static int option_with_value(const char *a) {
  static const char *const names[] = {"--platform", "--nodes", "--bandwidth", "--latency", "--speed",
                                       "--compute-scale", "--cores", "--ref-speed", "--compute", "--rate",
                                       "--seed", "--keep", "--ranks-limit", "--cfg", "--sweep"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(a, names[i]) == 0) return 1;
  return 0;
}

static int parse_options(int argc, char **argv, sim_options *o) {
  *o = (sim_options){.plat = {.cores = 1, .bandwidth = 10e9 / 8, .latency = 1e-6}, .scale = 1, .ref_speed = 1e9};
  for (int i = 0; i < argc; i++) { /* --help or -h first, before any complaint (not as an option's value) */
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return TF_EXIT_HELP;
    if (option_with_value(argv[i])) i++;
  }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = -1; /* -1: not an option with a value */
    if (strcmp(a, "--platform") == 0 && v) o->platform_file = v, rc = 0;
    else if (strcmp(a, "--nodes") == 0 && v) rc = set_param(o, SWEEP_NODES, v);
    else if (strcmp(a, "--bandwidth") == 0 && v) rc = set_param(o, SWEEP_BANDWIDTH, v);
    else if (strcmp(a, "--latency") == 0 && v) rc = set_param(o, SWEEP_LATENCY, v);
    else if (strcmp(a, "--speed") == 0 && v) rc = set_param(o, SWEEP_SPEED, v);
    else if (strcmp(a, "--compute-scale") == 0 && v) rc = set_param(o, SWEEP_SCALE, v);
    else if (strcmp(a, "--cores") == 0 && v) rc = parse_count(v, &o->plat.cores) ? bad("--cores %s: expected a count >= 1%s", v, "") : 0;
    else if (strcmp(a, "--ref-speed") == 0 && v)
      rc = tf_parse_quantity(TF_Q_SPEED, v, &o->ref_speed) ? bad("--ref-speed %s: expected %s", v, tf_quantity_units(TF_Q_SPEED)) : 0;
    else if (strcmp(a, "--compute") == 0 && v) o->compute = v, rc = 0;
    else if (strcmp(a, "--rate") == 0 && v) o->rate = v, rc = 0;
    else if (strcmp(a, "--seed") == 0 && v) o->seed = v, rc = 0;
    else if (strcmp(a, "--keep") == 0 && v) o->keep = v, rc = 0;
    else if (strcmp(a, "--ranks-limit") == 0 && v) o->limit = v, rc = 0;
    else if (strcmp(a, "--cfg") == 0 && v) {
      if (o->ncfgs == 32) return bad("too many --cfg options%s%s", "", "");
      o->cfgs[o->ncfgs++] = v, rc = 0;
    } else if (strcmp(a, "--sweep") == 0 && v) {
      const char *eq = strchr(v, '=');
      for (int p = SWEEP_BANDWIDTH; eq && p <= SWEEP_SCALE; p++)
        if (strlen(sweep_names[p]) == (size_t)(eq - v) && strncmp(v, sweep_names[p], (size_t)(eq - v)) == 0)
          o->sweep = (sweep_param)p;
      if (!o->sweep || !eq[1])
        return bad("--sweep %s: expected bandwidth=, latency=, speed=, nodes= or compute-scale= and values "
                   "(--sweep bandwidth=1Gbps,10Gbps,100Gbps)%s", v, "");
      free(o->sweep_values);
      if (!(o->sweep_values = strdup(eq + 1))) return bad("out of memory%s%s", "", "");
      rc = 0;
    }
    if (rc > 0) return rc;
    if (rc == 0) {
      i++;
      continue;
    }
    if (strcmp(a, "--fold") == 0) o->fold = 1;
    else if (strcmp(a, "--quiet") == 0) o->quiet = 1;
    else if (strcmp(a, "--progress") == 0) o->progress = 1;
    else if (strncmp(a, "--cfg=", 6) == 0 && o->ncfgs < 32) o->cfgs[o->ncfgs++] = a + 6;
    else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) return TF_EXIT_HELP;
    else if (a[0] == '-' && !v && option_with_value(a))
      return fprintf(stderr, "tracefold simulate: %s needs a value (see tracefold simulate --help)\n", a), 2;
    else if (a[0] == '-') return tf_unknown_option("simulate", a);
    else if (o->trace) return bad("one trace at a time (%s and %s)", o->trace, a);
    else o->trace = a;
  }
  if (!o->trace) return fprintf(stderr, "tracefold simulate: no trace given (see tracefold simulate --help)\n"), 2;
  if (o->platform_file && (o->nodes_given || o->speed_given || o->sweep == SWEEP_BANDWIDTH ||
                           o->sweep == SWEEP_LATENCY || o->sweep == SWEEP_SPEED || o->sweep == SWEEP_NODES))
    return bad("--platform %s describes the nodes and links itself: --nodes, --speed and sweeps of the platform "
               "apply to a generated platform only%s", o->platform_file, "");
  return 0;
}

/* ------------------------------------------------------------ the programs */

static const char *program(const char *env, const char *beside, const char *built, char *buf, size_t len) {
  const char *e = getenv(env);
  if (e && *e) return e;
  ssize_t n = readlink("/proc/self/exe", buf, len - 1);
  if (n > 0 && beside) {
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (slash && (size_t)(slash - buf) + strlen(beside) + 2 <= len) {
      strcpy(slash + 1, beside);
      if (access(buf, X_OK) == 0) return buf;
    }
  }
  return built;
}

/* ------------------------------------------------------------ one run */

typedef struct run_result {
  double time_s, recorded_s, max_compute, max_mpi;
  int has_recorded;
} run_result;

static int read_report(const char *path, run_result *r) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  *r = (run_result){.time_s = -1};
  char line[512];
  while (fgets(line, sizeof line, f)) {
    int rank;
    double w, c, m;
    if (sscanf(line, "time_s %lf", &r->time_s) == 1) continue;
    if (sscanf(line, "recorded_s %lf", &r->recorded_s) == 1) r->has_recorded = 1;
    else if (sscanf(line, "rank %d %lf %lf %lf", &rank, &w, &c, &m) == 4) {
      if (c > r->max_compute) r->max_compute = c;
      if (m > r->max_mpi) r->max_mpi = m;
    }
  }
  fclose(f);
  return r->time_s < 0 ? -1 : 0;
}

/* Run smpirun (its own process group, cleaned up: launch.c); its stdout
 * goes to ours, or nowhere when `hush`. Exit status of smpirun, or -1. */
static int run(char **args, int hush, tf_progress *p) { return tf_launch("simulate", args, hush, p); }

/* Above this many ranks, unless a --cfg chooses them, the collectives are
 * Open MPI's (smpi/coll-selector:ompi) with MPI_Allreduce by recursive
 * doubling (smpi/allreduce:rdb): SMPI's default ones are linear (a root
 * waits for P requests with waitany, which scans them: O(P^2) work), and
 * MPICH's and Open MPI's MPI_Allreduce go through SMPI's SMP-aware
 * algorithms, which start with a ring allgather of the hosts
 * (Comm::init_smp: P^2 messages). Sends are never detached
 * (smpi/send-is-detached-thresh:0): SimGrid 3.32 keeps every detached
 * (eager) send in one global list, maestro's activities_, until it
 * completes, and CommImpl::finish removes each with std::list::remove, a
 * scan of the whole list; with O(P) sends in flight that is O(P^2) per
 * step (93 % of a 16,384-rank run). An undetached send is in its own
 * actor's list, a few long. At or below it SMPI's defaults stay, as
 * before (doc/SIMULATE.md, "Thousands of ranks"). */
enum { SIM_SCALE_RANKS = 64 };

/* A --cfg given sets `name` (up to the ':'). */
static int sets(const sim_options *o, const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < o->ncfgs; i++)
    if (strncmp(o->cfgs[i], name, n) == 0 && o->cfgs[i][n] == ':') return 1;
  return 0;
}

static int simulate_once(const sim_options *o, int ranks, const char *dir, const char *smpirun, const char *sim,
                         int hush, tf_progress *p, run_result *res) {
  char platform[PATH_MAX], hostfile[PATH_MAX], report[PATH_MAX], err[1024];
  snprintf(hostfile, sizeof hostfile, "%s/hostfile", dir);
  snprintf(report, sizeof report, "%s/report", dir);
  tf_platform pl = o->plat;
  if (!o->nodes_given) pl.nodes = ranks;
  if (!o->speed_given) pl.speed = o->ref_speed;
  if (o->platform_file) {
    snprintf(platform, sizeof platform, "%s", o->platform_file);
  } else {
    snprintf(platform, sizeof platform, "%s/platform.xml", dir);
    if (tf_platform_write(platform, &pl, err, sizeof err)) return bad("%s%s", err, ""), TF_EXIT_FAILED;
  }
  tf_hosts hosts;
  if (tf_platform_hosts(platform, &hosts, err, sizeof err)) return bad("%s%s", err, ""), TF_EXIT_FAILED;
  int rc = tf_hostfile_write(hostfile, &hosts, ranks, o->fold, err, sizeof err);
  size_t nhosts = hosts.n;
  tf_hosts_free(&hosts);
  if (rc) return bad("%s%s", err, ""), TF_EXIT_FAILED;
  if (!hush) {
    if (o->platform_file)
      printf("tracefold simulate: %d ranks on %s (%zu hosts%s)\n", ranks, platform, nhosts,
             (size_t)ranks > nhosts ? ", folded" : "");
    else
      printf("tracefold simulate: %d ranks on %d node(s) of %g Gflop/s x %d core(s); links %g Gbit/s, %g us node to "
             "node\n",
             ranks, pl.nodes, pl.speed / 1e9, pl.cores, pl.bandwidth * 8 / 1e9, pl.latency * 1e6);
  }
  char np[32], scale[64], ref[64];
  snprintf(np, sizeof np, "%d", ranks);
  snprintf(scale, sizeof scale, "%.17g", o->scale);
  snprintf(ref, sizeof ref, "%.17g", o->ref_speed);
  char cfgbuf[32][300];
  const char *args[128];
  int k = 0;
  args[k++] = smpirun;
  args[k++] = "-np";
  args[k++] = np;
  args[k++] = "-platform";
  args[k++] = platform;
  args[k++] = "-hostfile";
  args[k++] = hostfile;
  args[k++] = "-no-privatize";                         /* the engine keeps no per-rank globals */
  args[k++] = "--cfg=smpi/simulate-computation:no";    /* the engine's own work costs no time */
  args[k++] = "--cfg=smpi/wtime:0";                    /* nor do its clock reads */
  args[k++] = "--cfg=smpi/test:1e-8";                  /* a replayed test or probe is one call, not a */
  args[k++] = "--cfg=smpi/iprobe:1e-8";                /* polling loop (MPI_Probe polls: 10 ns a poll) */
  args[k++] = "--log=root.thres:warning";
  if (!o->platform_file) { /* a generated platform means what it says: no calibration factors */
    args[k++] = "--cfg=smpi/bw-factor:0:1";
    args[k++] = "--cfg=smpi/lat-factor:0:1";
  }
  if (ranks > SIM_SCALE_RANKS && !sets(o, "smpi/coll-selector")) args[k++] = "--cfg=smpi/coll-selector:ompi";
  if (ranks > SIM_SCALE_RANKS && !sets(o, "smpi/coll-selector") && !sets(o, "smpi/allreduce"))
    args[k++] = "--cfg=smpi/allreduce:rdb";
  if (ranks > SIM_SCALE_RANKS && !sets(o, "smpi/send-is-detached-thresh"))
    args[k++] = "--cfg=smpi/send-is-detached-thresh:0";
  for (int i = 0; i < o->ncfgs; i++) {
    snprintf(cfgbuf[i], sizeof cfgbuf[i], "--cfg=%s", o->cfgs[i]);
    args[k++] = cfgbuf[i];
  }
  args[k++] = sim;
  args[k++] = "--report";
  args[k++] = report;
  args[k++] = "--scale";
  args[k++] = scale;
  args[k++] = "--ref-speed";
  args[k++] = ref;
  if (o->compute) args[k++] = "--compute", args[k++] = o->compute;
  if (o->rate) args[k++] = "--rate", args[k++] = o->rate;
  if (o->seed) args[k++] = "--seed", args[k++] = o->seed;
  if (o->quiet || hush) args[k++] = "--quiet";
  args[k++] = o->trace;
  args[k] = NULL;
  remove(report);
  rc = run((char **)args, hush, p);
  if (rc != 0 || read_report(report, res)) {
    fprintf(stderr, "tracefold simulate: the simulation failed (smpirun exit %d)%s%s\n", rc,
            o->platform_file ? "; platform " : "", o->platform_file ? o->platform_file : "");
    return TF_EXIT_FAILED;
  }
  return 0;
}

/* ------------------------------------------------------------ the verb */

static void remove_dir(const char *dir) {
  const char *names[] = {"platform.xml", "hostfile", "report"};
  char path[PATH_MAX];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(path, sizeof path, "%.4000s/%s", dir, names[i]);
    remove(path);
  }
  rmdir(dir);
}

int cmd_simulate(int argc, char **argv) {
  sim_options o;
  int rc = parse_options(argc, argv, &o);
  if (rc) return rc;
  long long limit;
  if ((rc = tf_launch_limit("simulate", o.limit, &limit))) {
    free(o.sweep_values);
    return rc;
  }
  if (o.sweep) { /* every value of the sweep, before anything runs */
    char *copy = strdup(o.sweep_values), *save;
    sim_options t = o;
    for (char *v = copy ? strtok_r(copy, ",", &save) : NULL; v && !rc; v = strtok_r(NULL, ",", &save))
      rc = set_param(&t, o.sweep, v);
    free(copy);
    if (rc) {
      free(o.sweep_values);
      return rc;
    }
  }
  char buf1[PATH_MAX], buf2[PATH_MAX];
  const char *smpirun = program("TRACEFOLD_SMPIRUN", NULL, TF_SMPIRUN_PATH, buf1, sizeof buf1);
  const char *sim = program("TRACEFOLD_SIM", "tracefold-sim", TF_SIM_PATH, buf2, sizeof buf2);
  if (!*smpirun || access(smpirun, X_OK) != 0) {
    fprintf(stderr, "tracefold simulate: SimGrid is not installed (no smpirun%s%s): install Debian's libsimgrid-dev "
                    "(scripts/setup.sh does), then rebuild tracefold\n", *smpirun ? " at " : "", smpirun);
    free(o.sweep_values);
    return TF_EXIT_FAILED;
  }
  if (!*sim || access(sim, X_OK) != 0) {
    fprintf(stderr, "tracefold simulate: tracefold-sim was not built (SimGrid was not found when tracefold was "
                    "configured): install libsimgrid-dev, then configure and build tracefold again\n");
    free(o.sweep_values);
    return TF_EXIT_FAILED;
  }
  int ranks = tf_launch_check("simulate", o.trace, 0, 0, limit);
  if (ranks < 0) {
    free(o.sweep_values);
    return TF_EXIT_FAILED;
  }
  if (o.platform_file && access(o.platform_file, R_OK) != 0) {
    fprintf(stderr, "tracefold simulate: --platform %s: %s\n", o.platform_file, strerror(errno));
    free(o.sweep_values);
    return TF_EXIT_FAILED;
  }

  char dir[PATH_MAX];
  if (o.keep) {
    snprintf(dir, sizeof dir, "%.3800s", o.keep);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "tracefold simulate: --keep %s: %s\n", dir, strerror(errno));
      free(o.sweep_values);
      return TF_EXIT_FAILED;
    }
  } else {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%.3800s/tracefold-simulate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
      fprintf(stderr, "tracefold simulate: cannot make a directory in %s: %s\n", tmp && *tmp ? tmp : "/tmp",
              strerror(errno));
      free(o.sweep_values);
      return TF_EXIT_FAILED;
    }
  }

  run_result res;
  tf_progress p;
  tf_progress_init(&p, "tracefold simulate", o.progress);
  if (!o.sweep) {
    p.note = "smpirun";
    rc = simulate_once(&o, ranks, dir, smpirun, sim, 0, &p, &res);
  } else {
    printf("tracefold simulate: %s on %d ranks, sweeping %s\n", o.trace, ranks, sweep_names[o.sweep]);
    printf("  %-16s %14s %12s %16s %14s\n", sweep_names[o.sweep], "simulated s", "vs recorded", "compute s (max)",
           "MPI s (max)");
    char *save, note[160];
    int nvalues = 1, step = 0;
    for (const char *c = o.sweep_values; *c; c++) nvalues += *c == ',';
    for (char *v = strtok_r(o.sweep_values, ",", &save); v && rc == 0; v = strtok_r(NULL, ",", &save)) {
      if ((rc = set_param(&o, o.sweep, v)) != 0) break;
      snprintf(note, sizeof note, "%s=%.60s (%d of %d)", sweep_names[o.sweep], v, ++step, nvalues);
      p.note = note;
      if ((rc = simulate_once(&o, ranks, dir, smpirun, sim, 1, &p, &res)) != 0) break;
      char vs[32] = "-";
      if (res.has_recorded && res.recorded_s > 0)
        snprintf(vs, sizeof vs, "%+.1f %%", 100 * (res.time_s - res.recorded_s) / res.recorded_s);
      printf("  %-16s %14.6f %12s %16.6f %14.6f\n", v, res.time_s, vs, res.max_compute, res.max_mpi);
      fflush(stdout);
    }
  }
  if (!o.keep) remove_dir(dir);
  free(o.sweep_values);
  return rc;
}
