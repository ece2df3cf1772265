/* What the population kernels share (kernels/pop_dqn.cu, pop_ppo.cu; src/backend/pop_ops.h):
 * the table every population keeps on the device (one entry a member: its arrays and own
 * numbers), a thread's place in a launch over every member's items, and the dot products that
 * are these kernels' GEMMs (each output one thread's sum of its terms in order, a register tile
 * of outputs a thread: the same floats for a member alone or among others; no shared memory,
 * so the layouts below keep a warp's loads coalesced, or broadcast where the warp's threads
 * share a tile's rows or units). */
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

/* Register tiles. The GEMMs' threads each compute a POP_TILE x POP_TILE block of outputs, so
 * that each value a thread loads serves POP_TILE multiply-adds instead of one: 2 x POP_TILE
 * loads a step for POP_TILE^2 of them, against 2 loads for 1 (pop_dot). On a GPU the loads,
 * not the arithmetic, bound a dot kernel that reads from L1 without shared memory (128 bytes a
 * clock an SM against 128 multiply-adds: bench_device_model's model). Each output is still one
 * thread's sum over its terms in order, so its bits are pop_dot's: the tile changes which
 * thread computes an output, not how. Out-of-range rows or units of an edge tile read a valid
 * one in their place (clamped) and are not stored, so the loops keep their constant bounds (the
 * tile stays in registers). */
#define POP_TILE 4

FOX_HD static inline int pop_cdiv(int a, int b) { return (a + b - 1) / b; }
FOX_HD static inline int pop_min(int a, int b) { return a < b ? a : b; }

/* s[q][u] += a[u][k * as] b[q][k * bs] for k < n, in order. */
__device__ static inline void pop_tile(float s[POP_TILE][POP_TILE], const float *const *a,
                                       size_t as, const float *const *b, size_t bs, int n) {
  for (int k = 0; k < n; k++) {
    float av[POP_TILE], bv[POP_TILE];
    for (int u = 0; u < POP_TILE; u++)
      av[u] = a[u][(size_t)k * as];
    for (int q = 0; q < POP_TILE; q++)
      bv[q] = b[q][(size_t)k * bs];
    for (int q = 0; q < POP_TILE; q++)
      for (int u = 0; u < POP_TILE; u++)
        s[q][u] += av[u] * bv[q];
  }
}

/* Where thread t's tile lies over two indices, r < R and j < o, the layout of every tiled
 * launch: r = t % RS + q RS (RS = ceil(R / POP_TILE): a warp's consecutive threads take
 * consecutive r, so a load along r is coalesced) and j = (t / RS) POP_TILE + u (a load along j
 * is broadcast to the warp when RS >= 32; with a smaller RS a warp spans 2 or more tiles of j).
 * A forward's r is a row and j a unit; a gradient's r a unit and j an input; a delta's r an
 * input and j a row. */
struct pop_span {
  int r[POP_TILE], j[POP_TILE]; /* clamped into [0, R) and [0, o) */
  int r0, j0, rs;               /* the first r and j, r's step */
  int R, o;
};
FOX_HD static inline size_t pop_span_threads(int R, int o) {
  return (size_t)pop_cdiv(R, POP_TILE) * (size_t)pop_cdiv(o, POP_TILE);
}
FOX_HD static inline struct pop_span pop_span_at(size_t t, int R, int o) {
  struct pop_span f;
  f.rs = pop_cdiv(R, POP_TILE);
  f.r0 = (int)(t % (size_t)f.rs), f.j0 = (int)(t / (size_t)f.rs) * POP_TILE;
  f.R = R, f.o = o;
  for (int q = 0; q < POP_TILE; q++) {
    f.r[q] = pop_min(f.r0 + q * f.rs, R - 1);
    f.j[q] = pop_min(f.j0 + q, o - 1);
  }
  return f;
}
/* Whether r[q] and j[u] of the tile are its own (not an edge's stand-in). */
FOX_HD static inline int pop_span_own(const struct pop_span *f, int q, int u) {
  return f->r0 + q * f->rs < f->R && f->j0 + u < f->o;
}
/* The tile's sums s[q][u] = sum over f < in of W[j_u, f] x_q[f * xs], x_q the tile's rows
 * (x[q]: row q's first element). */
__device__ static inline void pop_fwd_sum(const struct pop_span *f, const float *W, int in,
                                          const float *const *x, size_t xs,
                                          float s[POP_TILE][POP_TILE]) {
  const float *w[POP_TILE];
  for (int u = 0; u < POP_TILE; u++)
    w[u] = W + (size_t)f->j[u] * in;
  pop_tile(s, w, 1, x, xs, in);
}
/* Stores the tile's own outputs y[j * ys + r] = act(s[q][u] + b[j]) (W's bias after its
 * weights), feature-major. */
__device__ static inline void pop_fwd_put(const struct pop_span *f, const float *W, int in,
                                          int act, float s[POP_TILE][POP_TILE], float *y,
                                          size_t ys) {
  const float *bias = W + (size_t)f->o * in;
  for (int q = 0; q < POP_TILE; q++)
    for (int u = 0; u < POP_TILE; u++)
      if (pop_span_own(f, q, u))
        y[(size_t)f->j[u] * ys + f->r[q]] = fox_act(act, s[q][u] + bias[f->j[u]]);
}

/* A layer's gradients: dW [o, in] = sum over the batch of d [b, o] (row-major) x [b, in]
 * (x_i[f] at x[i * xr + f * xf]: a batch row-major, activations feature-major), db [o] = sum
 * of d, written to g as mlp_layout.h keeps them; thread t of pop_grad_threads(in, o): a tile
 * of units (pop_span's r: d's loads coalesced) and inputs (its j: x broadcast), then o
 * threads of one bias each. */
FOX_HD static inline size_t pop_grad_threads(int in, int o) {
  return pop_span_threads(o, in) + (size_t)o;
}
__device__ static inline void pop_grad_tile(const float *d, const float *x, size_t xr,
                                            size_t xf, int b, int in, int o, size_t t,
                                            float *g) {
  size_t tiles = pop_span_threads(o, in);
  if (t >= tiles) {
    int j = (int)(t - tiles);
    float s = 0.0f;
    for (int i = 0; i < b; i++)
      s += d[(size_t)i * o + j];
    g[(size_t)o * in + j] = s;
    return;
  }
  struct pop_span p = pop_span_at(t, o, in); /* r: units, j: inputs */
  const float *a[POP_TILE], *xv[POP_TILE];
  for (int u = 0; u < POP_TILE; u++)
    a[u] = d + p.r[u];
  for (int v = 0; v < POP_TILE; v++)
    xv[v] = x + (size_t)p.j[v] * xf;
  float s[POP_TILE][POP_TILE] = {{0.0f}};
  pop_tile(s, a, (size_t)o, xv, xr, b);
  for (int v = 0; v < POP_TILE; v++)
    for (int u = 0; u < POP_TILE; u++)
      if (pop_span_own(&p, u, v))
        g[(size_t)p.r[u] * in + p.j[v]] = s[v][u];
}

/* The deltas below a layer of o outputs: out [i, f] (row-major, rows < b) = the activation's
 * backward at h_i[f] (h[i * hr + f * hf]) of sum over j of W [j, f] d [i, j] (d row-major);
 * thread t of pop_delta_threads(b, in): a tile of inputs (pop_span's r: W's loads
 * coalesced) and rows (its j: d broadcast). */
FOX_HD static inline size_t pop_delta_threads(int b, int in) { return pop_span_threads(in, b); }
__device__ static inline void pop_delta_tile(const float *W, const float *d, int b, int in,
                                             int o, const float *h, size_t hr, size_t hf,
                                             int act, size_t t, float *out) {
  struct pop_span p = pop_span_at(t, in, b); /* r: inputs, j: rows */
  const float *a[POP_TILE], *dv[POP_TILE];
  for (int v = 0; v < POP_TILE; v++)
    a[v] = W + p.r[v];
  for (int q = 0; q < POP_TILE; q++)
    dv[q] = d + (size_t)p.j[q] * o;
  float s[POP_TILE][POP_TILE] = {{0.0f}};
  pop_tile(s, a, (size_t)in, dv, 1, o);
  for (int q = 0; q < POP_TILE; q++)
    for (int v = 0; v < POP_TILE; v++)
      if (pop_span_own(&p, v, q)) {
        int i = p.j[q], f = p.r[v];
        out[(size_t)i * in + f] =
            fox_act_back(act, h[(size_t)i * hr + (size_t)f * hf], s[q][v]);
      }
}

#endif
