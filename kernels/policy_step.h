/* The greedy policy over a split, bar by bar, for the evaluations: the portfolio it builds is
 * part of the next bar's state, so the bars run in order; within a bar the network's units are
 * independent. A unit's arithmetic is one function (policy_unit: a float dot product in input
 * order, no FMA, then bias and activation) that a CUDA block's threads share out
 * (kernels/agent_kernels.cu) and the CPU backend vectorises across units
 * (src/backend/cpu_agents.c), so both give the same actions bit for bit. */
#ifndef FOX_POLICY_STEP_H
#define FOX_POLICY_STEP_H

#include <stddef.h>
#include <stdint.h>

#include "act_step.h"
#include "dqn_step.h"
#include "fox_hd.h"

#define FOX_POLICY_MAX_LAYERS 9 /* FOX_MAX_LAYERS hidden layers + the head */

/* A network as the backend holds it (mlp_layout.h's layout), by value for a kernel. */
struct policy_dev {
  const float *w;
  int n_layers, act, dueling; /* dueling: 4 outputs, Q = V + A - mean(A) */
  int dims[FOX_POLICY_MAX_LAYERS + 1];
  size_t offset[FOX_POLICY_MAX_LAYERS];
};

/* One greedy evaluation (agent_ops.h greedy_eval): the policy `pol` under market `p` over bars
 * [b, e) of the dataset from initial capital, each action decided on the state (the bar's
 * normalised features and the portfolio so far) after that bar's close; its actions [e - b]
 * land in `actions` (host). */
struct eval_job {
  struct market_params p;
  struct policy_dev pol;
  int32_t b, e;
  uint8_t *actions;
};

/* Unit o of layer l from its inputs. */
FOX_HD static inline float policy_unit(const struct policy_dev *pol, int l, int o,
                                       const float *in) {
  int n = pol->dims[l];
  const float *w = pol->w + pol->offset[l], *row = w + (size_t)o * (size_t)n;
  float acc = 0.0f;
  for (int i = 0; i < n; i++)
    acc += row[i] * in[i];
  float v = acc + w[(size_t)pol->dims[l + 1] * (size_t)n + (size_t)o];
  return l < pol->n_layers - 1 ? fox_act(pol->act, v) : v;
}

/* The action from the head's outputs: argmax Q (through the dueling head) or argmax logits;
 * ties take the lowest action. */
FOX_HD static inline int policy_action(const struct policy_dev *pol, const float *out) {
  if (!pol->dueling)
    return dqn_argmax3(out);
  float q[FOX_NACTIONS];
  dqn_dueling_row(out, q);
  return dqn_argmax3(q);
}

#endif
