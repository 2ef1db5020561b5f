/* sg_load.c — baseline for the 1M-host benchmarks: what SimGrid alone needs to load a platform file. `sg_load FILE`
 * parses it with the configuration faultline uses for generated platforms (cpu/optim:TI, no teardown); `seal`
 * also seals it (SimGrid does that at the first run: an empty simulation), the state in which a platform can be
 * simulated on; `--host=NAME` runs that empty simulation's actor on NAME (default `controller`); `--default-cpu`
 * keeps SimGrid's default CPU model, as faultline does for a user's platform file. Leaves with _exit, as faultline
 * does at this size. */
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void fl_noop(int argc, char **argv)
{
  (void)argc;
  (void)argv;
}

int main(int argc, char **argv)
{
  char a0[] = "sg_load", a1[] = "--cfg=cpu/optim:TI", a2[] = "--log=root.thresh:warning",
       a3[] = "--cfg=debug/clean-atexit:0";
  char *sg_argv[] = {a0, a2, a3, NULL, NULL};
  int sg_argc = 3, seal = 0, ti = 1;
  const char *host = "controller";
  if (argc < 2) {
    fprintf(stderr, "usage: sg_load PLATFORM.xml [seal] [--host=NAME] [--default-cpu]\n");
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "seal") == 0)
      seal = 1;
    else if (strncmp(argv[i], "--host=", 7) == 0)
      host = argv[i] + 7;
    else if (strcmp(argv[i], "--default-cpu") == 0)
      ti = 0;
  }
  if (ti)
    sg_argv[sg_argc++] = a1;
  simgrid_init(&sg_argc, sg_argv);
  simgrid_load_platform(argv[1]);
  if (seal) {
    sg_actor_create("noop", sg_host_by_name(host), fl_noop, 0, NULL);
    simgrid_run();
  }
  fflush(NULL);
  _exit(0);
}
