/* energy_plugin.c — an energy meter independent of faultline, for test_energy: SimGrid's own host energy plugin
 * (sg_host_energy_plugin_init) on a platform file, playing a schedule read from stdin, one line each:
 *
 *   busy T0 T1 HOST   HOST executes its speed x (T1 - T0) flops from T0 (one execution: all of a one-core host),
 *                     started then from the controller (a host turned off loses the actors it runs)
 *   off T0 T1 HOST    HOST is turned off at T0 and on again at T1
 *   end T             when to read the meter
 *
 * It prints the joules the plugin charged every host but `controller` from 0 to T (%.17g). No faultline code is
 * linked: the schedule comes from the test's own reading of the model, the joules from SimGrid.
 *
 * usage: energy_plugin PLATFORM.xml < schedule */
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/plugins/energy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct item {
  char kind[8];
  double t0, t1;
  char host[64];
} item;

static item *items;
static int nitems;
static double t_end = -1;

/* on the controller: a host that is turned off loses its actors, so the execution is started remotely when due */
static void busy_main(int argc, char **argv)
{
  const item *it = sg_actor_self_get_data();
  sg_host_t h = sg_host_by_name(it->host);
  sg_exec_t e;
  (void)argc;
  (void)argv;
  sg_actor_sleep_until(it->t0);
  e = sg_actor_exec_init(sg_host_get_speed(h) * (it->t1 - it->t0));
  sg_exec_set_host(e, h);
  sg_exec_start(e);
  sg_exec_wait(e);
}

static void off_main(int argc, char **argv)
{
  const item *it = sg_actor_self_get_data();
  sg_host_t h = sg_host_by_name(it->host);
  (void)argc;
  (void)argv;
  sg_actor_sleep_until(it->t0);
  sg_host_turn_off(h);
  sg_actor_sleep_until(it->t1);
  sg_host_turn_on(h);
}

static void meter_main(int argc, char **argv)
{
  size_t n = sg_host_count();
  sg_host_t *hosts = sg_host_list();
  double total = 0;
  (void)argc;
  (void)argv;
  sg_actor_sleep_until(t_end);
  for (size_t i = 0; i < n; i++)
    if (strcmp(sg_host_get_name(hosts[i]), "controller") != 0)
      total += sg_host_get_consumed_energy(hosts[i]);
  free(hosts);
  printf("%.17g\n", total);
}

int main(int argc, char **argv)
{
  char line[256];
  int cap = 0;
  sg_host_energy_plugin_init();
  simgrid_init(&argc, argv);
  if (argc != 2) {
    fprintf(stderr, "usage: energy_plugin PLATFORM.xml < schedule\n");
    return 2;
  }
  simgrid_load_platform(argv[1]);
  while (fgets(line, sizeof line, stdin)) {
    item it;
    memset(&it, 0, sizeof it);
    if (sscanf(line, "end %lf", &t_end) == 1)
      continue;
    if (sscanf(line, "%7s %lf %lf %63s", it.kind, &it.t0, &it.t1, it.host) != 4 || !sg_host_by_name(it.host) ||
        (strcmp(it.kind, "busy") != 0 && strcmp(it.kind, "off") != 0)) {
      fprintf(stderr, "energy_plugin: bad line: %s", line);
      return 2;
    }
    if (nitems == cap) {
      cap = cap ? 2 * cap : 64;
      items = realloc(items, (size_t)cap * sizeof *items);
      if (!items)
        return 1;
    }
    items[nitems++] = it;
  }
  if (t_end < 0) {
    fprintf(stderr, "energy_plugin: no 'end T' line\n");
    return 2;
  }
  for (int i = 0; i < nitems; i++) {
    int busy = strcmp(items[i].kind, "busy") == 0;
    sg_actor_t a = sg_actor_init(items[i].kind, sg_host_by_name("controller"));
    sg_actor_set_data(a, &items[i]);
    sg_actor_start(a, busy ? busy_main : off_main, 0, NULL);
  }
  {
    sg_actor_t m = sg_actor_init("meter", sg_host_by_name("controller"));
    sg_actor_start(m, meter_main, 0, NULL);
  }
  simgrid_run();
  free(items);
  return 0;
}
