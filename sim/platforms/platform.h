/* platform.h — the SimGrid platform of a process: loaded once (SimGrid allows one per process), from a
 * scenario's XML file or generated in memory from a node count.
 *
 * Generated platforms are plain hosts in a `routing="None"` zone, the cheapest layout SimGrid loads (about
 * 1 GB and 3 s for a million hosts): `controller` plus node-0 .. node-(n-1). Their host handles are looked up
 * lazily by name, only for nodes that fail, because sg_host_list() sorts a million names per call.
 * File platforms: every host but the controller is a node, in natural order of host names (cn-2 before
 * cn-10). */
#ifndef FL_PLATFORM_H
#define FL_PLATFORM_H

#include "fl_err.h"
#include "profiles.h"
#include "scenario.h"

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <stdio.h>

typedef struct fl_platform fl_platform;

/* A generated platform. io = 0: plain hosts without network (routing="None"), all the failure model needs.
 * io = FL_IO_PER_RANK: every node in its cabinet's zone with its link (and disk when disk_bw > 0), cabinets
 * joined by their uplinks, PFS servers with disks and links. io = FL_IO_AGGREGATED: the nodes as plain hosts
 * plus one I/O host per cabinet whose link carries what its nodes' links carry in parallel (members x link_bw,
 * at most the cabinet's uplink), and the PFS servers: one flow per cabinet instead of one per node
 * (docs/platform-costs.md says why that is exact when a cabinet's nodes move the same bytes). */
/* io = FL_PLATFORM_CLUSTER (task graphs): the nodes in one SimGrid <cluster>, each with its link
 * (platform.link_bandwidth, link_latency) to a backbone (platform.cabinet_bandwidth): files move between any two
 * nodes, and SimGrid routes them without a route table. */
#define FL_PLATFORM_CLUSTER 3

typedef struct fl_platform_gen {
  long nodes;
  double speed;
  int io; /* 0, FL_IO_PER_RANK or FL_IO_AGGREGATED */
  long cabinet;
  double link_bw, link_lat_s, cabinet_bw, disk_bw;
  long pfs_servers;
  double pfs_bw, pfs_link_bw;
} fl_platform_gen;
#define FL_PLATFORM_PER_RANK_MAX_CABINETS 512L /* the per-rank form routes every cabinet pair: at most this many */

void fl_platform_gen_from(const fl_scenario *sc, long nodes, int io, fl_platform_gen *g);
long fl_platform_gen_cabinets(const fl_platform_gen *g);
/* 0 when the per-rank form would route more than FL_PLATFORM_PER_RANK_MAX_CABINETS cabinets (checked before any
 * XML is written), else 1. */
int fl_platform_gen_routable(const fl_platform_gen *g);

/* Initialise SimGrid (first call only) and load the platform `sc` describes; a generated one in form `io` (see
 * fl_platform_gen; ignored for files) with room for the job's ranks x `copies` (fl_app_job_slots) unless
 * platform.nodes says. A second call with the same description returns the same platform; with another it fails
 * (FL_ERR_SIM). Owned by the process: never destroyed. */
fl_err fl_platform_get(const fl_scenario *sc, int io, long copies, fl_platform **out);
/* What fl_platform_get(sc, io) would load, in words ("generated:1056:1e9", "file:/abs/p.xml:..."), without loading
 * it: two scenarios of one description share a process's platform; others need a process each. */
fl_err fl_platform_key(const fl_scenario *sc, int io, long copies, char *describe, size_t size);
/* Can every two of `hosts` reach each other (one pair per two netzones, two hosts of each)? Asked in a child
 * process (SimGrid 3.32 crashes on a route it cannot answer); a pair without a route is refused naming the hosts,
 * their zones and `why` they must talk (FL_ERR_INPUT, platform.file). */
fl_err fl_platform_check_routes(const fl_platform *pf, const fl_scenario *sc, sg_host_t *hosts, long n,
                                const char *why);

/* File platforms: the hosts' state profiles, as outages the failure source plays (empty for generated ones). */
const fl_profiles *fl_platform_profiles(const fl_platform *pf);

/* ---- what the I/O model (sim/iocost.c) needs ---- */
/* The form a generated platform was built in (0 for files). */
int fl_platform_io(const fl_platform *pf);
/* Generated platforms: their parameters (NULL for files). */
const fl_platform_gen *fl_platform_generated(const fl_platform *pf);
/* The PFS servers: storage.pfs of a file, pfs-0.. of a generated platform. */
long fl_platform_pfs_count(const fl_platform *pf);
sg_host_t fl_platform_pfs_host(const fl_platform *pf, long j);

/* Generated platforms: what one host costs, measured with SimGrid 3.32 (docs/reliability.md): peak RSS of a
 * 1M-host run is 1.07 GB, 3M hosts 3.16 GB; the XML written for it is about 45 bytes a host. */
#define FL_PLATFORM_BYTES_PER_HOST 1100.0
#define FL_PLATFORM_BASE_BYTES (64.0 * 1024 * 1024)
#define FL_PLATFORM_XML_BYTES_PER_HOST 48.0
#define FL_PLATFORM_MAX_NODES 100000000L
/* Platform files: a host of a SimGrid cluster (its private link and route), measured with SimGrid 3.32 by faultline
 * loading a 992,000-host cluster: peak RSS 3.27 GB (docs/reliability.md). */
#define FL_PLATFORM_FILE_BYTES_PER_HOST 3400.0
/* A Dragonfly, Fat-Tree or Torus cluster of SimGrid 3.32 (its topo_parameters): a host or a switch (router) of it,
 * and a link (to a host, between switches or routers), measured by faultline loading such clusters: 1M hosts as a
 * torus 100x100x100 (3M links) 5,324 MB peak RSS, as a fat tree 2;1000,1000;1,1;1,1 (1M links) 2,923 MB, as a
 * Dragonfly 50,1;20,1;25,1;40 (1.54M links) 3,398 MB, a Dragonfly of 1,000 routers in one chassis (499,500 links)
 * 775 MB: ~1,700 and ~1,200-1,460 bytes; taken upwards, the estimate is 3-16 % above those (docs/reliability.md). */
#define FL_PLATFORM_TOPO_BYTES_PER_HOST 1700.0
#define FL_PLATFORM_FILE_BYTES_PER_LINK 1500.0

/* What a platform file would build, read before SimGrid sees it (libxml2's streaming reader, no tree): its hosts
 * (<host>, <peer>, a <cabinet> radical's, and a <cluster>'s: its radical's, or for a TORUS, FAT_TREE or DRAGONFLY
 * topology the hosts, switches and links its topo_parameters make), and the memory they and the routing tables of
 * its Full and Floyd zones would take; the element that brings the most memory (line, name, attribute, value), and
 * the zone with the largest routing table. A file that is not well-formed is counted as far as it reads.
 * FL_ERR_INPUT, naming the line, for topo_parameters SimGrid 3.32 would misread (a negative or zero count, a number
 * beyond an int, the wrong number of fields), for a topology of more hosts than its radical names, and for a
 * Dragonfly of more groups than routers in a group (SimGrid links router n of each group to group n; past that it
 * writes beyond its table of routers). */
typedef struct fl_platform_estimate {
  double hosts, bytes, links; /* links: those of the clusters' topologies */
  double element_bytes;       /* the memory of the element below */
  long line;
  char element[32], attr[32], value[200];
  double table_bytes, table_members; /* the Full or Floyd zone whose routing table is the largest */
  long table_line;
  char table_zone[64];
} fl_platform_estimate;
fl_err fl_platform_file_estimate(const char *file, fl_platform_estimate *est);

/* What fl_platform_get does to a platform file before SimGrid sees it (the size check, the profiles taken out):
 * FL_ERR_INPUT for a file it refuses, SimGrid untouched. On success the path SimGrid is to load (*load_path, freed
 * by the caller), the descriptor behind it (*fd, or -1; closed by the caller) and the profiles (fl_profiles_free). */
fl_err fl_platform_file_prepare(const char *file, int take_speed, char **load_path, int *fd, fl_profiles *profiles);

/* Refuse (FL_ERR_INPUT, naming the scenario key) a generated platform of `nodes` hosts that would not fit in the
 * memory this process may use (MemAvailable, rlimits, cgroup) or whose XML would not fit in TMPDIR. Called
 * before anything is written. */
fl_err fl_platform_check_size(const fl_scenario *sc, long nodes);

long fl_platform_nodes(const fl_platform *pf);
const char *fl_platform_describe(const fl_platform *pf); /* for messages: the file's path, "generated (N nodes)" */
/* A generated platform without a network is made in SimGrid when first needed (a host, the controller asked for):
 * the direct engine runs a bsp job on it without SimGrid. fl_platform_realize makes it now; fl_platform_realized
 * says whether it is made (SimGrid set up, its clock running). */
void fl_platform_realize(fl_platform *pf);
int fl_platform_realized(const fl_platform *pf);
sg_host_t fl_platform_host(fl_platform *pf, long node);
sg_host_t fl_platform_controller(const fl_platform *pf);
/* The controller's host name; whether it was not the scenario's [platform] controller (absent from the file). */
const char *fl_platform_controller_name(const fl_platform *pf);
int fl_platform_controller_substituted(const fl_platform *pf);
/* A node's power in watts, as SimGrid's host energy plugin models a host: `idle` when nothing runs, `epsilon` +
 * load x (`busy` - `epsilon`) while it computes at a load in (0, 1] (`busy`: all cores at full speed, the
 * plugin's AllCores), `off` while it is off. `cores`: the host's, to turn one execution into a load. */
typedef struct fl_power {
  double idle, epsilon, busy, off;
  int cores;
} fl_power;
/* The nodes' power: a file's hosts from their `wattage_per_state` (the entry of their current pstate) and
 * `wattage_off` properties, the scenario's platform.node_power and node_power_off for generated platforms and
 * hosts that declare none. *per_node: one per node, or NULL when every node draws the same (*uniform); freed by
 * the caller. A property that does not read is FL_ERR_INPUT naming the file, host, property and value. */
fl_err fl_platform_power(fl_platform *pf, const fl_scenario *sc, fl_power **per_node, fl_power *uniform);
/* Node index of host `name`, or -1. */
long fl_platform_node_of(const fl_platform *pf, const char *name);

/* Start SimGrid's engine as fl_platform_get does for a platform of `hosts` hosts (0: a user's file), generated or
 * not, for a workflow or not. SimGrid keeps one engine per process: a later call changes nothing. */
void fl_simgrid_init(long hosts, int generated, int workflow);

/* Write the XML of a generated platform (the same bytes fl_platform_get loads). */
fl_err fl_platform_write_xml(FILE *f, const fl_platform_gen *g);

#endif
