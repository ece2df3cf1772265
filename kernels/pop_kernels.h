/* What the population kernels share (kernels/pop_dqn.cu, pop_ppo.cu; src/backend/pop_ops.h):
 * the table every population keeps on the device (one entry a member: its arrays and own
 * numbers), a thread's place in a launch over every member's items, and the dot products that
 * are these kernels' GEMMs (one thread an output element, its terms summed in order: the same
 * floats for a member alone or among others; no shared memory, so the layouts below keep a
 * warp's loads coalesced or broadcast). */
#ifndef FOX_POP_KERNELS_H
#define FOX_POP_KERNELS_H

#include <stddef.h>

#include "act_step.h"
#include "cuda_backend.h"
#include "env_drive.h"
#include "fox_launch.h"
#include "util/error.h"

/* One member's environments as the population's environment step reads them (pop_env.cu):
 * its buffers (b's states and next_states are chosen per launch), its two state buffers as
 * they were when the table was made, and its market and dataset. */
struct pop_env {
  struct market_params p;
  struct venv_shape shape;
  struct venv_bufs b;
  float *states[2], *next_states;
  const float *prices, *sigma, *norm;
};

/* An array a table's entries point to, which its launches declare (FOX_LAUNCH_TOUCH). */
struct pop_touch {
  const void *p;
  int write;
  const char *what; /* a string literal */
};

/* The table's head, first in each algorithm's table: its device arrays. */
struct pop_table {
  void *dev;     /* [n] entries of the algorithm's member struct */
  unsigned *done; /* [n * per]: counters of the last-to-finish pattern, zero between launches */
  /* Member 0's two state buffers when the table was made: every member's environments swap
   * theirs in step, so which one member 0's `states` is now says which each member's is. */
  const float *states0[2];
  struct pop_env *envs; /* [n] (pop_env_put) */
  int n, N;             /* members, environments a member */
  /* Host: every member's array the table points to, which each launch declares, so that
   * the emulation checks them as arguments (live, still the graph's) and its sanitizer sees
   * them (the dataset's columns read, the rest written). */
  struct pop_touch *touch;
  int ntouch, cap_touch;
};

/* The table's device arrays: n entries of `entry` bytes from host[], `per` counters each,
 * whose address goes into the entry's `unsigned *` at byte `done_at` (host is changed). */
int pop_table_put(struct pop_table *t, void *host, size_t entry, int n, int per, size_t done_at,
                  struct fox_err *e);
/* Which of the buffers (0 or 1: what states0 was) member 0's `states` is now; -1 and e when
 * neither (a table of other environments). */
int pop_table_flip(const struct pop_table *t, const float *states, struct fox_err *e);
/* Adds an array the table points to (NULL: nothing); FOX_EFAIL out of memory. */
int pop_table_touch_add(struct pop_table *t, const void *p, int write, const char *what,
                        struct fox_err *e);
/* Declares the table's arrays to the next launch (pop_table_touch_add; nothing under nvcc). */
static inline void pop_table_touch(const struct pop_table *t) {
  for (int i = 0; i < t->ntouch; i++)
    FOX_LAUNCH_TOUCH(t->touch[i].p, t->touch[i].write, t->touch[i].what);
}

/* A population kernel's launch over `threads` threads: the table's arrays declared, then the
 * kernel; followed by cudaCheckLaunch like FOX_LAUNCH. */
#define POP_LAUNCH_(hdr, kernel, threads, ...)                                                  \
  do {                                                                                          \
    pop_table_touch(hdr);                                                                       \
    FOX_LAUNCH(kernel, pop_grid(threads), FOX_CUDA_BLOCK, 0, 0, __VA_ARGS__);                   \
  } while (0)

/* The members' environments into t->envs, in the members' order: what pop_env_step reads. */
struct venv;
int pop_env_put(struct pop_table *t, struct venv *const *envs, int n, struct fox_err *e);
/* Every member's environment step (venv_run's device side) in one launch; `states` is member
 * 0's venv.states now (after venv_swap), `outputs` the mask of VENV_*. */
int pop_env_step(void *table, const float *states, int outputs, struct fox_err *e);
/* Waits for the work queued on it (a graph's), then frees it (and t, allocated by calloc). */
void pop_table_close(void *t);

static inline unsigned pop_grid(size_t n) {
  return (unsigned)((n + FOX_CUDA_BLOCK - 1) / FOX_CUDA_BLOCK);
}

#define POP_THREAD_(total)                                                                     \
  size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;                                  \
  if (idx >= (total))                                                                          \
  return

/* The operations of pop_ops.h (kernels/pop_dqn.cu, pop_ppo.cu). */
struct dqn;
struct ppo;
struct venv;
int pop_dqn_open(struct dqn *const *members, struct venv *const *envs, int n, void **table,
                 struct fox_err *e);
int pop_dqn_act(void *table, const float *states, struct fox_err *e);
int pop_dqn_store(void *table, const float *states_prev, struct fox_err *e);
int pop_dqn_update(void *table, struct fox_err *e);
int pop_ppo_open(struct ppo *const *members, struct venv *const *envs, int n, void **table,
                 struct fox_err *e);
int pop_ppo_act(void *table, const float *states, int t, struct fox_err *e);
int pop_ppo_observe(void *table, int t, struct fox_err *e);
int pop_ppo_update(void *table, const float *states, struct fox_err *e);

/* The layouts, so that a warp's loads are one line or one word: weights as mlp_layout.h keeps
 * them (W [out, in] row-major, then b), a hidden layer's activations feature-major (unit f of
 * row r at f * stride + r: consecutive rows' threads read consecutive words), deltas and
 * batches row-major. */

/* sum over f of w[f] x[f * stride], in order. */
__device__ static inline float pop_dot(const float *w, const float *x, size_t stride, int n) {
  float s = 0.0f;
  for (int f = 0; f < n; f++)
    s += w[f] * x[(size_t)f * stride];
  return s;
}

/* A layer's outputs [out] of a row h (h[f * stride], f < in), no activation: a head. */
__device__ static inline void pop_head(const float *W, const float *h, size_t stride, int in,
                                       int out, float *y) {
  for (int o = 0; o < out; o++)
    y[o] = pop_dot(W + (size_t)o * in, h, stride, in) + W[(size_t)out * in + o];
}

/* dW [o, in] = sum over the batch of d [b, o] (row-major) x [b, in] (x_i[f] at x[i * xr +
 * f * xf]: a batch row-major, activations feature-major), db [o] = sum of d: element `e` of
 * the in * o + o, unit j fastest (a warp: consecutive units of one input, d coalesced, x
 * broadcast); written to g as mlp_layout.h keeps it. */
__device__ static inline void pop_grad_elem(const float *d, const float *x, size_t xr, size_t xf,
                                            int b, int in, int o, size_t e, float *g) {
  float s = 0.0f;
  if (e < (size_t)o * in) {
    int f = (int)(e / o), j = (int)(e % o);
    for (int i = 0; i < b; i++)
      s += d[(size_t)i * o + j] * x[(size_t)i * xr + (size_t)f * xf];
    g[(size_t)j * in + f] = s;
  } else {
    int j = (int)(e - (size_t)o * in);
    for (int i = 0; i < b; i++)
      s += d[(size_t)i * o + j];
    g[(size_t)o * in + j] = s;
  }
}

/* The delta of input f of a row below a layer of o outputs: the activation's backward at the
 * row's h of that input, of sum over j of W [j, f] d [j] (W [o, in] row-major, d the row's
 * delta [o]). */
__device__ static inline float pop_delta(const float *W, const float *d, int in, int o, int f,
                                         float h, int act) {
  float s = 0.0f;
  for (int j = 0; j < o; j++)
    s += W[(size_t)j * in + f] * d[j];
  return fox_act_back(act, h, s);
}

#endif
