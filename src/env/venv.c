/* Vectorised environments on any backend: memory through the backend table, the step through
 * its env_step (the fused kernel on CUDA, an OpenMP loop on the CPU). */
#include "env/venv.h"

#include <string.h>

int venv_create(struct venv *v, const struct backend *be, const struct device_dataset *data,
                const struct market_params *p, int num_envs, int episode_bars, int64_t split_b,
                int64_t split_e, uint64_t seed, struct fox_err *e) {
  memset(v, 0, sizeof *v);
  if (num_envs < 1)
    return fox_errf(e, FOX_EUSAGE, "env.num_envs must be >= 1, got %d", num_envs);
  if (episode_bars < 1)
    return fox_errf(e, FOX_EUSAGE, "env.episode_bars must be >= 1, got %d", episode_bars);
  if (!(p->reward_scale > 0))
    return fox_errf(e, FOX_EUSAGE, "reward.scale %g: auto must be resolved for the dataset "
                                   "(trial_resolve_reward) before environments are made",
                    p->reward_scale);
  if (split_b < 0 || split_e > (int64_t)data->n || split_e - split_b < 2)
    return fox_errf(e, FOX_EDATA, "training split [%lld, %lld) needs at least 2 bars",
                    (long long)split_b, (long long)split_e);
  v->be = be;
  v->data = data;
  v->p = *p;
  v->p.nfeat = data->nfeat; /* the states are the dataset's selection */
  v->shape = (struct venv_shape){(int32_t)split_b, (int32_t)split_e, episode_bars, num_envs,
                                 seed};
  size_t n = (size_t)num_envs;
  void **bufs[] = {(void **)&v->env,    (void **)&v->cur,     (void **)&v->rstats,
                   (void **)&v->actions, (void **)&v->states, (void **)&v->next_states,
                   (void **)&v->rewards, (void **)&v->dones,  (void **)&v->labels,
                   (void **)&v->states_prev, (void **)&v->bars};
  size_t sizes[] = {n * sizeof(struct env_state), n * sizeof(struct env_cursor),
                    n * sizeof(struct reward_stats), n, n * (size_t)FOX_STATE_DIM(&v->p) * sizeof(float),
                    n * (size_t)FOX_STATE_DIM(&v->p) * sizeof(float), n * sizeof(float), n, n,
                    n * (size_t)FOX_STATE_DIM(&v->p) * sizeof(float), n * sizeof(int32_t)};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    *bufs[i] = be->mem_alloc(sizes[i], e);
    if (!*bufs[i]) {
      venv_free(v);
      return e->code ? e->code : FOX_EFAIL;
    }
  }
  return 0;
}

int venv_reset(struct venv *v, struct fox_err *e) { return v->be->env_reset(v, e); }

void venv_swap(struct venv *v, int outputs) {
  if (outputs & VENV_STATES) {
    float *t = v->states;
    v->states = v->states_prev;
    v->states_prev = t;
  }
}

int venv_run(struct venv *v, int outputs, struct fox_err *e) {
  return v->be->env_step(v, outputs, e);
}

int venv_step(struct venv *v, const uint8_t *actions, int outputs, struct fox_err *e) {
  if (actions)
    FOX_TRY(v->be->mem_h2d(v->actions, actions, (size_t)v->shape.num_envs, e));
  venv_swap(v, outputs);
  return venv_run(v, outputs, e);
}

struct venv_bufs venv_buffers(const struct venv *v, int outputs) {
  return (struct venv_bufs){v->env,
                            v->cur,
                            v->rstats,
                            v->actions,
                            outputs & VENV_STATES ? v->states : NULL,
                            outputs & VENV_NEXT ? v->next_states : NULL,
                            v->rewards,
                            v->dones,
                            v->labels,
                            v->bars};
}

int venv_write_states(struct venv *v, const float *states, struct fox_err *e) {
  return v->be->mem_h2d(v->states, states,
                        (size_t)v->shape.num_envs * (size_t)FOX_STATE_DIM(&v->p) * sizeof(float), e);
}

int venv_read(const struct venv *v, float *states, float *next_states, float *rewards,
              uint8_t *dones, int8_t *labels, struct fox_err *e) {
  size_t n = (size_t)v->shape.num_envs;
  const struct backend *be = v->be;
  if (states)
    FOX_TRY(be->mem_d2h(states, v->states, n * (size_t)FOX_STATE_DIM(&v->p) * sizeof(float), e));
  if (next_states)
    FOX_TRY(be->mem_d2h(next_states, v->next_states, n * (size_t)FOX_STATE_DIM(&v->p) * sizeof(float), e));
  if (rewards)
    FOX_TRY(be->mem_d2h(rewards, v->rewards, n * sizeof(float), e));
  if (dones)
    FOX_TRY(be->mem_d2h(dones, v->dones, n, e));
  if (labels)
    FOX_TRY(be->mem_d2h(labels, v->labels, n, e));
  return 0;
}

int venv_read_env(const struct venv *v, struct env_state *env, struct env_cursor *cur,
                  struct fox_err *e) {
  size_t n = (size_t)v->shape.num_envs;
  if (env)
    FOX_TRY(v->be->mem_d2h(env, v->env, n * sizeof *env, e));
  if (cur)
    FOX_TRY(v->be->mem_d2h(cur, v->cur, n * sizeof *cur, e));
  return 0;
}

int venv_read_rstats(const struct venv *v, struct reward_stats *rs, struct fox_err *e) {
  return v->be->mem_d2h(rs, v->rstats, (size_t)v->shape.num_envs * sizeof *rs, e);
}

int venv_write_env(struct venv *v, const struct env_state *env, const struct env_cursor *cur,
                   const struct reward_stats *rs, struct fox_err *e) {
  size_t n = (size_t)v->shape.num_envs;
  if (env)
    FOX_TRY(v->be->mem_h2d(v->env, env, n * sizeof *env, e));
  if (cur)
    FOX_TRY(v->be->mem_h2d(v->cur, cur, n * sizeof *cur, e));
  if (rs)
    FOX_TRY(v->be->mem_h2d(v->rstats, rs, n * sizeof *rs, e));
  return 0;
}

void venv_free(struct venv *v) {
  if (!v->be)
    return;
  void *bufs[] = {v->env,     v->cur,         v->rstats,  v->actions, v->states,
                  v->next_states, v->rewards, v->dones,   v->labels, v->states_prev,
                  v->bars};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (bufs[i])
      v->be->mem_free(bufs[i]);
  memset(v, 0, sizeof *v);
}
