/* A population's DQN update on the device (src/backend/pop_ops.h): every member's gradient
 * update in 2 x hidden layers + 3 launches, whatever the population's size; the dot products'
 * threads each compute a register tile of outputs (pop_kernels.h). The members' arrays stay
 * where their agents made them; a table in device memory holds each one's pointers and own
 * numbers, and a thread finds its member from its index. Each element is summed by one thread
 * in a fixed order and no thread reads another
 * member's memory, so a member's floats do not depend on the population (a GPU gives the same
 * bits for it alone or among 63 others). The per-element arithmetic is the step headers'
 * (dqn_step.h, act_step.h, opt_step.h); the dot products are this file's, as cuBLAS's are
 * cuBLAS's. The launches:
 *   forward of each hidden layer, for the target on s' and the online network on s (and s' for
 *     Double DQN) together; the first gathers its input from the ring as it goes (no batch
 *     copy) and the threads of unit 0 keep their rows of the batch for the backward;
 *   the head, the (dueling) Q-values, Huber and dLoss/dQ, and the delta of the last hidden
 *     layer (a thread per sample: 3 or 4 outputs);
 *   backward of each hidden layer (its weight and bias gradients, the delta below it), the
 *     first with the head's gradients;
 *   the gradients' squared norm in opt_step.h's lanes, whose last thread to finish (a counter)
 *     adds the update's loss to the accumulator, counts the update on the clock and prepares
 *     the clip coefficient and Adam's constants;
 *   Adam, then the target's blend when the clock says it is due.
 * Every launch declares the members' arrays behind the table (POP_LAUNCH_), so the
 * emulation's sanitizer sees them as it sees arguments. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "act_step.h"
#include "agents/dqn.h"
#include "backend/counters.h"
#include "backend/pop_ops.h"
#include "cuda_backend.h"
#include "cuda_check.h"
#include "dqn_step.h"
#include "env/venv.h"
#include "fox_launch.h"
#include "mlp_cuda.h"
#include "opt_step.h"
#include "pop_kernels.h"

/* What every member shares (pop_shape_equal): the networks' layers, the batch, the head. */
struct pdqn_shape {
  int n;      /* members */
  int L;      /* layers (hidden + 1) */
  int dims[FOX_MLP_CUDA_MAX + 1];
  size_t off[FOX_MLP_CUDA_MAX];
  size_t n_params;
  int b, dbl, duel, act, out;
  int N; /* environments a member steps */
};

/* One member: its arrays and its own numbers. */
struct pdqn_member {
  struct replay_dev rb;
  struct dqn_clock *clk;
  const float *data;
  uint64_t seed;
  float *w, *g, *am, *av, *tw; /* online parameters, gradients, Adam's moments; target's */
  struct opt_state *st;
  float *on_act[FOX_MLP_CUDA_MAX + 1], *tg_act[FOX_MLP_CUDA_MAX + 1], *delta[2];
  float *bs, *br, *dout, *coef;
  uint8_t *ba, *bterm;
  double *terms, *lanes, *acc;
  unsigned *done; /* [2]: the lanes finished this update, the environments stored this step
                   * (each reset by its last) */
  double gamma, lr, max_norm, tau;
  int64_t target_update;
  struct dqn_eps eps;
  /* The environments: their two state buffers (what the member acted on swaps between them
   * each step, in step with every member: [0] is what `states` was when the table was made),
   * and the step's outputs. */
  const float *states[2];
  const float *next_states, *rewards;
  const int32_t *bars;
  uint8_t *actions;
  const uint8_t *dones;
};

struct pdqn_table {
  struct pop_table hdr; /* dev: struct pdqn_member [n]; done [n, 2] */
  struct pdqn_shape sh;
};

#define grid_ pop_grid
#define THREAD_ POP_THREAD_
#define TAB_(t) ((const struct pdqn_member *)(t)->hdr.dev)

/* Rows of a layer's forward: target on s' [0, b), online on s [b, 2b), online on s' [2b, 3b)
 * for Double DQN. The activations are feature-major (pop_kernels.h), the target's b rows and
 * the online network's 2b apart (its buffers hold 2b rows: dqn_create), the same for every
 * update whether Double or not. */
#define TSTRIDE_(sh) ((size_t)(sh).b)
#define OSTRIDE_(sh) (2 * (size_t)(sh).b)

/* A forward launch's threads a member: the target's rows (b: s') in tiles, then the online
 * network's (b, or 2b for Double DQN: s then s'), of a layer of o units. */
FOX_HD static inline size_t pdqn_fwd_per_(const struct pdqn_shape *sh, int o) {
  return pop_span_threads(sh->b, o) + pop_span_threads(sh->b * (1 + sh->dbl), o);
}

/* Hidden layer l < L - 1 of every member, a tile of rows x units a thread (pop_span_at: a
 * warp's consecutive rows, the weights broadcast, the inputs coalesced), the target's rows
 * and the online network's in tiles of their own. Layer 0 reads its rows from the dataset
 * and the ring (dqn_replay_get's gather, sample for the clock's update count); the thread
 * of an online row's unit 0 writes it to the batch (s rows with their action, reward and
 * terminal), which the backward of layer 0 reads. */
__global__ void pdqn_forward_kernel(const struct pdqn_member *tab, struct pdqn_shape sh, int l) {
  int in = sh.dims[l], o = sh.dims[l + 1];
  size_t tgt_threads = pop_span_threads(sh.b, o), per = pdqn_fwd_per_(&sh, o);
  THREAD_((size_t)sh.n * per);
  const struct pdqn_member *p = &tab[idx / per];
  size_t t = idx % per;
  int tgt = t < tgt_threads;
  /* Rows of the segment: the target's s' [0, b); the online network's s [0, b), s' [b, 2b). */
  struct pop_span f = tgt ? pop_span_at(t, sh.b, o)
                         : pop_span_at(t - tgt_threads, sh.b * (1 + sh.dbl), o);
  size_t stride = tgt ? TSTRIDE_(sh) : OSTRIDE_(sh);
  const float *W = (tgt ? p->tw : p->w) + sh.off[l];
  float s[POP_TILE][POP_TILE] = {{0.0f}};
  if (l == 0) {
    int nf = p->rb.nfeat; /* in = nf + 3 */
    const float *x[POP_TILE], *pf[POP_TILE];
    size_t k[POP_TILE];
    for (int q = 0; q < POP_TILE; q++) {
      int row = f.r[q], i = row % sh.b, next = tgt || row >= sh.b;
      k[q] = (size_t)dqn_replay_index(p->seed, (uint64_t)p->clk->updates, (uint64_t)i,
                                      (uint64_t)p->clk->size);
      x[q] = p->data + ((size_t)p->rb.bar[k[q]] + (size_t)next) * (size_t)nf;
      pf[q] = p->rb.pf + 6 * k[q] + 3 * (size_t)next;
    }
    const float *w[POP_TILE], *wp[POP_TILE];
    for (int u = 0; u < POP_TILE; u++)
      w[u] = W + (size_t)f.j[u] * in, wp[u] = w[u] + nf;
    pop_tile(s, w, 1, x, 1, nf);
    pop_tile(s, wp, 1, pf, 1, 3);
    if (!tgt && f.j0 == 0)
      for (int q = 0; q < POP_TILE; q++) {
        int row = f.r[q];
        if (!pop_span_own(&f, q, 0))
          continue;
        float *bs = p->bs + (size_t)row * (size_t)in;
        for (int c = 0; c < nf; c++)
          bs[c] = x[q][c];
        for (int c = 0; c < 3; c++)
          bs[nf + c] = pf[q][c];
        if (row < sh.b) {
          p->ba[row] = p->rb.a[k[q]];
          p->br[row] = p->rb.r[k[q]];
          p->bterm[row] = p->rb.term[k[q]];
        }
      }
  } else {
    const float *act = (tgt ? p->tg_act : p->on_act)[l], *x[POP_TILE];
    for (int q = 0; q < POP_TILE; q++)
      x[q] = act + f.r[q];
    pop_fwd_sum(&f, W, in, x, stride, s);
  }
  pop_fwd_put(&f, W, in, sh.act, s, (tgt ? p->tg_act : p->on_act)[l + 1], stride);
}

/* Q-values [3] from a head's outputs (the dueling head's 4, or the 3 themselves). */
__device__ static inline void q_(const float *y, int duel, float *q) {
  if (duel) {
    dqn_dueling_row(y, q);
  } else {
    for (int a = 0; a < FOX_NACTIONS; a++)
      q[a] = y[a];
  }
}

/* Sample i of every member: the head on the target's s' row and the online s (and s') rows,
 * Huber's term and dLoss/dQ (dqn_loss_item), through the dueling head's backward into dout
 * [b, out], then the last hidden layer's delta. */
__global__ void pdqn_head_loss_kernel(const struct pdqn_member *tab, struct pdqn_shape sh) {
  THREAD_((size_t)sh.n * sh.b);
  const struct pdqn_member *p = &tab[idx / sh.b];
  int i = (int)(idx % sh.b), L = sh.L, in = sh.dims[L - 1], out = sh.out;
  const float *Wt = p->tw + sh.off[L - 1], *Wo = p->w + sh.off[L - 1];
  size_t os = OSTRIDE_(sh);
  const float *h = p->on_act[L - 1] + i;
  float y[FOX_NACTIONS + 1], qt[FOX_NACTIONS], qo[FOX_NACTIONS], qn[FOX_NACTIONS];
  pop_head(Wt, p->tg_act[L - 1] + i, TSTRIDE_(sh), in, out, y);
  q_(y, sh.duel, qt);
  pop_head(Wo, h, os, in, out, y);
  q_(y, sh.duel, qo);
  if (sh.dbl) {
    pop_head(Wo, p->on_act[L - 1] + sh.b + i, os, in, out, y);
    q_(y, sh.duel, qn);
  }
  float dq[FOX_NACTIONS], d[FOX_NACTIONS + 1];
  p->terms[i] = dqn_loss_item(qt, sh.dbl ? qn : NULL, qo, p->ba[i], p->br[i], p->bterm[i],
                              p->gamma, sh.b, dq);
  if (sh.duel) {
    dqn_dueling_back_row(dq, d);
  } else {
    for (int a = 0; a < FOX_NACTIONS; a++)
      d[a] = dq[a];
  }
  for (int o = 0; o < out; o++)
    p->dout[(size_t)i * out + o] = d[o];
  float *dl = p->delta[(L - 2) % 2] + (size_t)i * in;
  for (int f = 0; f < in; f++)
    dl[f] = pop_delta(Wo, d, in, out, f, h[(size_t)f * os], sh.act);
}

/* A backward launch's threads a member at hidden layer l: the head's gradients (l = L - 2),
 * the layer's, the deltas below (l >= 1), each in its tiles. */
FOX_HD static inline size_t pdqn_back_per_(const struct pdqn_shape *sh, int l) {
  int L = sh->L, in = sh->dims[l], o = sh->dims[l + 1];
  return (l == L - 2 ? pop_grad_threads(sh->dims[L - 1], sh->out) : 0) +
         pop_grad_threads(in, o) + (l >= 1 ? pop_delta_threads(sh->b, in) : 0);
}

/* Hidden layer l of every member: its gradients from its delta and input (layer 0's: the
 * batch's s rows), the deltas of layer l - 1 (l >= 1); with l = L - 2, the head's gradients
 * too. */
__global__ void pdqn_backward_kernel(const struct pdqn_member *tab, struct pdqn_shape sh,
                                     int l) {
  int L = sh.L, in = sh.dims[l], o = sh.dims[l + 1], b = sh.b;
  int hin = sh.dims[L - 1];
  size_t head = l == L - 2 ? pop_grad_threads(hin, sh.out) : 0;
  size_t grads = pop_grad_threads(in, o), per = pdqn_back_per_(&sh, l);
  THREAD_((size_t)sh.n * per);
  const struct pdqn_member *p = &tab[idx / per];
  size_t e = idx % per;
  size_t os = OSTRIDE_(sh);
  if (e < head) {
    pop_grad_tile(p->dout, p->on_act[L - 1], 1, os, b, hin, sh.out, e, p->g + sh.off[L - 1]);
    return;
  }
  e -= head;
  const float *d = p->delta[l % 2];
  if (e < grads) {
    if (l == 0)
      pop_grad_tile(d, p->bs, (size_t)in, 1, b, in, o, e, p->g + sh.off[0]);
    else
      pop_grad_tile(d, p->on_act[l], 1, os, b, in, o, e, p->g + sh.off[l]);
    return;
  }
  pop_delta_tile(p->w + sh.off[l], d, b, in, o, p->on_act[l], 1, os, sh.act, e - grads,
                 p->delta[(l - 1) % 2]);
}

/* Lane k of every member's squared gradient norm; the member's last lane to finish adds the
 * update's loss (its terms are the last launch's) to the accumulator, counts the update and
 * prepares the clip coefficient and Adam's constants (opt_prepare). */
__global__ void pdqn_clip_kernel(const struct pdqn_member *tab, struct pdqn_shape sh) {
  THREAD_((size_t)sh.n * FOX_SQ_LANES);
  const struct pdqn_member *p = &tab[idx / FOX_SQ_LANES];
  int k = (int)(idx % FOX_SQ_LANES);
  p->lanes[k] = opt_sq_lane(p->g, sh.n_params, k);
  __threadfence();
  if (atomicAdd(p->done, 1u) != FOX_SQ_LANES - 1)
    return;
  __threadfence();
  double lanes[FOX_SQ_LANES];
  const volatile double *v = p->lanes;
  for (int j = 0; j < FOX_SQ_LANES; j++)
    lanes[j] = v[j];
  *p->done = 0;
  dqn_loss_sum(p->terms, sh.b, (long)p->clk->transitions, p->acc);
  p->clk->updates++;
  struct opt_lr lr = {p->lr, 0, 0};
  struct opt_state *st = p->st;
  *p->coef = opt_prepare(lanes, p->max_norm, lr, NULL, &st, 1);
}

/* Adam on every member's parameters, then the target's element when the update count says
 * so (every target_update updates). */
__global__ void pdqn_adam_kernel(const struct pdqn_member *tab, struct pdqn_shape sh) {
  THREAD_((size_t)sh.n * sh.n_params);
  const struct pdqn_member *p = &tab[idx / sh.n_params];
  size_t i = idx % sh.n_params;
  opt_adam_elem(&p->w[i], &p->am[i], &p->av[i], p->g[i], *p->coef, p->st->a);
  if (opt_blend_due(&p->clk->updates, p->target_update))
    p->tw[i] = opt_blend_elem(p->tw[i], p->w[i], (float)p->tau);
}

/* Acting, hidden layer l < L - 1 of every member, a tile of environments' rows x units a
 * thread, from the states the member acts on (buffer `flip`, row-major as the environments
 * give them) or the layer below (feature-major). */
__global__ void pdqn_act_forward_kernel(const struct pdqn_member *tab, struct pdqn_shape sh,
                                        int l, int flip) {
  int in = sh.dims[l], o = sh.dims[l + 1];
  size_t per = pop_span_threads(sh.N, o);
  THREAD_((size_t)sh.n * per);
  const struct pdqn_member *p = &tab[idx / per];
  struct pop_span f = pop_span_at(idx % per, sh.N, o);
  const float *W = p->w + sh.off[l], *x[POP_TILE];
  for (int q = 0; q < POP_TILE; q++)
    x[q] = l == 0 ? p->states[flip] + (size_t)f.r[q] * in : p->on_act[l] + f.r[q];
  float s[POP_TILE][POP_TILE] = {{0.0f}};
  pop_fwd_sum(&f, W, in, x, l == 0 ? 1 : (size_t)sh.N, s);
  pop_fwd_put(&f, W, in, sh.act, s, p->on_act[l + 1], (size_t)sh.N);
}

/* Acting, environment i of every member: the head, the (dueling) Q-values, epsilon-greedy at
 * the clock's transitions (dqn_explore_at, as dqn_explore_kernel). */
__global__ void pdqn_act_head_kernel(const struct pdqn_member *tab, struct pdqn_shape sh) {
  THREAD_((size_t)sh.n * sh.N);
  const struct pdqn_member *p = &tab[idx / sh.N];
  int i = (int)(idx % sh.N), L = sh.L, in = sh.dims[L - 1];
  float y[FOX_NACTIONS + 1], q[FOX_NACTIONS];
  pop_head(p->w + sh.off[L - 1], p->on_act[L - 1] + i, (size_t)sh.N, in, sh.out, y);
  q_(y, sh.duel, q);
  int64_t t = p->clk->transitions;
  p->actions[i] = (uint8_t)dqn_explore_at(q, p->eps, t, p->seed, (uint64_t)i);
}

/* The step's transitions of every member into its ring (replay_store: with more environments
 * than the ring holds only the last cap are written), the states acted on being buffer `flip`;
 * the member's last environment to finish ticks its clock (dqn_tick), after every one has read
 * the position. */
__global__ void pdqn_store_kernel(const struct pdqn_member *tab, struct pdqn_shape sh,
                                  int flip) {
  THREAD_((size_t)sh.n * sh.N);
  const struct pdqn_member *p = &tab[idx / sh.N];
  int i = (int)(idx % sh.N);
  size_t cap = p->rb.cap, skip = (size_t)sh.N > cap ? (size_t)sh.N - cap : 0;
  if ((size_t)i >= skip)
    dqn_replay_put(&p->rb, ((size_t)p->clk->pos + (size_t)i) % cap, p->bars[i],
                   p->states[flip] + (size_t)i * (size_t)sh.dims[0],
                   p->next_states + (size_t)i * (size_t)sh.dims[0], p->actions[i], p->rewards[i],
                   p->dones[i]);
  __threadfence();
  if (atomicAdd(p->done + 1, 1u) != (unsigned)sh.N - 1)
    return;
  p->done[1] = 0;
  dqn_tick(p->clk, sh.N, (int64_t)cap);
}

int pop_dqn_act(void *table, const float *states, struct fox_err *e) {
  struct pdqn_table *t = (struct pdqn_table *)table;
  const struct pdqn_shape *sh = &t->sh;
  int flip = pop_table_flip(&t->hdr, states, e);
  if (flip < 0)
    return e->code;
  for (int l = 0; l < sh->L - 1; l++) {
    POP_LAUNCH_(&t->hdr, pdqn_act_forward_kernel,
                (size_t)sh->n * pop_span_threads(sh->N, sh->dims[l + 1]), TAB_(t), *sh, l, flip);
    cudaCheckLaunch(e);
  }
  POP_LAUNCH_(&t->hdr, pdqn_act_head_kernel, (size_t)sh->n * sh->N, TAB_(t), *sh);
  cudaCheckLaunch(e);
  return 0;
}

int pop_dqn_store(void *table, const float *states_prev, struct fox_err *e) {
  struct pdqn_table *t = (struct pdqn_table *)table;
  int flip = pop_table_flip(&t->hdr, states_prev, e);
  if (flip < 0)
    return e->code;
  POP_LAUNCH_(&t->hdr, pdqn_store_kernel, (size_t)t->sh.n * t->sh.N, TAB_(t), t->sh, flip);
  cudaCheckLaunch(e);
  return 0;
}

int pop_dqn_update(void *table, struct fox_err *e) {
  struct pdqn_table *t = (struct pdqn_table *)table;
  const struct pdqn_shape *sh = &t->sh;
  size_t n = (size_t)sh->n;
  for (int l = 0; l < sh->L - 1; l++) {
    POP_LAUNCH_(&t->hdr, pdqn_forward_kernel, n * pdqn_fwd_per_(sh, sh->dims[l + 1]), TAB_(t),
                *sh, l);
    cudaCheckLaunch(e);
  }
  POP_LAUNCH_(&t->hdr, pdqn_head_loss_kernel, n * sh->b, TAB_(t), *sh);
  cudaCheckLaunch(e);
  for (int l = sh->L - 2; l >= 0; l--) {
    POP_LAUNCH_(&t->hdr, pdqn_backward_kernel, n * pdqn_back_per_(sh, l), TAB_(t), *sh, l);
    cudaCheckLaunch(e);
  }
  POP_LAUNCH_(&t->hdr, pdqn_clip_kernel, n * FOX_SQ_LANES, TAB_(t), *sh);
  cudaCheckLaunch(e);
  POP_LAUNCH_(&t->hdr, pdqn_adam_kernel, n * sh->n_params, TAB_(t), *sh);
  cudaCheckLaunch(e);
  return 0;
}

static int same_(const struct pdqn_shape *a, const struct mlp_cuda *m, const struct dqn *d) {
  if (m->n_layers != a->L || m->activation != a->act || d->cfg.batch_size != a->b ||
      !d->cfg.double_q != !a->dbl || !d->cfg.dueling != !a->duel || d->out != a->out)
    return 0;
  for (int l = 0; l <= a->L; l++)
    if (m->dims[l] != a->dims[l])
      return 0;
  return 1;
}

/* The arrays a member's entry points to, declared by every launch (pop_table_touch): the
 * dataset's states read, the member's own arrays written (its environments' buffers are
 * pop_env_put's). */
static int touch_(struct pop_table *t, const struct pdqn_member *p, struct fox_err *e) {
  const void *w[] = {p->rb.bar, p->rb.pf, p->rb.r,  p->rb.a,    p->rb.term, p->clk,
                     p->w,      p->g,     p->am,    p->av,      p->tw,      p->st,
                     p->delta[0], p->delta[1], p->bs, p->br,     p->dout,    p->coef,
                     p->ba,     p->bterm, p->terms, p->lanes,   p->acc};
  static const char *const names[] = {
      "a DQN member's ring (bars)",      "a DQN member's ring (portfolio features)",
      "a DQN member's ring (rewards)",   "a DQN member's ring (actions)",
      "a DQN member's ring (terminals)", "a DQN member's clock",
      "a DQN member's weights",          "a DQN member's gradients",
      "a DQN member's Adam moments",     "a DQN member's Adam velocities",
      "a DQN member's target",           "a DQN member's optimiser state",
      "a DQN member's deltas",           "a DQN member's deltas",
      "a DQN member's batch states",     "a DQN member's batch rewards",
      "a DQN member's head deltas",      "a DQN member's clip coefficient",
      "a DQN member's batch actions",    "a DQN member's batch terminals",
      "a DQN member's loss terms",       "a DQN member's norm lanes",
      "a DQN member's accumulator"};
  for (size_t i = 0; i < sizeof w / sizeof *w; i++)
    FOX_TRY(pop_table_touch_add(t, w[i], 1, names[i], e));
  for (int l = 0; l <= FOX_MLP_CUDA_MAX; l++) {
    FOX_TRY(pop_table_touch_add(t, p->on_act[l], 1, "a DQN member's activations", e));
    FOX_TRY(pop_table_touch_add(t, p->tg_act[l], 1, "a DQN member's target activations", e));
  }
  return pop_table_touch_add(t, p->data, 0, "the dataset's states (a DQN member's)", e);
}

static int open_(struct dqn *const *members, struct venv *const *envs, int n,
                 struct pdqn_table *t, struct fox_err *e) {
  struct pdqn_shape *sh = &t->sh;
  const struct mlp_cuda *m0 = cuda_net_mlp(&members[0]->online);
  sh->n = n;
  sh->L = m0->n_layers;
  memcpy(sh->dims, m0->dims, sizeof sh->dims);
  memcpy(sh->off, m0->offset, sizeof sh->off);
  sh->n_params = m0->n_params;
  sh->b = members[0]->cfg.batch_size;
  sh->dbl = !!members[0]->cfg.double_q;
  sh->duel = !!members[0]->cfg.dueling;
  sh->act = m0->activation;
  sh->out = members[0]->out;
  sh->N = envs[0]->shape.num_envs;
  t->hdr.states0[0] = envs[0]->states, t->hdr.states0[1] = envs[0]->states_prev;
  if (sh->L < 2)
    return fox_errf(e, FOX_EUSAGE, "population: a DQN without hidden layers");
  struct pdqn_member *host = (struct pdqn_member *)calloc((size_t)n, sizeof *host);
  if (!host)
    return fox_errf(e, FOX_EFAIL, "population: out of memory");
  for (int k = 0; k < n; k++) {
    struct dqn *d = members[k];
    struct mlp_cuda *on = cuda_net_mlp(&d->online), *tg = cuda_net_mlp(&d->target);
    const struct venv *v = envs[k];
    if (!same_(sh, on, d) || !same_(sh, tg, d) || v->shape.num_envs != sh->N ||
        d->rb.d.cap != members[0]->rb.d.cap) {
      free(host);
      return fox_errf(e, FOX_EUSAGE, "population: member %d's networks differ from member 0's",
                      k);
    }
    struct pdqn_member *p = &host[k];
    p->rb = d->rb.d;
    p->clk = d->clk;
    p->data = d->data_states;
    p->seed = d->seed;
    p->w = on->w, p->g = on->g, p->am = on->adam_m, p->av = on->adam_v, p->st = on->st;
    p->tw = tg->w;
    for (int l = 0; l <= FOX_MLP_CUDA_MAX; l++)
      p->on_act[l] = on->act[l], p->tg_act[l] = tg->act[l];
    p->delta[0] = on->delta[0], p->delta[1] = on->delta[1];
    p->bs = d->bs, p->br = d->br, p->ba = d->ba, p->bterm = d->bterm;
    p->dout = d->cfg.dueling ? d->bdraw : d->bdq;
    p->coef = d->coef, p->terms = d->terms, p->lanes = d->lanes, p->acc = d->acc;
    p->eps = d->eps;
    p->states[0] = v->states, p->states[1] = v->states_prev;
    p->next_states = v->next_states, p->rewards = v->rewards, p->bars = v->bars;
    p->actions = v->actions, p->dones = v->dones;
    p->gamma = d->cfg.gamma, p->lr = d->cfg.lr, p->max_norm = d->cfg.max_grad_norm;
    p->tau = d->cfg.tau, p->target_update = d->cfg.target_update;
  }
  int rc = pop_table_put(&t->hdr, host, sizeof *host, n, 2,
                         offsetof(struct pdqn_member, done), e);
  for (int k = 0; rc == 0 && k < n; k++)
    rc = touch_(&t->hdr, &host[k], e);
  if (rc == 0)
    rc = pop_env_put(&t->hdr, envs, n, e);
  free(host);
  return rc;
}

int pop_dqn_open(struct dqn *const *members, struct venv *const *envs, int n, void **table,
                 struct fox_err *e) {
  *table = NULL;
  if (n < 1)
    return fox_errf(e, FOX_EUSAGE, "population: no members");
  struct pdqn_table *t = (struct pdqn_table *)calloc(1, sizeof *t);
  if (!t)
    return fox_errf(e, FOX_EFAIL, "population: out of memory");
  int rc = open_(members, envs, n, t, e);
  if (rc != 0) {
    pop_table_close(t);
    return rc;
  }
  *table = t;
  return 0;
}

