/* A backend's population operations (train/pop.h): one launch per operation for every member
 * of a population, where the agents' own operations (agent_ops.h, net.h) take one member at a
 * time. A backend without them (the CPU: its loop over members costs nothing a launch would)
 * leaves struct backend's `pops` NULL, and the population loops over its members instead; both
 * give each member the update it would take alone. */
#ifndef FOX_POP_OPS_H
#define FOX_POP_OPS_H

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dqn;
struct ppo;
struct venv;

struct pop_ops {
  /* The device table of n DQN members of one shape (pop_shape_equal) and their environments,
   * in this order: their networks, rings, batches, clocks, environments' buffers and own
   * numbers (gamma, lr, max_grad_norm, tau, target_update, epsilon's schedule, seed). Made
   * outside any capture, with every member's environments at the same point (their state
   * buffers swap together); FOX_EUSAGE when their shapes differ. */
  int (*dqn_open)(struct dqn *const *members, struct venv *const *envs, int n, void **table,
                  struct fox_err *e);
  /* Every member's epsilon-greedy actions on its environments' states (dqn_act): hidden
   * layers + 1 launches. `states` is the first member's venv.states now. */
  int (*dqn_act)(void *table, const float *states, struct fox_err *e);
  /* Every member's vector step into its ring and its clock's tick (replay_store), one launch;
   * `states_prev` is the first member's venv.states_prev now (the states acted on). */
  int (*dqn_store)(void *table, const float *states_prev, struct fox_err *e);
  /* One gradient update of every member of the table: what src/agents/dqn.c's update does for
   * one (sample, targets, Huber, backward, clip, Adam, the target's blend when due, the loss
   * into the accumulator and the clock's update count), as 2 x hidden layers + 3 launches
   * for all of them; each member's floats are those of its update alone, whatever n. */
  int (*dqn_update)(void *table, struct fox_err *e);
  /* The same for PPO members and their environments: their networks, Adam's moments,
   * rollouts, minibatches, clocks, environments' buffers and own numbers (gamma, lambda,
   * clip, the loss's coefficients, max_grad_norm, the learning rate and its annealing, seed);
   * their epochs and minibatch rows are the shape's. */
  int (*ppo_open)(struct ppo *const *members, struct venv *const *envs, int n, void **table,
                  struct fox_err *e);
  /* Every member's ppo_act at rollout step t (actions sampled, the step's states, actions,
   * log-probabilities and values into the rollout): hidden layers + 1 launches. */
  int (*ppo_act)(void *table, const float *states, int t, struct fox_err *e);
  /* Every member's ppo_observe at step t but the update (V of the next states, the bootstrapped
   * rewards and dones into the rollout): hidden layers + 1 launches. */
  int (*ppo_observe)(void *table, int t, struct fox_err *e);
  /* Every member's ppo_update (the rollout full): V of the last states and GAE in hidden
   * layers + 1 launches, then each minibatch of each epoch in 2 x hidden layers + 4 (forwards
   * gathering from the rollout, the advantages' statistics, heads + loss + last deltas,
   * backward, the clip's lanes whose last thread sums the loss and prepares Adam, Adam), the
   * clock counting the rollout at the end. `states` is the first member's venv.states now
   * (the states after the last step). */
  int (*ppo_update)(void *table, const float *states, struct fox_err *e);
  /* Every member's environment step (venv_run for each) in one launch, on either table:
   * `states` is the first member's venv.states now (after venv_swap), `outputs` VENV_*. */
  int (*env_step)(void *table, const float *states, int outputs, struct fox_err *e);
  /* Waits for the work queued on a table, then frees it. */
  void (*close)(void *table);
};

extern const struct pop_ops pop_cuda_ops; /* CUDA builds (kernels/pop_table.cu) */

#ifdef __cplusplus
}
#endif

#endif
