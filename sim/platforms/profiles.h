/* profiles.h — SimGrid host availability profiles (`state_file` on a <host>) as failures of the simulator.
 *
 * A platform file may declare when hosts are off (SimGrid's own example small_platform_failures.xml does). The
 * simulator runs replica after replica on one SimGrid clock, so SimGrid applying those absolute dates itself would
 * hit whichever replica ran then, and could switch off the host running the simulator's actors. Instead faultline
 * reads them: the file is parsed with libxml2, the hosts' state_file attributes are taken out (and every other
 * *_file path made absolute) in a copy SimGrid loads, and each profile becomes outages (date, duration) of its
 * host that every replica replays from its own start, on top of the [failures] model (fl_fsrc). Speed profiles
 * (speed_file) are taken out the same way and slow the job's compute: a bulk-synchronous job advances at the pace
 * of its slowest node, every replica from its own start. */
#ifndef FL_PROFILES_H
#define FL_PROFILES_H

#include "fl_err.h"

#include <stddef.h>

/* One host's profile as outages: those that start in its first play (first_*), and, for a looping profile, those
 * that start in each later play (steady_*, dates from the play's start; a later play may start off, carried over
 * from the one before, which is why the two lists differ). Play k >= 1 starts at k * period. */
typedef struct fl_host_profile {
  char *host;
  double *first_t, *first_dur; /* dur INFINITY: off for good */
  size_t nfirst;
  double *steady_t, *steady_dur;
  size_t nsteady;
  double period; /* INFINITY: played once */
} fl_host_profile;

/* One host's speed profile (speed_file): from each date t[i] on, the host runs at v[i] times its speed (1 before
 * the first); looping, the list plays again every period from the start, the last value holding until the first
 * date of the next play. */
typedef struct fl_host_speed {
  char *host; /* or, for a link's profile, the link's id */
  double *t, *v;
  size_t n;
  double period;  /* INFINITY: played once */
  double initial; /* before the first date: 1 for a speed; NAN for a link (its bandwidth or latency as declared) */
} fl_host_speed;

typedef struct fl_profiles {
  fl_host_profile *v; /* state profiles */
  size_t n;
  fl_host_speed *speed; /* speed profiles */
  size_t nspeed;
  /* link profiles (bandwidth_file, latency_file; taken out with take_speed): absolute values, bytes/s and s */
  fl_host_speed *link;
  int *link_latency; /* link[i] is a latency profile */
  size_t nlink;
  fl_host_profile *link_state; /* link state profiles (state_file on a <link>; taken out with take_speed) */
  size_t nlink_state;
  size_t kept; /* profiles left for SimGrid to play (*_file attributes not taken out, <trace> elements) */
} fl_profiles;

/* Read the platform `file`. When a host has a state_file (or, with take_speed, a speed_file), write the copy without
 * them to a temporary file that is already unlinked (*fd open on it; *load_path names it through /proc/self/fd) and
 * fill *out. Without any, *fd is -1 and *load_path is a copy of `file`. Bad XML or profile: FL_ERR_INPUT naming the
 * file and line. */
fl_err fl_profiles_prepare(const char *file, int take_speed, char **load_path, int *fd, fl_profiles *out);
void fl_profiles_free(fl_profiles *p);
/* The profile of `host`, or NULL. */
const fl_host_profile *fl_profiles_find(const fl_profiles *p, const char *host);

/* Parse one SimGrid state profile (`label` names it in errors) into *hp: "DATE VALUE" lines (value 0: off, any
 * other: on; a host starts on), '#' comments, and LOOPAFTER d (or PERIODICITY d): after the last event, wait d
 * and play the list again. */
fl_err fl_profiles_parse_state(const char *text, const char *label, fl_host_profile *hp);
/* Parse one SimGrid speed profile: "DATE VALUE" lines (value: the fraction of the host's speed, above 0), '#'
 * comments, LOOPAFTER d as for states. */
fl_err fl_profiles_parse_speed(const char *text, const char *label, fl_host_speed *hs);
/* The fraction of its speed the host runs at at time t (from the replica's start), and in *next the date it
 * changes next (INFINITY: never). */
double fl_host_speed_at(const fl_host_speed *hs, double t, double *next);
/* Which value holds at t: 0 the initial one, k >= 1 v[k - 1]; *next as above. */
size_t fl_profile_index_at(const fl_host_speed *hs, double t, double *next);

#endif
