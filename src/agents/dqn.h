/* DQN (DESIGN.md s7): online and target networks, replay, Huber loss, epsilon-greedy with a
 * linear decay, learning_starts / train_freq counted in transitions, hard target updates
 * counted in gradient updates, Double DQN and a dueling head as options. */
#ifndef FOX_DQN_H
#define FOX_DQN_H

#include <stddef.h>
#include <stdint.h>

#include "agents/net.h"
#include "agents/replay.h"
#include "backend/agent_ops.h"
#include "backend/backend.h"
#include "config/config.h"
#include "dqn_step.h"

struct dqn {
  struct dqn_config cfg;
  const struct backend *be;
  int out;    /* network outputs: 3 Q-values, or V and 3 advantages when dueling */
  int n_envs; /* the most states one act or Q call takes */
  int dim;    /* floats of a state: the market features, then the portfolio's */
  struct net online, target;
  struct replay rb;
  struct rng rng; /* the initial weights' draws */
  uint64_t seed;  /* the counter-based draws of acting and replay sampling (rng_step.h) */
  const float *data_states; /* the dataset's normalised rows in the backend (replay rebuilds) */
  struct dqn_eps eps;       /* epsilon's schedule over the run's transitions */
  /* Where training stands: the device's own (clk, backend memory, just past acc, which the
   * operations read and advance) and the host's mirrors, which decide how many updates a step
   * makes and go into checkpoints; agent_take holds them to each other. */
  struct dqn_clock *clk;
  long transitions, updates;
  double credit; /* transitions not yet paid for by an update (train_freq) */
  /* Backend scratch. Acting: q [n_envs, 3], raw [n_envs, 4]. A batch: bs holds its s then its
   * s' ([2 batch, dim]), so that Double DQN runs both through the online network in one
   * forward. acc: the losses of the updates since the last agent_take (agent_ops.h FOX_ACC_*). */
  float *q, *raw, *bs, *br, *bq, *bqo, *braw, *bdq, *bdraw, *coef;
  uint8_t *ba, *bterm;
  double *terms, *lanes, *acc;
};

/* The networks and buffers live in the backend `be`; data_states is its copy of the dataset's
 * normalised features (device_dataset.states), NULL for a policy that only acts (no ring);
 * total is the run's transitions (epsilon decays over eps_fraction of them). */
int dqn_create(struct dqn *d, const struct dqn_config *c, const struct backend *be, int n_envs,
               int nfeat, const float *data_states, long total, uint64_t seed,
               struct fox_err *e);
void dqn_free(struct dqn *d);
/* The exploration rate after t of `total` transitions: eps_start to eps_end over
 * eps_fraction * total, then flat. */
double dqn_epsilon(const struct dqn_config *c, long t, long total);
/* Q-values [n, 3] of states [n, dim] from the online network; n <= n_envs; backend arrays. */
int dqn_q(struct dqn *d, const float *states, int n, float *q, struct fox_err *e);
/* Epsilon-greedy actions for n states (backend arrays), epsilon at the clock's transitions. */
int dqn_act(struct dqn *d, const float *states, int n, uint8_t *actions, struct fox_err *e);
/* The host's side of a vector step of n transitions: its mirrors advanced (transitions, the
 * ring's position and fill, train_freq's credit, updates); returns the gradient updates the
 * step makes. */
int dqn_plan(struct dqn *d, int n);
/* ... and what a plan of `due` updates would return, from the mirrors as they stand (they do
 * not move): steps vector steps of n, due[k] for each. */
void dqn_plan_ahead(const struct dqn *d, int n, long steps, int *due);
/* The device's side: stores the step's transitions (backend arrays: s shown at bars[i], s2 at
 * bars[i] + 1, FOX_DONE_* flags), counts them on the clock and runs `due` gradient updates;
 * their losses go to d->acc. Reads nothing from the host's mirrors. */
int dqn_learn(struct dqn *d, int n, int due, const int32_t *bars, const float *s,
              const float *s2, const uint8_t *a, const float *r, const uint8_t *dones,
              struct fox_err *e);
/* Both sides: dqn_learn(dqn_plan()). */
int dqn_observe(struct dqn *d, int n, const int32_t *bars, const float *s, const float *s2,
                const uint8_t *a, const float *r, const uint8_t *dones, struct fox_err *e);
/* The host's mirrors onto the device's clock (a checkpoint restored). */
int dqn_clock_put(struct dqn *d, struct fox_err *e);

/* The target network follows the online one: a copy (tau 1) or target = tau online +
 * (1 - tau) target (SB3's soft update). */
int dqn_sync_target(struct dqn *d, struct fox_err *e);
/* The clock as a struct on the host's side, from the mirrors. */
struct dqn_clock dqn_clock_mirror(const struct dqn *d);

#endif
