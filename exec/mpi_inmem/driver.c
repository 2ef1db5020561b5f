/* driver.c — see driver.h. */
#include "driver.h"

#include "imc.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fl_driver_maybe_die(const fl_rt *rt, const fl_driver_config *c, long k, double t_start)
{
  for (int i = 0; i < c->nkill; i++)
    if (c->kill_rank[i] == rt->wrank && c->kill_iter[i] == k)
      kill(getpid(), SIGKILL);
  if (c->fail_at_s >= 0 && fl_rt_now() - t_start >= c->fail_at_s)
    kill(getpid(), SIGKILL);
}

static int fl_driver_checkpoint(const fl_mpi_app_ops *ops, void *app, fl_imc *imc)
{
  int rc;
  ops->pack(app, fl_imc_buffer(imc));
  if ((rc = fl_imc_start(imc, ops->iteration(app))) != FL_RT_OK)
    return rc;
  return fl_imc_commit(imc);
}

void fl_driver_run(fl_rt *rt, const fl_mpi_app_ops *ops, void *app, const fl_driver_config *cfg, fl_driver_result *res)
{
  const double t_start = fl_rt_now();
  size_t bytes = ops->checkpoint_bytes(app);
  fl_imc *imc = fl_imc_create(rt, bytes, 0);
  unsigned char *restored = malloc(bytes ? bytes : 1);
  int rc = FL_RT_OK, need_init = 1;

  memset(res, 0, sizeof *res);
  res->status = "idle";
  if (!imc || !restored) {
    res->status = "lost";
    snprintf(res->message, sizeof res->message, "out of memory");
    goto done;
  }
  if (rt->role >= 0)
    ops->set_role(app);
  for (;;) {
    if (rt->role < 0) {
      if (fl_rt_spare_wait(rt) == FL_RT_DONE)
        goto done;
    } else {
      if (need_init) {
        rc = ops->init(app);
        if (rc == FL_RT_OK && cfg->checkpoint_every > 0)
          rc = fl_driver_checkpoint(ops, app, imc);
        need_init = rc != FL_RT_OK;
      }
      while (rc == FL_RT_OK && !ops->finished(app)) {
        fl_driver_maybe_die(rt, cfg, ops->iteration(app), t_start);
        rc = ops->step(app);
        fl_rt_heartbeat(rt);
        if (rc == FL_RT_OK && cfg->checkpoint_every > 0 && ops->iteration(app) % cfg->checkpoint_every == 0)
          rc = fl_driver_checkpoint(ops, app, imc);
      }
      if (rc == FL_RT_OK) {
        res->status = "ended";
        goto done;
      }
    }
    /* a failure: agree, promote, restore */
    {
      long versions[2] = {-1, -1};
      if (cfg->checkpoint_every > 0)
        fl_imc_versions(imc, versions);
      rc = fl_rt_recover(rt, versions);
      if (rc == FL_RT_LOST) {
        res->status = "lost";
        snprintf(res->message, sizeof res->message, "%s", rt->lost_msg);
        goto done;
      }
      if (rc != FL_RT_OK) {
        res->status = "dead";
        snprintf(res->message, sizeof res->message, "declared dead by the other ranks");
        goto done;
      }
      if (rt->role < 0)
        continue; /* still a spare */
      if (rt->promoted)
        ops->set_role(app);
      if (rt->agreed_version < 0 && rt->ndead == 0) {
        need_init = 1; /* a false alarm before any checkpoint: every role is alive, start over */
        continue;
      }
      rc = fl_imc_restore(imc, restored);
      if (rc == FL_RT_LOST) {
        res->status = "lost";
        snprintf(res->message, sizeof res->message, "checkpoint version %ld not found", rt->agreed_version);
        goto done;
      }
      if (rc != FL_RT_OK)
        continue; /* another failure during the restore: recover again */
      ops->unpack(app, restored);
      need_init = 0;
      rc = fl_imc_start_copy(imc, restored, ops->iteration(app)); /* mirrors again (a promoted spare has none) */
      if (rc == FL_RT_OK)
        rc = fl_imc_commit(imc);
    }
  }
done:
  res->commits = imc ? fl_imc_commits(imc) : 0;
  res->ckpt_bytes = imc ? fl_imc_bytes(imc) : 0;
  res->commit_s = imc ? fl_imc_commit_s(imc) : 0;
  res->wall_s = fl_rt_now() - t_start;
  fl_imc_destroy(&imc);
  free(restored);
}
