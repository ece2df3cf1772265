/* Vectorised training environments: N copies of the market over the train split, stepped
 * together with one batch of actions; the same calls on every backend (DESIGN.md s5). */
#ifndef FOX_VENV_H
#define FOX_VENV_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "env_drive.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything but `be`, `data`, `p` and `shape` lives in the backend's memory. */
struct venv {
  const struct backend *be;
  const struct device_dataset *data;
  struct market_params p;
  struct venv_shape shape;
  struct env_state *env;
  struct env_cursor *cur;
  struct reward_stats *rstats;
  uint8_t *actions;   /* [N]: the step's actions (venv_step may copy host ones in) */
  float *states;      /* [N, nfeat + 3]: what to act on next */
  float *states_prev; /* [N, nfeat + 3]: what the last VENV_STATES step acted on (swapped in) */
  int32_t *bars;      /* [N]: the bar states_prev showed; the next state is bar + 1's */
  float *next_states; /* [N, nfeat + 3]: the state each step reached, before any reset */
  float *rewards;
  uint8_t *dones; /* FOX_DONE_TERMINAL | FOX_DONE_TRUNCATED, 0 otherwise */
  int8_t *labels;
};

int venv_create(struct venv *v, const struct backend *be, const struct device_dataset *data,
                const struct market_params *p, int num_envs, int episode_bars, int64_t split_b,
                int64_t split_e, uint64_t seed, struct fox_err *e);
/* Every environment starts its first episode; states are ready to read. */
int venv_reset(struct venv *v, struct fox_err *e);
/* What a step writes besides rewards, dones and labels. */
enum { VENV_STATES = 1, VENV_NEXT = 2 };
/* One step with host actions (N values 0/1/2), or with v->actions as the agent left them
 * (actions NULL: nothing crosses to the device); `outputs` is a mask of VENV_*. With
 * VENV_STATES the states acted on move to states_prev (a pointer swap). */
int venv_step(struct venv *v, const uint8_t *actions, int outputs, struct fox_err *e);
/* venv_step's two sides with the agent's actions: the host's (with VENV_STATES, the states
 * acted on move to states_prev: a pointer swap) and the backend's (the step itself). A
 * replayed graph did the second: the host still does the first. */
void venv_swap(struct venv *v, int outputs);
int venv_run(struct venv *v, int outputs, struct fox_err *e);
/* The buffers a step with `outputs` reads and writes, for a backend's env_step
 * (venv_step_env per environment, with the dataset's columns). */
struct venv_bufs venv_buffers(const struct venv *v, int outputs);
/* Puts states [N, nfeat + 3] back (a checkpoint restored). */
int venv_write_states(struct venv *v, const float *states, struct fox_err *e);
/* Copies the latest batch to the host; any pointer may be NULL. */
int venv_read(const struct venv *v, float *states, float *next_states, float *rewards,
              uint8_t *dones, int8_t *labels, struct fox_err *e);
/* The per-environment portfolio, cursor and reward statistics, for tests and checkpoints;
 * any pointer may be NULL. */
int venv_read_env(const struct venv *v, struct env_state *env, struct env_cursor *cur,
                  struct fox_err *e);
int venv_read_rstats(const struct venv *v, struct reward_stats *rs, struct fox_err *e);
/* Puts them back (a checkpoint restored): the next step continues from there. */
int venv_write_env(struct venv *v, const struct env_state *env, const struct env_cursor *cur,
                   const struct reward_stats *rs, struct fox_err *e);
void venv_free(struct venv *v);

#ifdef __cplusplus
}
#endif

#endif
