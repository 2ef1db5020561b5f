/* scenario.c — scenario files (libinih) and --set overrides, through one key table.
 *
 * The table below is the schema: section, key, type, default, documentation. Parsing a file, applying an
 * override and applying a default all go through fl_scenario_assign, so a value means the same wherever it
 * comes from. inih is driven through ini_parse_stream with a reader over the file's text that counts lines:
 * Debian's inih is built without INI_HANDLER_LINENO, and every message must name its line. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "scenario.h"

#include "files.h"
#include "keys.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const fl_events_choices[] = {"none", "all", "phases", NULL};
static const char *const fl_start_choices[] = {"stationary", "fresh", "steady", NULL};
static const char *const fl_mirror_choices[] = {"ring", "pair", NULL};
static const char *const fl_no_spare_choices[] = {"stop", "shrink", NULL};
static const char *const fl_ckpt_store_choices[] = {"file", "hdf5", NULL};
static const char *const fl_cost_choices[] = {"auto", "constant", "platform", NULL};
static const char *const fl_io_flows_choices[] = {"auto", "per-rank", "aggregated", NULL};

#define FL_OFF(field) offsetof(fl_scenario, field)
static const fl_key fl_core_keys[] = {
    {"run", "name", FL_K_STR, FL_OFF(name), FL_K_OPTIONAL, "", NULL,
     "label stored with every result row; default: the file's base name"},
    {"run", "seed", FL_K_SEED, FL_OFF(seed), 0, "1", NULL,
     "master seed; replica r draws from streams derived from (seed, r, stream)"},
    {"run", "replicas", FL_K_COUNT, FL_OFF(replicas), FL_K_POS, "10", NULL, "Monte Carlo repetitions"},
    {"run", "db", FL_K_STR, FL_OFF(db), 0, "results.sqlite", NULL,
     "results database, relative to the working directory"},
    {"run", "events", FL_K_ENUM_INT, FL_OFF(events_all), 0, "all", fl_events_choices,
     "all: log every failure, repair, checkpoint, interruption, restart; phases: those and the job's phases (compute, "
     "checkpoint, restart, downtime, waiting: bsp and gridworld), for timelines; none: one row per replica only"},
    {"run", "sweep", FL_K_STR, FL_OFF(sweep), FL_K_OPTIONAL, "", NULL,
     "run the scenario once per combination: blank-separated section.key=v1,v2,... terms (a+b=1/2,3/4 sets keys "
     "together)"},
    {"run", "max_time", FL_K_DURATION, FL_OFF(max_time_s), FL_K_POS, "100y", NULL,
     "simulated-time guard: a replica still running then ends with status 'timeout'"},
    {"run", "max_events", FL_K_COUNT, FL_OFF(max_events), FL_K_POS, "1000000", NULL,
     "event budget: a replica that draws this many failures and repairs ends with status 'timeout' (bounds time and "
     "memory when failures outpace progress)"},
    {"platform", "file", FL_K_STR, FL_OFF(platform_file), FL_K_OPTIONAL, "", NULL,
     "SimGrid platform XML, relative to the scenario file; exclusive with nodes"},
    {"platform", "nodes", FL_K_COUNT, FL_OFF(platform_nodes), 0, "0", NULL,
     "generate this many identical hosts in memory; 0 = as many as app.nodes"},
    {"platform", "node_speed", FL_K_SPEED, FL_OFF(node_speed), FL_K_POS, "1Gf", NULL, "speed of generated hosts"},
    {"platform", "cabinet", FL_K_COUNT, FL_OFF(cabinet), FL_K_POS, "128", NULL,
     "generated platforms: nodes per cabinet (switch group); a cabinet's nodes share its uplink, and a rank's partner "
     "is the same rank of the next cabinet"},
    {"platform", "link_bandwidth", FL_K_BANDWIDTH, FL_OFF(link_bw), FL_K_POS, "25GBps", NULL,
     "generated platforms: each node's network injection bandwidth (full duplex)"},
    {"platform", "link_latency", FL_K_DURATION, FL_OFF(link_lat_s), FL_K_NONNEG, "1us", NULL,
     "generated platforms: latency of a node's link and of a cabinet's uplink"},
    {"platform", "cabinet_bandwidth", FL_K_BANDWIDTH, FL_OFF(cabinet_bw), FL_K_POS, "400GBps", NULL,
     "generated platforms: bandwidth of a cabinet's uplink to the rest of the machine (each way)"},
    {"platform", "disk_bandwidth", FL_K_BANDWIDTH, FL_OFF(disk_bw), FL_K_NONNEG, "0", NULL,
     "generated platforms: each node's local disk (read and write); 0 = no local disk"},
    {"platform", "pfs_servers", FL_K_COUNT, FL_OFF(pfs_servers), 0, "0", NULL,
     "generated platforms: storage hosts of the parallel file system (they run no ranks and are no spares)"},
    {"platform", "pfs_bandwidth", FL_K_BANDWIDTH, FL_OFF(pfs_bw), FL_K_POS, "10GBps", NULL,
     "generated platforms: disk bandwidth of one PFS server (read and write); the PFS's aggregate is servers x this"},
    {"platform", "pfs_link_bandwidth", FL_K_BANDWIDTH, FL_OFF(pfs_link_bw), FL_K_POS, "50GBps", NULL,
     "generated platforms: network bandwidth of one PFS server"},
    {"platform", "io_flows", FL_K_ENUM_INT, FL_OFF(io_flows), 0, "auto", fl_io_flows_choices,
     "how checkpoint I/O is simulated: per-rank (one flow and one disk access per rank), aggregated (generated "
     "platforms: one flow per cabinet carrying its ranks' bytes over the cabinet's links; workloads: each job's "
     "file-level I/O per cabinet and server), auto (per-rank up to 4096 ranks; workloads: aggregated above 4096 "
     "nodes when the strategy writes files only)"},
    {"platform", "node_power", FL_K_WATTAGE, FL_OFF(node_power), 0, "100:200", NULL,
     "a node's power as SimGrid's energy plugin reads a host's `wattage_per_state`: Idle:AllCores (or "
     "Idle:Epsilon:AllCores) watts; computing nodes draw AllCores, idle ones (checkpointing, waiting, spares) Idle. "
     "For generated platforms, and hosts of a file that declare none. The default is SimGrid's example host, not a "
     "measured machine: set your nodes' figures (docs/energy.md)"},
    {"platform", "node_memory", FL_K_BYTES, FL_OFF(node_memory), FL_K_NONNEG, "0", NULL,
     "workflow: bytes of memory of each node (0: no limit); a task goes only where its memory (WfCommons "
     "memoryInBytes) fits; a platform file's host may say its own with <prop id=\"memory\" value=\"64GiB\"/>"},
    {"platform", "node_power_off", FL_K_POWER, FL_OFF(node_power_off), FL_K_NONNEG, "10", NULL,
     "watts a node draws while it is off (failed, in repair), as SimGrid's `wattage_off`; for generated platforms "
     "and hosts of a file that declare none"},
    {"platform", "controller", FL_K_STR, FL_OFF(controller), 0, "controller", NULL,
     "host that runs the simulator's own actors and never fails; generated platforms add it, file platforms "
     "use the host of that name or else their first host by name (said on stderr, recorded in the row)"},
    {"failures", "model", FL_K_STR, FL_OFF(model), 0, "exponential", NULL,
     "the failure law: one of the failure-model registry's (sim/failure_models/), listed by faultline keys"},
    {"failures", "node_mtbf", FL_K_DURATION, FL_OFF(node_mtbf_s), FL_K_POS, "5y", NULL,
     "mean time between failures of ONE node; the job's MTBF is node_mtbf / app.nodes"},
    {"failures", "process_mtbf", FL_K_DURATION_NEVER, FL_OFF(process_mtbf_s), FL_K_POS, "never", NULL,
     "bsp: mean time between crashes of ONE process (its node lives: local checkpoints survive; exponential, "
     "besides the node failures); never = none"},
    {"failures", "group_mtbf", FL_K_DURATION_NEVER, FL_OFF(group_mtbf_s), FL_K_POS, "never", NULL,
     "mean time between failures of ONE group of platform.cabinet consecutive nodes (a cabinet, a switch, a power "
     "domain) that fail together, exponential, besides each node's own failures; never = none"},
    {"failures", "burst_ratio", FL_K_REAL, FL_OFF(burst_ratio), FL_K_NONNEG, "0", NULL,
     "bursts: offspring failures each failure causes on random nodes soon after (a Hawkes branching ratio, below "
     "1; the failure rate becomes the model's / (1 - burst_ratio)); 0 = none"},
    {"failures", "burst_time", FL_K_DURATION, FL_OFF(burst_time_s), FL_K_POS, "1h", NULL,
     "bursts: mean delay of an offspring failure after its parent (exponential)"},
    {"failures", "sdc_mtbf", FL_K_DURATION_NEVER, FL_OFF(sdc_mtbf_s), FL_K_POS, "never", NULL,
     "bsp: mean time between silent data corruptions of ONE node (exponential, its own random stream; the job "
     "goes on with a wrong state until a verification catches it); never = none"},
    {"failures", "repair", FL_K_DURATION_NEVER, FL_OFF(repair_s), FL_K_NONNEG, "0s", NULL,
     "time a failed node stays down before it can serve again (as a spare); never = it stays down"},
    {"failures", "start", FL_K_ENUM_INT, FL_OFF(start), 0, "stationary", fl_start_choices,
     "stationary: all up at t=0, each after a stationary residual life; fresh: all new at t=0; steady: "
     "up/down in equilibrium, a node down at t=0 with probability repair/(node_mtbf+repair)"},
    {"app", "kind", FL_K_STR, FL_OFF(app), 0, "bsp", NULL,
     "the application: a kind of the app registry (apps/), listed with the engines that run it by faultline keys"},
    {"app", "nodes", FL_K_COUNT, FL_OFF(app_nodes), 0, "0", NULL,
     "bsp: ranks of the job, one per node; 0 = every host; hosts beyond are spares (gridworld: 0 or rows x cols)"},
    {"app", "spares", FL_K_STR, FL_OFF(app_spares), 0, "rest", NULL,
     "bsp: spare nodes the job holds (a count), which replace its failed nodes and which its node_hours and "
     "energy_j are charged for, besides its ranks x copies; rest = every other node of the platform (the platform "
     "is the job's allocation); nodes beyond what the job holds are not the job's: they neither fail into it nor "
     "count"},
    {"app", "work", FL_K_DURATION, FL_OFF(work_s), FL_K_POS, "24h", NULL,
     "bsp: failure-free compute time of the job (with app.flops unset)"},
    {"app", "flops", FL_K_FLOPS, FL_OFF(flops), FL_K_NONNEG, "0", NULL,
     "bsp: computation of each rank, flop (e.g. 8.64Pf); the job computes at its slowest host's speed, so the "
     "failure-free time follows the platform; 0 = use app.work"},
    {"app", "comm_fraction", FL_K_REAL, FL_OFF(comm_fraction), FL_K_NONNEG, "0", NULL,
     "bsp with platform costs: the share of its time the job spends exchanging with its neighbours (below 1); an "
     "async flush shares their links, and the slowdown that follows is simulated"},
    {"app", "checkpoint_size", FL_K_BYTES, FL_OFF(checkpoint_size), FL_K_NONNEG, "0", NULL,
     "bsp: bytes of state per rank (workload: per node of a job) a checkpoint writes and a restart reads back; with "
     "storage on the platform, "
     "checkpoint and restart costs come from simulated I/O (strategy.cost)"},
    {"strategy", "kind", FL_K_STR, FL_OFF(strategy), 0, "checkpoint", NULL,
     "the resilience strategy: one of the strategy registry's (policy/strategies/), listed with the keys each reads "
     "by faultline keys"},
    {"strategy", "interval", FL_K_INTERVAL, FL_OFF(interval_s), FL_K_POS, "daly", NULL,
     "an interval rule (faultline keys lists them: daly, young, hazard, multilevel, never) or a duration: compute "
     "time between checkpoints"},
    {"strategy", "checkpoint_cost", FL_K_DURATION, FL_OFF(checkpoint_cost_s), FL_K_NONNEG, "5min", NULL,
     "time to write one coordinated checkpoint (delta)"},
    {"strategy", "cost", FL_K_ENUM_INT, FL_OFF(cost), 0, "auto", fl_cost_choices,
     "where checkpoint and restart costs come from: constant (strategy.checkpoint_cost, restart_cost, file_cost), "
     "platform (app.checkpoint_size moved through the platform's disks and links, simulated before the run), auto "
     "(platform when app.checkpoint_size is set, else constant)"},
    {"strategy", "restart_cost", FL_K_DURATION, FL_OFF(restart_cost_s), FL_K_NONNEG, "5min", NULL,
     "time to read the last checkpoint back (R); failures during it restart it"},
    {"strategy", "downtime", FL_K_DURATION, FL_OFF(downtime_s), FL_K_NONNEG, "0s", NULL,
     "time between an interruption and the restart (D); failures during it do not interrupt"},
    {"storage", "pfs", FL_K_STR, FL_OFF(storage_pfs), FL_K_OPTIONAL, "", NULL,
     "platform files: the parallel file system's storage hosts, blank-separated host names or zone:ID (every host "
     "of that zone); each must have a disk; they run no ranks and are no spares (generated platforms: "
     "platform.pfs_servers)"},
    {"storage", "disk", FL_K_STR, FL_OFF(storage_disk), FL_K_OPTIONAL, "", NULL,
     "platform files: the id of the node-local disk checkpoints go to (default: each host's first disk)"},
    {"mpi", "spares", FL_K_COUNT, FL_OFF(spares), 0, "1", NULL,
     "real mode: spare ranks that take a failed rank's role"},
    {"mpi", "checkpoint_every", FL_K_COUNT, FL_OFF(checkpoint_every), 0, "10", NULL,
     "real mode: checkpoint every this many iterations; 0: at the interval strategy.interval gives, in simulated "
     "seconds through mpi.time_scale, with the checkpoint cost measured in the run"},
    {"mpi", "checkpoint_dir", FL_K_STR, FL_OFF(checkpoint_dir), FL_K_OPTIONAL, "", NULL,
     "real mode: where file-level checkpoints go (a directory per role, created); unset: inside the run's --out "
     "directory, removed with it"},
    {"mpi", "checkpoint_store", FL_K_ENUM_INT, FL_OFF(checkpoint_hdf5), 0, "file", fl_ckpt_store_choices,
     "real mode: the file level's format through the checkpoint library: file (a file per array) or hdf5 (one HDF5 "
     "file per version, readable by h5dump)"},
    {"mpi", "on_no_spare", FL_K_ENUM_INT, FL_OFF(shrink), 0, "stop", fl_no_spare_choices,
     "real mode: a rank dies and no spare is left: stop (status data_lost, exit 3), or shrink (go on with fewer ranks, "
     "the dead rank's rows re-cut over the others from the file level; needs strategy checkpoint, two-level or none)"},
    {"mpi", "mirror", FL_K_ENUM_INT, FL_OFF(mirror_pair), 0, "ring", fl_mirror_choices,
     "real mode: where a rank's checkpoint is mirrored: ring (the next role) or pair (0-1, 2-3, ...)"},
    {"mpi", "watchdog", FL_K_DURATION_NEVER, FL_OFF(watchdog_s), FL_K_POS, "10min", NULL,
     "real mode: a job whose ranks make no progress (no iteration anywhere) for this long is stopped, its processes "
     "killed, and a row with status no_progress written; never = no watchdog"},
    {"mpi", "timeout", FL_K_DURATION, FL_OFF(mpi_timeout_s), FL_K_POS, "1s", NULL,
     "real mode: a peer silent this long is suspected dead (detection time)"},
    {"mpi", "time_scale", FL_K_REAL, FL_OFF(time_scale), FL_K_NONNEG, "0", NULL,
     "real mode: simulated seconds per real second for failures drawn from [failures] (0: none drawn)"},
    {"mpi", "kill", FL_K_STR, FL_OFF(kill), FL_K_OPTIONAL, "", NULL,
     "real mode: explicit failures, blank-separated RANK@ITER or RANK@TIME (2.5s): that process kills itself (SIGKILL) "
     "at that iteration, or once that much time has passed since the run began"},
    {"mpi", "kill_node", FL_K_STR, FL_OFF(kill_node), FL_K_OPTIONAL, "", NULL,
     "real mode: node failures, blank-separated NODE@ITER or NODE@TIME (NODE: the node's index in the run's placement "
     "or its host name): every process of that node dies at once (and the node itself, where FAULTLINE_NODE_KILL "
     "names a command that takes a node down: docs/cluster.md)"},
    {"mpi", "ranks_per_node", FL_K_COUNT, FL_OFF(ranks_per_node), FL_K_POS, "1", NULL,
     "real mode: processes per node; ranks are placed by node (world ranks kR .. kR+R-1 on node k, spares last, as "
     "whole nodes), and a rank's buddy copy always goes to another node (the mirror's stride is R)"},
};
#undef FL_OFF

/* ---- the table: core's keys and the registered sets' (keys.h) ----
 * Built once, on first use, and frozen: each section's core keys, then the sets' keys of that section in
 * registration order, then sections only sets declare. fl_tab[k].set is -1 for a core key (its value in struct
 * fl_scenario) or the index of its set (its value in sc->options[set]). */
enum { FL_MAX_SETS = 64, FL_MAX_KEYS = 512 };
typedef struct fl_tab_key {
  const fl_key *key;
  int set;
} fl_tab_key;
static const fl_keyset *fl_sets[FL_MAX_SETS];
static int fl_nsets, fl_nsetkeys, fl_frozen, fl_ntab;
static fl_tab_key fl_tab[FL_MAX_KEYS];
static pthread_once_t fl_tab_once = PTHREAD_ONCE_INIT;

static void fl_tab_add_section(const char *section)
{
  for (int i = 0; i < FL_KEYS_N(fl_core_keys); i++)
    if (strcmp(fl_core_keys[i].section, section) == 0)
      fl_tab[fl_ntab++] = (fl_tab_key){&fl_core_keys[i], -1};
  for (int s = 0; s < fl_nsets; s++)
    for (int i = 0; i < fl_sets[s]->nkeys; i++)
      if (strcmp(fl_sets[s]->keys[i].section, section) == 0)
        fl_tab[fl_ntab++] = (fl_tab_key){&fl_sets[s]->keys[i], s};
}

static int fl_tab_has_section(const char *section)
{
  for (int k = 0; k < fl_ntab; k++)
    if (strcmp(fl_tab[k].key->section, section) == 0)
      return 1;
  return 0;
}

static void fl_tab_build(void)
{
  fl_frozen = 1;
  for (int i = 0; i < FL_KEYS_N(fl_core_keys); i++)
    if (!fl_tab_has_section(fl_core_keys[i].section))
      fl_tab_add_section(fl_core_keys[i].section);
  for (int s = 0; s < fl_nsets; s++)
    for (int i = 0; i < fl_sets[s]->nkeys; i++)
      if (!fl_tab_has_section(fl_sets[s]->keys[i].section))
        fl_tab_add_section(fl_sets[s]->keys[i].section);
}

static int fl_nkeys(void)
{
  pthread_once(&fl_tab_once, fl_tab_build);
  return fl_ntab;
}
#define FL_NKEYS fl_nkeys()
#define fl_keys(k) (*fl_tab[k].key)

static int fl_declared(const char *section, const char *key, const fl_keyset *skip)
{
  for (int i = 0; i < FL_KEYS_N(fl_core_keys); i++)
    if (strcmp(fl_core_keys[i].section, section) == 0 && strcmp(fl_core_keys[i].key, key) == 0)
      return 1;
  for (int s = 0; s < fl_nsets; s++)
    for (int i = 0; fl_sets[s] != skip && i < fl_sets[s]->nkeys; i++)
      if (strcmp(fl_sets[s]->keys[i].section, section) == 0 && strcmp(fl_sets[s]->keys[i].key, key) == 0)
        return 1;
  return 0;
}

static fl_interval_known_fn fl_interval_known;

void fl_scenario_interval_rules(fl_interval_known_fn known)
{
  fl_interval_known = known;
}

fl_err fl_scenario_register(const fl_keyset *set)
{
  for (int s = 0; s < fl_nsets; s++)
    if (fl_sets[s] == set)
      return FL_OK;
  if (fl_frozen)
    return fl_err_set(FL_ERR_INTERNAL, "keys of %s registered after the first scenario (call fl_registries_init first)",
                      set->owner);
  if (fl_nsets == FL_MAX_SETS || fl_nsetkeys + set->nkeys > FL_MAX_KEYS - FL_KEYS_N(fl_core_keys))
    return fl_err_set(FL_ERR_INTERNAL, "keys of %s: too many key sets (at most %d sets, %d keys)", set->owner,
                      (int)FL_MAX_SETS, (int)FL_MAX_KEYS);
  for (int i = 0; i < set->nkeys; i++) {
    const fl_key *k = &set->keys[i];
    if (k->type == FL_K_INTERVAL)
      return fl_err_set(FL_ERR_INTERNAL, "%s: [%s] %s: interval keys are core's only", set->owner, k->section, k->key);
    if (fl_declared(k->section, k->key, set))
      return fl_err_set(FL_ERR_INTERNAL, "%s declares [%s] %s, which another set or core declares", set->owner,
                        k->section, k->key);
    for (int j = 0; j < i; j++)
      if (strcmp(set->keys[j].section, k->section) == 0 && strcmp(set->keys[j].key, k->key) == 0)
        return fl_err_set(FL_ERR_INTERNAL, "%s declares [%s] %s twice", set->owner, k->section, k->key);
  }
  fl_sets[fl_nsets++] = set;
  fl_nsetkeys += set->nkeys;
  return FL_OK;
}

const void *fl_scenario_options(const fl_scenario *sc, const fl_keyset *set)
{
  for (int s = 0; s < fl_nsets; s++)
    if (fl_sets[s] == set)
      return sc->options[s];
  fprintf(stderr, "faultline: bug: the keys of %s were never registered (fl_registries_init not called)\n", set->owner);
  abort();
}

/* Where key k's value lives in sc. */
static char *fl_key_field(const fl_scenario *sc, int k)
{
  char *base = fl_tab[k].set < 0 ? (char *)(uintptr_t)sc : sc->options[fl_tab[k].set];
  return base + fl_tab[k].key->offset;
}

typedef struct fl_scenario_origin {
  int line;  /* > 0: line in the file; 0: default; -1: --set */
  char *raw; /* the text the value was parsed from */
} fl_scenario_origin;

static const char *fl_scenario_label(const fl_scenario *sc)
{
  return sc->path ? sc->path : "<scenario>";
}

static int fl_key_find(const char *section, const char *key)
{
  for (int i = 0; i < FL_NKEYS; i++)
    if (strcmp(fl_keys(i).section, section) == 0 && strcmp(fl_keys(i).key, key) == 0)
      return i;
  return -1;
}

static int fl_section_known(const char *section)
{
  for (int i = 0; i < FL_NKEYS; i++)
    if (strcmp(fl_keys(i).section, section) == 0)
      return 1;
  return 0;
}

static char *fl_strdup(const char *s)
{
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

/* Message prefix naming where a value came from. */
static void fl_origin_prefix(const fl_scenario *sc, int k, char *buf, size_t size)
{
  const fl_scenario_origin *o = &sc->origin[k];
  const fl_key *key = &fl_keys(k);
  if (o->line > 0)
    snprintf(buf, size, "%s:%d: [%s] %s = '%s'", fl_scenario_label(sc), o->line, key->section, key->key, o->raw);
  else if (o->line < 0)
    snprintf(buf, size, "%s %s.%s=%s", o->line == -2 ? "--sweep" : "--set", key->section, key->key, o->raw);
  else
    snprintf(buf, size, "%s: [%s] %s = '%s' (default)", fl_scenario_label(sc), key->section, key->key, o->raw);
}

fl_err fl_scenario_fail(const fl_scenario *sc, const char *section, const char *key, const char *fmt, ...)
{
  char prefix[640], reason[512];
  va_list ap;
  int k = fl_key_find(section, key);

  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  if (k < 0)
    return fl_err_set(FL_ERR_INPUT, "%s: [%s] %s: %s", fl_scenario_label(sc), section, key, reason);
  fl_origin_prefix(sc, k, prefix, sizeof prefix);
  return fl_err_set(FL_ERR_INPUT, "%s: %s", prefix, reason);
}

/* Parse `raw` for key k into sc; `line` is recorded as its origin. Reports with the origin prefix. */
static fl_err fl_scenario_assign(fl_scenario *sc, int k, const char *raw, int line)
{
  fl_err rc = FL_OK;
  const fl_key *key = &fl_keys(k);
  char *field = fl_key_field(sc, k);
  char *copy = fl_strdup(raw);
  double v = 0.0;

  FL_CHECK(copy != NULL, FL_ERR_NOMEM, "out of memory");
  free(sc->origin[k].raw);
  sc->origin[k].raw = copy;
  sc->origin[k].line = line;

  switch (key->type) {
  case FL_K_STR: {
    char **dst = (char **)(void *)field;
    const char *p = raw;
    while (isspace((unsigned char)*p))
      p++;
    if (*p == '\0' && !(key->flags & FL_K_OPTIONAL))
      return fl_scenario_fail(sc, key->section, key->key, "must not be empty");
    free(*dst);
    *dst = (*p == '\0') ? NULL : fl_strdup(p);
    FL_CHECK(*p == '\0' || *dst != NULL, FL_ERR_NOMEM, "out of memory");
    break;
  }
  case FL_K_ENUM_INT: {
    int found = -1;
    char known[256] = "";
    for (int i = 0; key->choices[i]; i++) {
      if (strcmp(key->choices[i], raw) == 0)
        found = i;
      strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
      strncat(known, key->choices[i], sizeof known - strlen(known) - 1);
    }
    if (found < 0)
      return fl_scenario_fail(sc, key->section, key->key, "unknown value (known: %s)", known);
    *(int *)(void *)field = found;
    break;
  }
  case FL_K_SEED: {
    uint64_t seed;
    if (fl_units_u64(raw, &seed) != FL_OK)
      return fl_scenario_fail(sc, key->section, key->key, "expected a whole number from 0 to 2^64 - 1");
    *(uint64_t *)(void *)field = seed;
    break;
  }
  case FL_K_COUNT: {
    if (fl_units_number(raw, 1, &v) != FL_OK)
      return fl_scenario_fail(sc, key->section, key->key, "not a whole number");
    if (v < 0)
      return fl_scenario_fail(sc, key->section, key->key, "must not be negative");
    if (v > (double)LONG_MAX)
      return fl_scenario_fail(sc, key->section, key->key, "too large");
    if ((key->flags & FL_K_POS) && v <= 0)
      return fl_scenario_fail(sc, key->section, key->key, "must be at least 1");
    *(long *)(void *)field = (long)v;
    break;
  }
  case FL_K_DURATION:
  case FL_K_DURATION_NEVER:
  case FL_K_SPEED:
  case FL_K_FLOPS:
  case FL_K_BYTES:
  case FL_K_BANDWIDTH:
  case FL_K_POWER:
  case FL_K_REAL: {
    fl_err prc = key->type == FL_K_SPEED || key->type == FL_K_FLOPS ? fl_units_speed(raw, &v)
                 : key->type == FL_K_POWER                          ? fl_units_power(raw, &v)
                 : key->type == FL_K_BYTES                          ? fl_units_bytes(raw, &v)
                 : key->type == FL_K_BANDWIDTH                      ? fl_units_bandwidth(raw, &v)
                 : key->type == FL_K_REAL                           ? fl_units_number(raw, 0, &v)
                                          : fl_units_duration(raw, key->type == FL_K_DURATION_NEVER, &v);
    if (prc != FL_OK)
      return fl_scenario_fail(sc, key->section, key->key, "%s", fl_err_msg());
    if ((key->flags & FL_K_POS) && !(v > 0))
      return fl_scenario_fail(sc, key->section, key->key, "must be positive");
    if ((key->flags & FL_K_NONNEG) && v < 0)
      return fl_scenario_fail(sc, key->section, key->key, "must not be negative");
    *(double *)(void *)field = v;
    break;
  }
  case FL_K_INTERVAL: {
    /* a duration, or a rule's name (the registry is policy's: fl_strat_common_keys' check refuses an unknown one) */
    const char *p = raw;
    size_t n;
    while (isspace((unsigned char)*p))
      p++;
    n = strcspn(p, " \t\r\n");
    if (isalpha((unsigned char)*p) && n < sizeof sc->interval_rule &&
        p[strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_-")] == '\0') {
      char known[160];
      if (strcmp(p, "fixed") == 0)
        return fl_scenario_fail(sc, key->section, key->key, "a fixed interval is written as its duration (e.g. 600s)");
      if (fl_interval_known && !fl_interval_known(p, known, sizeof known))
        return fl_scenario_fail(sc, key->section, key->key, "unknown rule (expected %s)", known);
      snprintf(sc->interval_rule, sizeof sc->interval_rule, "%s", p);
      break;
    }
    if (fl_units_duration(raw, 0, &v) != FL_OK)
      return fl_scenario_fail(sc, key->section, key->key,
                              "expected a rule (`faultline keys` lists them: daly, young, never, ...) or a duration "
                              "(e.g. 600s, 11min)");
    if (!(v > 0))
      return fl_scenario_fail(sc, key->section, key->key, "must be positive");
    snprintf(sc->interval_rule, sizeof sc->interval_rule, "fixed");
    sc->interval_s = v;
    break;
  }
  case FL_K_WATTAGE: {
    double w[3];
    if (strchr(raw, ',') || fl_units_wattage(raw, 0, w) != FL_OK)
      return fl_scenario_fail(sc, key->section, key->key,
                              "expected Idle:AllCores or Idle:Epsilon:AllCores watts, e.g. 100:200 or 95:120:200");
    if (!(w[0] <= w[2] && w[1] <= w[2])) /* SimGrid's own energy_cluster.xml has Epsilon below Idle */
      return fl_scenario_fail(sc, key->section, key->key, "expected Idle and Epsilon at most AllCores watts");
    memcpy(field, w, sizeof w);
    break;
  }
  case FL_K_GRID: {
    long r = 0, c = 0;
    char x = 0, tail = 0;
    if (sscanf(raw, " %ld %c %ld %c", &r, &x, &c, &tail) != 3 || (x != 'x' && x != 'X') || r < 1 || c < 1 ||
        r > 100000 || c > 100000)
      return fl_scenario_fail(sc, key->section, key->key, "expected ROWSxCOLS, e.g. 10x10 (each 1 to 100000)");
    ((long *)(void *)field)[0] = r;
    ((long *)(void *)field)[1] = c;
    break;
  }
  }
done:
  return rc;
}

/* ---- file parsing ---- */

typedef struct fl_parse {
  fl_scenario *sc;
  const char *cursor; /* next unread character of sc->text */
  int line;           /* line number of the text last handed to inih */
  int too_long;       /* first line longer than inih's buffer, or 0 */
  fl_err rc;          /* first handler error */
  int rc_line;
  char msg[1024];
} fl_parse;

static char *fl_parse_reader(char *str, int num, void *stream)
{
  fl_parse *p = stream;
  int n = 0;
  if (*p->cursor == '\0')
    return NULL;
  p->line++;
  while (p->cursor[n] && p->cursor[n] != '\n')
    n++;
  if (n >= num - 1) {
    if (!p->too_long)
      p->too_long = p->line;
    n = num - 2;
    memcpy(str, p->cursor, (size_t)n);
    str[n] = '\0';
  } else {
    memcpy(str, p->cursor, (size_t)n);
    str[n] = '\0';
  }
  while (*p->cursor && *p->cursor != '\n')
    p->cursor++;
  if (*p->cursor == '\n')
    p->cursor++;
  return str;
}

static int fl_parse_handler(void *user, const char *section, const char *name, const char *value)
{
  fl_parse *p = user;
  fl_scenario *sc = p->sc;
  int k;
  fl_err rc;

  if (p->rc != FL_OK)
    return 1; /* report the first error only */
  if (!fl_section_known(section)) {
    char known[256] = "";
    for (int i = 0; i < FL_NKEYS; i++)
      if (i == 0 || strcmp(fl_keys(i).section, fl_keys(i - 1).section) != 0) {
        strncat(known, known[0] ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, fl_keys(i).section, sizeof known - strlen(known) - 1);
      }
    p->rc = fl_err_set(FL_ERR_INPUT, "%s:%d: unknown section [%s] (known: %s)", fl_scenario_label(sc), p->line, section,
                       known);
    goto fail;
  }
  k = fl_key_find(section, name);
  if (k < 0) {
    char known[512] = "";
    for (int i = 0; i < FL_NKEYS; i++) {
      if (strcmp(fl_keys(i).section, section) != 0)
        continue;
      strncat(known, known[0] ? ", " : "", sizeof known - strlen(known) - 1);
      strncat(known, fl_keys(i).key, sizeof known - strlen(known) - 1);
    }
    p->rc = fl_err_set(FL_ERR_INPUT, "%s:%d: [%s] %s = '%s': unknown key (known in [%s]: %s)", fl_scenario_label(sc),
                       p->line, section, name, value, section, known);
    goto fail;
  }
  if (sc->origin[k].line > 0) {
    p->rc = fl_err_set(FL_ERR_INPUT, "%s:%d: [%s] %s = '%s': given twice (first at line %d)", fl_scenario_label(sc),
                       p->line, section, name, value, sc->origin[k].line);
    goto fail;
  }
  rc = fl_scenario_assign(sc, k, value, p->line);
  if (rc != FL_OK) {
    p->rc = rc;
    goto fail;
  }
  return 1;
fail:
  p->rc_line = p->line;
  snprintf(p->msg, sizeof p->msg, "%s", fl_err_msg());
  return 0;
}

static fl_err fl_scenario_new(const char *path, const char *dir, fl_scenario **out)
{
  fl_err rc = FL_OK;
  fl_scenario *sc = NULL;

  FL_ALLOC(sc, 1);
  FL_ALLOC(sc->origin, FL_NKEYS);
  FL_ALLOC(sc->options, fl_nsets);
  for (int s = 0; s < fl_nsets; s++)
    FL_CHECK((sc->options[s] = calloc(1, fl_sets[s]->size ? fl_sets[s]->size : 1)) != NULL, FL_ERR_NOMEM,
             "out of memory");
  sc->path = path ? fl_strdup(path) : NULL;
  sc->dir = fl_strdup(dir ? dir : ".");
  sc->overrides = fl_strdup("");
  FL_CHECK(sc->dir && sc->overrides && (!path || sc->path), FL_ERR_NOMEM, "out of memory");
  for (int k = 0; k < FL_NKEYS; k++)
    FL_TRY(fl_scenario_assign(sc, k, fl_keys(k).def, 0));
  *out = sc;
  sc = NULL;
done:
  fl_scenario_destroy(&sc);
  return rc;
}

/* Parse sc->text over the defaults. */
static fl_err fl_scenario_parse_text(fl_scenario *sc)
{
  fl_err rc = FL_OK;
  fl_parse p;
  int bad_line;

  memset(&p, 0, sizeof p);
  p.sc = sc;
  p.cursor = sc->text;
  bad_line = ini_parse_stream(fl_parse_reader, &p, fl_parse_handler, &p);
  if (p.too_long && (bad_line == 0 || p.too_long <= bad_line) && (p.rc == FL_OK || p.too_long <= p.rc_line))
    return fl_err_set(FL_ERR_INPUT, "%s:%d: line too long (at most %d characters)", fl_scenario_label(sc), p.too_long,
                      INI_MAX_LINE - 2);
  if (p.rc != FL_OK && (bad_line <= 0 || p.rc_line <= bad_line))
    return fl_err_set(p.rc, "%s", p.msg);
  if (bad_line > 0)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: malformed line (expected [section], key = value, or a ; or # comment)",
                      fl_scenario_label(sc), bad_line);
  FL_CHECK(bad_line == 0, FL_ERR_IO, "%s: cannot parse (inih error %d)", fl_scenario_label(sc), bad_line);
  if (sc->origin[fl_key_find("run", "name")].line == 0 || sc->name == NULL) {
    /* default name: base name of the file, without .ini */
    const char *base = sc->path ? strrchr(sc->path, '/') : NULL;
    char buf[256];
    size_t n;
    base = base ? base + 1 : (sc->path ? sc->path : "scenario");
    snprintf(buf, sizeof buf, "%s", base);
    n = strlen(buf);
    if (n > 4 && strcmp(buf + n - 4, ".ini") == 0)
      buf[n - 4] = '\0';
    free(sc->name);
    sc->name = fl_strdup(buf);
    FL_CHECK(sc->name != NULL, FL_ERR_NOMEM, "out of memory");
  }
done:
  return rc;
}

fl_err fl_scenario_from_text(const char *text, const char *label, const char *dir, fl_scenario **out)
{
  fl_err rc = FL_OK;
  fl_scenario *sc = NULL;

  *out = NULL;
  FL_TRY(fl_scenario_new(label, dir, &sc));
  sc->text = fl_strdup(text);
  FL_CHECK(sc->text != NULL, FL_ERR_NOMEM, "out of memory");
  FL_TRY(fl_scenario_parse_text(sc));
  *out = sc;
  sc = NULL;
done:
  fl_scenario_destroy(&sc);
  return rc;
}

fl_err fl_scenario_load(const char *path, fl_scenario **out)
{
  fl_err rc = FL_OK;
  const char *why;
  FILE *f = NULL;
  char *text = NULL, *dir = NULL;
  long size;
  const char *slash;

  *out = NULL;
  f = fl_input_fopen(path, &why);
  FL_CHECK(f != NULL, FL_ERR_INPUT, "%s: cannot open scenario: %s", path, why);
  FL_CHECK(fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0, FL_ERR_INPUT,
           "%s: cannot read scenario: %s", path, strerror(errno));
  FL_CHECK(size <= (1L << 24), FL_ERR_INPUT, "%s: scenario file larger than 16 MiB", path);
  FL_ALLOC(text, size + 1);
  FL_CHECK(fread(text, 1, (size_t)size, f) == (size_t)size, FL_ERR_INPUT, "%s: cannot read scenario", path);
  text[size] = '\0';
  FL_CHECK(strlen(text) == (size_t)size, FL_ERR_INPUT, "%s: scenario file contains a NUL byte", path);
  slash = strrchr(path, '/');
  if (slash) {
    FL_ALLOC(dir, slash - path + 2);
    memcpy(dir, path, (size_t)(slash - path) + (slash == path ? 1 : 0));
  }
  FL_TRY(fl_scenario_from_text(text, path, dir ? dir : ".", out));
  (*out)->abs_path = realpath(path, NULL);
done:
  if (f)
    fclose(f);
  free(text);
  free(dir);
  return rc;
}

/* --set and --sweep differ only in how a message names the value: origin line -1 or -2. */
static fl_err fl_scenario_set_from(fl_scenario *sc, const char *assignment, int origin);

fl_err fl_scenario_set(fl_scenario *sc, const char *assignment)
{
  return fl_scenario_set_from(sc, assignment, -1);
}

fl_err fl_scenario_set_sweep(fl_scenario *sc, const char *assignment)
{
  return fl_scenario_set_from(sc, assignment, -2);
}

static fl_err fl_scenario_set_from(fl_scenario *sc, const char *assignment, int origin)
{
  fl_err rc = FL_OK;
  const char *flag = origin == -2 ? "--sweep" : "--set";
  char section[64], key[64];
  const char *dot = strchr(assignment, '.');
  const char *eq = strchr(assignment, '=');
  int k;
  size_t n;
  char *grown;

  FL_CHECK(dot && eq && dot < eq && (size_t)(dot - assignment) < sizeof section && (size_t)(eq - dot - 1) < sizeof key,
           FL_ERR_INPUT, "%s %s: expected section.key=value (e.g. failures.node_mtbf=1y)", flag, assignment);
  memcpy(section, assignment, (size_t)(dot - assignment));
  section[dot - assignment] = '\0';
  memcpy(key, dot + 1, (size_t)(eq - dot - 1));
  key[eq - dot - 1] = '\0';
  k = fl_key_find(section, key);
  FL_CHECK(k >= 0, FL_ERR_INPUT, "%s %s: unknown key '%s.%s' (see 'faultline keys')", flag, assignment, section, key);
  FL_TRY(fl_scenario_assign(sc, k, eq + 1, origin));
  n = strlen(sc->overrides);
  grown = realloc(sc->overrides, n + strlen(assignment) + 2);
  FL_CHECK(grown != NULL, FL_ERR_NOMEM, "out of memory");
  sc->overrides = grown;
  snprintf(sc->overrides + n, strlen(assignment) + 2, "%s\n", assignment);
done:
  return rc;
}

fl_err fl_scenario_replay(const char *text, const char *overrides, const char *path, fl_scenario **out)
{
  fl_err rc = FL_OK;
  fl_scenario *sc = NULL;
  char *dir = NULL, *list = NULL, *line, *save = NULL;
  const char *slash = path ? strrchr(path, '/') : NULL;

  *out = NULL;
  if (slash) {
    FL_ALLOC(dir, slash - path + 2);
    memcpy(dir, path, (size_t)(slash - path) + (slash == path ? 1 : 0));
  }
  FL_TRY(fl_scenario_from_text(text, path, dir ? dir : ".", &sc));
  list = fl_strdup(overrides ? overrides : "");
  FL_CHECK(list != NULL, FL_ERR_NOMEM, "out of memory");
  for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
    FL_TRY(fl_scenario_set(sc, line));
  *out = sc;
  sc = NULL;
done:
  fl_scenario_destroy(&sc);
  free(dir);
  free(list);
  return rc;
}

char *fl_scenario_resolve(const fl_scenario *sc, const char *rel)
{
  size_t n;
  char *out;
  if (!rel)
    return NULL;
  if (rel[0] == '/' || !sc->dir || strcmp(sc->dir, ".") == 0)
    return fl_strdup(rel);
  n = strlen(sc->dir) + strlen(rel) + 2;
  out = malloc(n);
  if (out)
    snprintf(out, n, "%s/%s", sc->dir, rel);
  return out;
}

long fl_scenario_override_at(const fl_scenario *sc, const char *section, const char *key)
{
  char name[96];
  long at = -1, i = 0;
  size_t n = (size_t)snprintf(name, sizeof name, "%s.%s=", section, key);
  for (const char *p = sc->overrides; p && *p; p += strcspn(p, "\n"), p += *p == '\n', i++)
    if (strncmp(p, name, n) == 0)
      at = i;
  return at;
}

int fl_scenario_overridden(const fl_scenario *sc, const char *section, const char *key)
{
  return fl_scenario_override_at(sc, section, key) >= 0;
}

int fl_scenario_given(const fl_scenario *sc, const char *section, const char *key)
{
  int k = fl_key_find(section, key);
  return k >= 0 && sc->origin[k].line != 0;
}

long fl_scenario_spares(const fl_scenario *sc)
{
  char *end = NULL;
  long n;
  if (!sc->app_spares || strcmp(sc->app_spares, "rest") == 0)
    return -1;
  errno = 0;
  n = strtol(sc->app_spares, &end, 10);
  return end == sc->app_spares || *end || errno || n < 0 || !isdigit((unsigned char)sc->app_spares[0]) ? -2 : n;
}

fl_err fl_scenario_check(const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  char *file = NULL;
  const char *why;

  if (sc->replicas > FL_SCENARIO_MAX_REPLICAS)
    return fl_scenario_fail(sc, "run", "replicas",
                            "at most %ld replicas per command (each keeps a row and an id in memory: split a larger "
                            "study into several commands)",
                            (long)FL_SCENARIO_MAX_REPLICAS);
  if (sc->platform_file) {
    if (sc->origin[fl_key_find("platform", "nodes")].line != 0 && sc->platform_nodes > 0)
      return fl_scenario_fail(sc, "platform", "nodes", "give either [platform] file or nodes, not both");
    if (sc->io_flows == FL_IO_AGGREGATED)
      return fl_scenario_fail(sc, "platform", "io_flows",
                              "aggregated flows group a generated platform's cabinets; a platform file has none to "
                              "group (per-rank or auto)");
    file = fl_scenario_resolve(sc, sc->platform_file);
    FL_CHECK(file != NULL, FL_ERR_NOMEM, "out of memory");
    if (!fl_input_is_regular(file, &why)) {
      rc = fl_scenario_fail(sc, "platform", "file", "platform file '%s': %s", file, why);
      goto done;
    }
  }
  if (fl_scenario_spares(sc) < -1)
    return fl_scenario_fail(sc, "app", "spares", "'%s': expected rest or a count of nodes (0, 1, ...)", sc->app_spares);
  if (!(sc->burst_ratio <= 0.95))
    return fl_scenario_fail(sc, "failures", "burst_ratio",
                            "must stay below 1 (at most 0.95): at 1 every failure begets another and bursts never end");
  if (!(sc->comm_fraction < 1.0))
    return fl_scenario_fail(sc, "app", "comm_fraction", "must be below 1 (the share of time spent communicating)");
  for (int s = 0; s < fl_nsets; s++)
    if (fl_sets[s]->check)
      FL_TRY(fl_sets[s]->check(sc, sc->options[s]));
done:
  free(file);
  return rc;
}

void fl_scenario_destroy(fl_scenario **psc)
{
  fl_scenario *sc = psc ? *psc : NULL;
  if (!sc)
    return;
  /* every text key's value, from the table: a key added there is freed here too */
  for (int k = 0; k < FL_NKEYS; k++)
    if (fl_keys(k).type == FL_K_STR && (fl_tab[k].set < 0 || (sc->options && sc->options[fl_tab[k].set])))
      free(*(char **)(void *)fl_key_field(sc, k));
  if (sc->origin)
    for (int k = 0; k < FL_NKEYS; k++)
      free(sc->origin[k].raw);
  free(sc->origin);
  if (sc->options)
    for (int s = 0; s < fl_nsets; s++)
      free(sc->options[s]);
  free(sc->options);
  free(sc->path);
  free(sc->abs_path);
  free(sc->dir);
  free(sc->text);
  free(sc->overrides);
  free(sc);
  *psc = NULL;
}

static const char *fl_ktype_name(fl_ktype t)
{
  switch (t) {
  case FL_K_STR: return "text";
  case FL_K_ENUM_INT: return "choice";
  case FL_K_SEED: return "integer";
  case FL_K_COUNT: return "integer";
  case FL_K_DURATION: return "duration";
  case FL_K_DURATION_NEVER: return "duration|never";
  case FL_K_SPEED: return "speed";
  case FL_K_FLOPS: return "flops";
  case FL_K_BYTES: return "size";
  case FL_K_BANDWIDTH: return "bandwidth";
  case FL_K_REAL: return "number";
  case FL_K_INTERVAL: return "rule|duration";
  case FL_K_GRID: return "ROWSxCOLS";
  case FL_K_POWER: return "power";
  case FL_K_WATTAGE: return "Idle:AllCores watts";
  }
  return "?";
}

static const char *fl_ktype_unit(fl_ktype t)
{
  switch (t) {
  case FL_K_DURATION:
  case FL_K_DURATION_NEVER: return "s";
  case FL_K_SPEED: return "flop/s";
  case FL_K_FLOPS: return "flop";
  case FL_K_BYTES: return "B";
  case FL_K_BANDWIDTH: return "B/s";
  case FL_K_POWER:
  case FL_K_WATTAGE: return "W";
  default: return "";
  }
}

static const char *fl_ktype_vtype(fl_ktype t)
{
  switch (t) {
  case FL_K_SEED:
  case FL_K_COUNT: return "integer";
  case FL_K_DURATION:
  case FL_K_DURATION_NEVER:
  case FL_K_SPEED:
  case FL_K_FLOPS:
  case FL_K_BYTES:
  case FL_K_BANDWIDTH:
  case FL_K_POWER:
  case FL_K_REAL: return "real";
  default: return "text";
  }
}

fl_value fl_scenario_key_value(const fl_scenario *sc, int i, char *buf, size_t size)
{
  fl_value v = {FL_VAL_NULL, 0, 0, 0.0, NULL};
  const fl_key *k;
  const char *base;
  if (i < 0 || i >= FL_NKEYS)
    return v;
  k = &fl_keys(i);
  base = fl_key_field(sc, i);
  switch (k->type) {
  case FL_K_STR:
    v.s = *(const char *const *)(const void *)base;
    v.kind = v.s ? FL_VAL_TEXT : FL_VAL_NULL;
    break;
  case FL_K_ENUM_INT:
    v.kind = FL_VAL_TEXT;
    v.s = k->choices[*(const int *)(const void *)base];
    break;
  case FL_K_SEED:
    v.kind = FL_VAL_UINT;
    v.u = *(const uint64_t *)(const void *)base;
    break;
  case FL_K_COUNT:
    v.kind = FL_VAL_INT;
    v.i = *(const long *)(const void *)base;
    break;
  case FL_K_DURATION:
  case FL_K_DURATION_NEVER:
  case FL_K_SPEED:
  case FL_K_FLOPS:
  case FL_K_BYTES:
  case FL_K_BANDWIDTH:
  case FL_K_POWER:
  case FL_K_REAL:
    v.kind = FL_VAL_REAL;
    v.d = *(const double *)(const void *)base;
    break;
  case FL_K_INTERVAL: {
    v.kind = FL_VAL_TEXT;
    if (strcmp(sc->interval_rule, "fixed") == 0) {
      snprintf(buf, size, "%.17g", *(const double *)(const void *)base);
      v.s = buf;
    } else {
      v.s = sc->interval_rule;
    }
    break;
  }
  case FL_K_WATTAGE: {
    const double *w = (const double *)(const void *)base;
    v.kind = FL_VAL_TEXT;
    if (w[1] == w[0])
      snprintf(buf, size, "%.17g:%.17g", w[0], w[2]);
    else
      snprintf(buf, size, "%.17g:%.17g:%.17g", w[0], w[1], w[2]);
    v.s = buf;
    break;
  }
  case FL_K_GRID:
    v.kind = FL_VAL_TEXT;
    snprintf(buf, size, "%ldx%ld", ((const long *)(const void *)base)[0], ((const long *)(const void *)base)[1]);
    v.s = buf;
    break;
  }
  return v;
}

int fl_scenario_key_count(void)
{
  return FL_NKEYS;
}

const fl_scenario_keyinfo *fl_scenario_key_at(int i)
{
  static _Thread_local fl_scenario_keyinfo info;
  if (i < 0 || i >= FL_NKEYS)
    return NULL;
  info.section = fl_keys(i).section;
  info.key = fl_keys(i).key;
  info.type = fl_ktype_name(fl_keys(i).type);
  info.def = fl_keys(i).def;
  info.doc = fl_keys(i).doc;
  info.unit = fl_ktype_unit(fl_keys(i).type);
  info.vtype = fl_ktype_vtype(fl_keys(i).type);
  info.owner = fl_tab[i].set < 0 ? NULL : fl_sets[fl_tab[i].set]->owner;
  return &info;
}

int fl_scenario_number(const fl_scenario *sc, const char *name, double *v)
{
  for (int k = 0; k < FL_NKEYS; k++) {
    size_t ls = strlen(fl_keys(k).section);
    char buf[64];
    fl_value x;
    if (strncmp(name, fl_keys(k).section, ls) != 0 || name[ls] != '.' || strcmp(name + ls + 1, fl_keys(k).key) != 0)
      continue;
    if (fl_keys(k).type == FL_K_INTERVAL) { /* a number only when fixed (a rule has none) */
      if (strcmp(sc->interval_rule, "fixed") != 0)
        return 0;
      *v = sc->interval_s;
      return 1;
    }
    x = fl_scenario_key_value(sc, k, buf, sizeof buf);
    if (x.kind == FL_VAL_REAL)
      *v = x.d;
    else if (x.kind == FL_VAL_INT)
      *v = (double)x.i;
    else
      return 0; /* text, choices, grids, the seed */
    return 1;
  }
  return 0;
}

const char *fl_scenario_text(const fl_scenario *sc, const char *name, char *buf, size_t size)
{
  for (int k = 0; k < FL_NKEYS; k++) {
    size_t ls = strlen(fl_keys(k).section);
    fl_value x;
    if (strncmp(name, fl_keys(k).section, ls) != 0 || name[ls] != '.' || strcmp(name + ls + 1, fl_keys(k).key) != 0)
      continue;
    x = fl_scenario_key_value(sc, k, buf, size);
    switch (x.kind) {
    case FL_VAL_NULL: return NULL;
    case FL_VAL_TEXT: return x.s;
    case FL_VAL_INT: snprintf(buf, size, "%lld", x.i); return buf;
    case FL_VAL_UINT: snprintf(buf, size, "%llu", x.u); return buf;
    case FL_VAL_REAL: snprintf(buf, size, "%.17g", x.d); return buf;
    }
  }
  return NULL;
}

fl_err fl_scenario_file_keys(const fl_scenario *sc, char ***v, int *n)
{
  fl_err rc = FL_OK;
  char **out = NULL;
  int m = 0;
  *v = NULL;
  *n = 0;
  FL_ALLOC(out, FL_NKEYS);
  {
    int order[FL_MAX_KEYS], no = 0;
    for (int k = 0; k < FL_NKEYS; k++) { /* in line order (insertion: a few dozen keys) */
      int j = no++;
      if (sc->origin[k].line <= 0) {
        no--;
        continue;
      }
      while (j > 0 && sc->origin[order[j - 1]].line > sc->origin[k].line) {
        order[j] = order[j - 1];
        j--;
      }
      order[j] = k;
    }
    for (int i = 0; i < no; i++) {
      int k = order[i];
      size_t len = strlen(fl_keys(k).section) + strlen(fl_keys(k).key) + strlen(sc->origin[k].raw) + 3;
      FL_ALLOC(out[m], len);
      snprintf(out[m++], len, "%s.%s=%s", fl_keys(k).section, fl_keys(k).key, sc->origin[k].raw);
    }
  }
  *v = out;
  *n = m;
  out = NULL;
done:
  if (out)
    for (int i = 0; i < m; i++)
      free(out[i]);
  free(out);
  return rc;
}

void fl_scenario_print(const fl_scenario *sc, FILE *f)
{
  const char *section = "";
  for (int k = 0; k < FL_NKEYS; k++) {
    const fl_scenario_origin *o = &sc->origin[k];
    if (strcmp(section, fl_keys(k).section) != 0) {
      section = fl_keys(k).section;
      fprintf(f, "%s[%s]\n", k ? "\n" : "", section);
    }
    fprintf(f, "%s = %s", fl_keys(k).key, o->raw);
    if (o->line == 0)
      fprintf(f, "   ; default");
    else if (o->line < 0)
      fprintf(f, "   ; %s", o->line == -2 ? "--sweep" : "--set");
    fputc('\n', f);
  }
}
