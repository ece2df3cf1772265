/* A population's environment step on the device (src/backend/pop_ops.h env_step): every
 * member's vectorised step in one launch, one thread an environment of a member, each doing
 * venv_step_env (env_drive.h) on that member's own buffers and market numbers, as the CPU
 * loop and the fused kernel do for one trial: a member's transitions are those of its
 * environments stepped alone. The members' buffers stay where their venvs made them; the
 * table (pop_kernels.h, struct pop_table's envs) holds each one's pointers, its market
 * parameters (spread, fees, barriers, reward settings may differ) and its split and seed. */
#include <stdlib.h>

#include "backend/counters.h"
#include "cuda_check.h"
#include "env/venv.h"
#include "fox_launch.h"
#include "pop_kernels.h"

/* Thread idx: environment idx % N of member idx / N. */
__global__ void pop_env_step_kernel(const struct pop_env *tab, int n, int N, int flip,
                                    int outputs) {
  POP_THREAD_((size_t)n * (size_t)N);
  const struct pop_env *m = &tab[idx / (size_t)N];
  struct venv_bufs b = m->b;
  b.states = outputs & VENV_STATES ? m->states[flip] : NULL;
  b.next_states = outputs & VENV_NEXT ? m->next_states : NULL;
  venv_step_env_regs(&m->p, &m->shape, m->prices, m->sigma, m->norm, &b, (int)(idx % (size_t)N));
}

static int upload_(struct pop_table *t, const struct pop_env *host, int n, struct fox_err *e) {
  size_t bytes = (size_t)n * sizeof *host;
  cudaCheck(cudaMalloc((void **)&t->envs, bytes), e);
  counters_alloc_ptr(t->envs, bytes);
  cudaCheck(cudaMemcpy(t->envs, host, bytes, cudaMemcpyHostToDevice), e);
  return 0;
}

/* The arrays a member's environments use, declared by every launch of the table
 * (pop_table_touch): the dataset's columns read, the environments' buffers written. */
static int touch_(struct pop_table *t, const struct pop_env *m, struct fox_err *e) {
  const struct venv_bufs *b = &m->b;
  const void *w[] = {b->env,         b->cur,     b->rs,      b->actions, b->rewards, b->dones,
                     b->labels,      b->bars,    m->states[0], m->states[1], m->next_states};
  for (size_t i = 0; i < sizeof w / sizeof *w; i++)
    FOX_TRY(pop_table_touch_add(t, w[i], 1, "a member's environments' buffers", e));
  const void *r[] = {m->prices, m->sigma, m->norm};
  for (size_t i = 0; i < sizeof r / sizeof *r; i++)
    FOX_TRY(pop_table_touch_add(t, r[i], 0, "the dataset's columns (a member's environments)", e));
  return 0;
}

int pop_env_put(struct pop_table *t, struct venv *const *envs, int n, struct fox_err *e) {
  int N = envs[0]->shape.num_envs;
  struct pop_env *host = (struct pop_env *)calloc((size_t)n, sizeof *host);
  if (!host)
    return fox_errf(e, FOX_EFAIL, "population: out of memory");
  for (int k = 0; k < n; k++) {
    const struct venv *v = envs[k];
    if (v->shape.num_envs != N) {
      free(host);
      return fox_errf(e, FOX_EUSAGE, "population: member %d steps %d environments, member 0 %d",
                      k, v->shape.num_envs, N);
    }
    struct pop_env *m = &host[k];
    m->p = v->p;
    m->shape = v->shape;
    m->b = venv_buffers(v, 0);
    m->states[0] = v->states, m->states[1] = v->states_prev;
    m->next_states = v->next_states;
    m->prices = v->data->prices, m->sigma = v->data->sigma, m->norm = v->data->states;
  }
  t->n = n, t->N = N;
  int rc = upload_(t, host, n, e);
  for (int k = 0; rc == 0 && k < n; k++)
    rc = touch_(t, &host[k], e);
  free(host);
  return rc;
}

int pop_env_step(void *table, const float *states, int outputs, struct fox_err *e) {
  struct pop_table *t = (struct pop_table *)table;
  int flip = 0;
  if (outputs & VENV_STATES) {
    flip = pop_table_flip(t, states, e);
    if (flip < 0)
      return e->code;
  }
  POP_LAUNCH_(t, pop_env_step_kernel, (size_t)t->n * (size_t)t->N, t->envs, t->n, t->N, flip,
              outputs);
  cudaCheckLaunch(e);
  return 0;
}
