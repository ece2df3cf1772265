/* The two ways bars are driven through env_bar: a whole action sequence over [b, e) (the
 * backtest and the portfolio simulator, one thread per sequence), and one vectorised training
 * step of many environments (the fused experience step, one thread per environment). */
#ifndef FOX_ENV_DRIVE_H
#define FOX_ENV_DRIVE_H

#include <stddef.h>
#include <stdint.h>

#include "env_step.h"
#include "fox_hd.h"
#include "metrics_step.h"
#include "rng_step.h"

/* Optional per-bar outputs of a sequence, indexed 0 .. e-b-1 (NULL: not written). */
struct seq_out {
  double *equity;
  uint8_t *position;
  int8_t *labels;
  float *rewards; /* unscaled: log equity ratio plus/minus bonus */
  float *pf;      /* [n, 3] portfolio features */
};

FOX_HD static inline void seq_write_(const struct market_params *p, const struct env_state *s,
                                     const struct seq_out *o, size_t i, int32_t k, float close,
                                     const struct bar_event *ev) {
  if (o->equity)
    o->equity[i] = s->equity;
  if (o->position)
    o->position[i] = s->units > 0.0;
  if (o->labels)
    o->labels[i] = (int8_t)ev->label;
  if (o->rewards)
    o->rewards[i] = (float)ev->reward;
  if (o->pf)
    env_portfolio_features(p, s, k, close, o->pf + 3 * i);
}

/* `sigma` is the ewm_vol column on its own (device_dataset.sigma): the step reads one float of
 * a bar's 51, and a compact column keeps that read in cache (2.2x faster on a CPU core). */

/* Runs actions[0 .. e-b-2] over bars b+1 .. e-1 (action i decided after bar b+i's close) from
 * initial capital, closing any position at the last bar. `acc` may be NULL. */
FOX_HD static inline void env_run_sequence(const struct market_params *p, const float *prices,
                                           const float *sigma, int32_t b, int32_t e,
                                           const uint8_t *actions, struct seq_out o,
                                           struct metrics_acc *acc, struct env_state *final_s) {
  struct env_state s;
  env_portfolio_reset(p, &s);
  struct bar_event none = {0.0, FOX_LABEL_NONE, 0, 0.0};
  seq_write_(p, &s, &o, 0, b, prices[4 * (size_t)b + 3], &none);
  if (acc)
    metrics_begin(acc, s.equity);
  for (int32_t k = b + 1; k < e; k++) {
    const float *px = prices + 4 * (size_t)k;
    struct bar_event ev = env_bar(p, &s, actions[k - b - 1], k, px, sigma[k - 1], k == e - 1);
    seq_write_(p, &s, &o, (size_t)(k - b), k, px[3], &ev);
    if (acc)
      metrics_add_bar(acc, s.equity, s.units > 0.0, &ev);
  }
  if (final_s)
    *final_s = s;
}

/* Where an environment is: its current bar t (the state it shows is after t's close), the last
 * bar of its episode, and how many episodes it has started. */
struct env_cursor {
  int32_t t, end;
  uint32_t episode, pad_;
};

/* The vectorised environments' layout: training split [split_b, split_e), episode length. */
struct venv_shape {
  int32_t split_b, split_e, episode_bars, num_envs;
  uint64_t seed;
};

/* A new episode at a uniformly random bar of the split, from the (seed, env, episode) hash. */
FOX_HD static inline void env_episode_start(const struct market_params *p,
                                            const struct venv_shape *v, int env,
                                            struct env_state *s, struct env_cursor *c) {
  uint32_t span = (uint32_t)(v->split_e - 1 - v->split_b); /* starts in [b, e-2] */
  uint64_t h = fox_mix3(v->seed, (uint64_t)env, (uint64_t)c->episode);
  c->t = v->split_b + (int32_t)(h % span);
  int32_t end = c->t + v->episode_bars;
  c->end = end < v->split_e - 1 ? end : v->split_e - 1;
  env_portfolio_reset(p, s);
}

/* One training step of environment `env`: bar t+1 under `action`, the shaped reward, the done
 * flag (terminal below 1% of capital, truncated at the episode's last bar), the next state
 * before any reset (when next_out is given), and the state to act on after it (when state_out
 * is given: an agent may as well read the shared normalised features and the portfolio). */
FOX_HD static inline void env_fused_step(const struct market_params *p,
                                         const struct venv_shape *v, int env,
                                         struct env_state *s, struct env_cursor *c,
                                         struct reward_stats *rs, int action,
                                         const float *prices, const float *sigma,
                                         const float *norm, float *state_out, float *next_out,
                                         float *reward_out, uint8_t *done_out,
                                         int8_t *label_out) {
  int32_t k = c->t + 1;
  const float *px = prices + 4 * (size_t)k;
  struct bar_event ev = env_bar(p, s, action, k, px, sigma[c->t], 0);
  *reward_out = (float)env_reward_shape(p, rs, ev.reward);
  *label_out = (int8_t)ev.label;
  uint8_t done = s->equity < 0.01 * p->initial_capital ? FOX_DONE_TERMINAL
                 : k >= c->end                          ? FOX_DONE_TRUNCATED
                                                        : 0;
  *done_out = done;
  if (next_out)
    env_observe(p, s, k, norm + (size_t)k * (size_t)p->nfeat, px[3], next_out);
  c->t = k;
  if (done) {
    c->episode += 1;
    env_episode_start(p, v, env, s, c);
  }
  if (state_out)
    env_observe(p, s, c->t, norm + (size_t)c->t * (size_t)p->nfeat, prices[4 * (size_t)c->t + 3],
                state_out);
}

/* One vectorised step's buffers (struct venv's, in the backend's memory); `states` and
 * `next_states` NULL when the step does not write them. The dataset's columns travel apart:
 * a kernel's const pointer arguments, which the emulation's sanitizer sees as reads (it takes
 * an address inside a struct argument for a write), so trials sharing a dataset on other
 * streams are not a race. */
struct venv_bufs {
  struct env_state *env;
  struct env_cursor *cur;
  struct reward_stats *rs;
  const uint8_t *actions;
  float *states, *next_states, *rewards;
  uint8_t *dones;
  int8_t *labels;
  int32_t *bars;
};

/* Environment `i` of a vectorised step: the bar its state showed, then env_fused_step on its
 * own portfolio, cursor and reward statistics, in place (the CPU loop: copies in and out cost
 * it a third of its rate on the step without outputs). */
FOX_HD static inline void venv_step_env(const struct market_params *p,
                                        const struct venv_shape *v, const float *prices,
                                        const float *sigma, const float *norm,
                                        const struct venv_bufs *b, int i) {
  b->bars[i] = b->cur[i].t;
  env_fused_step(p, v, i, &b->env[i], &b->cur[i], &b->rs[i], b->actions[i], prices, sigma, norm,
                 b->states ? b->states + (size_t)i * (size_t)FOX_STATE_DIM(p) : NULL,
                 b->next_states ? b->next_states + (size_t)i * (size_t)FOX_STATE_DIM(p) : NULL,
                 &b->rewards[i], &b->dones[i], &b->labels[i]);
}

/* The same through registers: a device thread loads its environment's state once and stores
 * it once (the fused kernel and the population's). */
FOX_HD static inline void venv_step_env_regs(const struct market_params *p,
                                             const struct venv_shape *v, const float *prices,
                                             const float *sigma, const float *norm,
                                             const struct venv_bufs *b, int i) {
  struct env_state s = b->env[i];
  struct env_cursor c = b->cur[i];
  struct reward_stats r = b->rs[i];
  b->bars[i] = c.t;
  env_fused_step(p, v, i, &s, &c, &r, b->actions[i], prices, sigma, norm,
                 b->states ? b->states + (size_t)i * (size_t)FOX_STATE_DIM(p) : NULL,
                 b->next_states ? b->next_states + (size_t)i * (size_t)FOX_STATE_DIM(p) : NULL,
                 &b->rewards[i], &b->dones[i], &b->labels[i]);
  b->env[i] = s;
  b->cur[i] = c;
  b->rs[i] = r;
}

#endif
