/* cuda.c — the "cuda" TMR backend's entry in the registry: an ops table over cuda_impl.cu.
 *
 * The entry exists in every build, so that the registry, `faultline tmr --backend cuda` and the conformance test
 * see the same list everywhere; in a build without CUDA its probe answers "not compiled in" and "auto" moves on
 * to the CPU. The table is C (designated initializers); the device code is CUDA C++ behind cuda_impl.h. */
#include "fl_config.h"
#include "tmr_impl.h"

#include <stdio.h>

#if FL_HAVE_CUDA
#include "cuda_impl.h"

static int fl_tmr_cu_probe(char *why, size_t len)
{
  return fl_tmr_cuda_probe(why, len);
}

static fl_err fl_tmr_cu_create(const fl_tmr_config *cfg, void **state)
{
  fl_err rc = FL_OK;
  fl_tmr_cuda *c = NULL;
  FL_TRY(fl_tmr_cuda_create(&c, cfg->chunk_items));
  *state = c;
done:
  return rc;
}

static void fl_tmr_cu_destroy(void **state)
{
  fl_tmr_cuda *c = state ? *state : NULL;
  fl_tmr_cuda_destroy(&c);
  if (state)
    *state = NULL;
}

static int fl_tmr_cu_auto(void *state, const fl_tmr_kernel_def *k, int nk)
{
  return fl_tmr_cuda_auto_concurrent(state, k, nk);
}

static fl_err fl_tmr_cu_attempt(void *state, const fl_tmr_kernel_def *k, int nk, const fl_tmr_exec *exec,
                                fl_tmr_tally *tally)
{
  return fl_tmr_cuda_attempt(state, k, nk, exec, tally);
}
static fl_err fl_tmr_cu_plain(void *state, const fl_tmr_kernel_def *k, int nk, void *stream)
{
  return fl_tmr_cuda_plain(state, k, nk, stream);
}
static fl_err fl_tmr_cu_builtin(void *state, const fl_tmr_task *task, fl_tmr_kernel_def *def)
{
  return fl_tmr_cuda_builtin(state, task, def);
}
static fl_err fl_tmr_cu_builtin_finish(void *state, const fl_tmr_task *task)
{
  return fl_tmr_cuda_builtin_finish(state, task);
}

const fl_tmr_backend_ops fl_tmr_cuda_ops = {
    .name = "cuda",
    .probe = fl_tmr_cu_probe,
    .create = fl_tmr_cu_create,
    .destroy = fl_tmr_cu_destroy,
    .auto_concurrent = fl_tmr_cu_auto,
    .attempt = fl_tmr_cu_attempt,
    .plain = fl_tmr_cu_plain,
    .builtin = fl_tmr_cu_builtin,
    .builtin_finish = fl_tmr_cu_builtin_finish,
};

#else

static int fl_tmr_cu_probe(char *why, size_t len)
{
  if (why && len)
    snprintf(why, len, "not compiled in (this build has no CUDA: FL_WITH_CUDA=OFF or no nvcc at configure time)");
  return 0;
}

/* Never called: fl_tmr_create refuses a backend whose probe fails. */
static fl_err fl_tmr_cu_create(const fl_tmr_config *cfg, void **state)
{
  (void)cfg;
  (void)state;
  return fl_err_set(FL_ERR_INTERNAL, "tmr: the cuda backend is not compiled in");
}

const fl_tmr_backend_ops fl_tmr_cuda_ops = {
    .name = "cuda",
    .probe = fl_tmr_cu_probe,
    .create = fl_tmr_cu_create,
};

int fl_tmr_launch_cuda(const fl_tmr_launch *l, void *arg)
{
  (void)l;
  (void)arg;
  return -1;
}

#endif
