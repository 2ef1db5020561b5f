/* sg_load.c — baseline for bench_sim_1m: what SimGrid alone needs to load a platform file, with the same
 * configuration faultline uses (cpu/optim:TI, no teardown). `sg_load FILE` parses the platform; `sg_load FILE
 * seal` also seals it (SimGrid does that at the first run: an empty simulation), the state in which a
 * platform can be simulated on. Leaves with _exit, as faultline does at this size. */
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
  char *sg_argv[] = {a0, a1, a2, a3, NULL};
  int sg_argc = 4;
  if (argc < 2) {
    fprintf(stderr, "usage: sg_load PLATFORM.xml [seal]\n");
    return 2;
  }
  simgrid_init(&sg_argc, sg_argv);
  simgrid_load_platform(argv[1]);
  if (argc > 2 && strcmp(argv[2], "seal") == 0) {
    sg_actor_create("noop", sg_host_by_name("controller"), fl_noop, 0, NULL);
    simgrid_run();
  }
  fflush(NULL);
  _exit(0);
}
