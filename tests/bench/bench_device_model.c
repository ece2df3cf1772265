/* The device-time model. What a GPU would take for the headline (five DQN trials at the
 * defaults, 300,000 train bars, one epoch, all at once on one device), from what is counted
 * here and a small table of published device figures: measured, on the CUDA backend at the
 * defaults, in the modes of modes_ (the reference: each trial alone, launched one by one,
 * through its own operations; a trial alone with graphs; the five as one population without
 * graphs and with them), per 1,000 env steps of one trial (a population's work shared equally
 * among its members): the host's API calls, the kernels the device runs, and (on the
 * emulation) each kernel's runs, threads, flops and bytes; for DQN before learning starts
 * (acting only) and after (16 updates a vector step), for PPO a whole rollout with its update;
 * and the process's peak of device memory in each mode.
 *
 * The model, per device: host time = calls x the host cost of one (launch or copy; a graph
 * launch its own), serialised over the process's trials (one context); device time = the
 * chain of kernels each trial's work is in (its own, the trials' chains overlapping: their
 * kernels are a few blocks each; or its population's, one chain serving every member), each
 * kernel at least the per-node floor of a small kernel, else its flops at its fraction of the
 * FP32 peak or its bytes at 60% of the bandwidth, and no less than all trials' arithmetic and
 * traffic back to back; the headline = max(host, device) + the evaluation (the greedy policy
 * bar by bar over the validation split, one block a trial). Every time here is a prediction;
 * the counts are measured. On a real device the bench also times its windows (calibration): a
 * device lent runs it from scripts/gpu-check.sh beside the measured headline.
 * Fixed-width table; JSON to argv[1].   bench_device_model [OUT.json] [BARS] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/counters.h"
#include "bench_cuda.h"
#include "data/synth.h"
#include "train/pop.h"
#include "train/trial.h"
#ifdef FOX_EMU_PROFILE
#include "cuda_emu_profile.h"
#endif

#define TRIALS 5
#define MAXK 64

/* Published figures. FP32 peak, memory bandwidth, SMs: NVIDIA's L4, H100 (SXM5 80 GB HBM3,
 * the device this project is lent) and H200 (SXM) datasheets.
 * Host cost of an API call: 4 us (a kernel launch measured at ~4-6 us with CUDA 13:
 * susun-blog.com, "pegainfer (3): From Launch Overhead to CUDA Graph"; 2.5-5 us in the issue's
 * survey; a graph's launch 3.5 us of CPU in CUDA.jl's graphs guide, taken as one call); a small
 * kernel's floor on the device: 0.9 us a node (CUDA.jl's graphs guide: 80 small kernels in
 * 70 us as a graph, 260 us launched one by one). */
struct device_fig_ {
  const char *name;
  double tflops, gbs, sms, call_us, node_us;
};
static const struct device_fig_ devices_[] = {
    {"L4", 30.3, 300.0, 58, 4.0, 0.9},
    {"H100", 67.0, 3350.0, 132, 4.0, 0.9},
    {"H200", 67.0, 4800.0, 132, 4.0, 0.9},
};
#define NDEV ((int)(sizeof devices_ / sizeof *devices_))
#define GEMM_EFF 0.5

/* The fraction of the FP32 peak a dot kernel reaches whose threads each compute a t x t tile of
 * outputs from L1 (t = 1: one output). The population kernels build with --fmad=false (their
 * floats are the CPU's), so a multiply-add is two instructions, and the peak counts an FMA as
 * two flops. A step of a tile's sums loads 2t values (a warp's load is one L1 wavefront, one
 * a clock an SM: 128 B) and issues 2t^2 arithmetic instructions (4 warps' a clock an SM) among
 * 2t + 2t^2 in all (4 issued a clock an SM): max(2t, 2t^2 / 4, (2t + 2t^2) / 4) clocks
 * against t^2 / 4 at the FMA peak; taken at 80% of that. t = 1 gives 1/10 (the model's figure
 * before the tiles), t = 4 gives 0.32. A prediction, and an optimistic one where a launch is
 * small: it assumes enough warps to hide L1's latency. For 5 members on an L4 (58 SMs) the
 * update's forward is 8 warps an SM, its backward 6 (layer 1) and 1.6 (layer 0), PPO's
 * minibatch launches about 44, the acting forward 1.4 (that one is at the per-kernel floor
 * anyway); each thread has 16 independent sums. A warp's broadcast load is one wavefront only
 * where its threads share a tile (RS, JS or FS >= 32), two at the PPO defaults' 64 units. */
static double dot_eff_(int t) {
  double clocks = fmax(2.0 * t, fmax(2.0 * t * t / 4.0, (2.0 * t + 2.0 * t * t) / 4.0));
  return 0.8 * (t * t / 4.0) / clocks;
}
#define BW_EFF 0.6
#define EVAL_BAR_US 1.0 /* the greedy policy's bar: 3 layers and the portfolio, 4 barriers */

/* A kernel's bytes and flops per thread, read off its code (the step headers' arithmetic at
 * the defaults): what it reads and writes of device memory, and its multiply-adds x 2 (the
 * population kernels' dot products; the others' arithmetic is small beside their traffic).
 * cuBLAS's come from the emulation. The population kernels' figures are their launches' means
 * at the defaults (54-128-128-3, batch 128, 64 environments): forward 54 or 128 inputs, backward
 * 128 terms a gradient or delta, the head 3 rows x 3 outputs x 128 and a delta row; their bytes
 * are the launch's distinct bytes over its threads (a weight row or an input row is read by
 * the threads of a row or a unit: from L1/L2, not DRAM). Their dot products run from L1 without
 * shared memory; the GEMMs' threads each compute a register tile of TILE x TILE outputs
 * (pop_kernels.h's POP_TILE), the heads and the clip's lanes one output a thread: dot_eff_.
 * The tiled kernels' figures a thread are the untiled launches' totals over the tiled launches'
 * threads (the emulation's counts: forward 1/16 of the threads, backward 1/14.3 for DQN and
 * 1/15.75 for PPO, whose bias sums stay one a thread). */
#define TILE 4
static const struct {
  const char *name;
  double bytes, flops;
  int tile; /* a dot kernel's tile (dot_eff_); 0: GEMM_EFF, its flops small */
} per_thread_[] = {
    {"fused_experience_kernel", 1000, 0}, {"env_reset_kernel", 700, 0},
    {"dqn_explore_kernel", 13, 0},        {"replay_insert_kernel", 60, 0},
    {"dqn_tick_kernel", 32, 0},           {"replay_sample_kernel", 900, 0},
    {"dqn_loss_kernel", 60, 0},           {"dqn_loss_sum_kernel", 1100, 0},
    {"dqn_dueling_kernel", 28, 0},        {"dqn_dueling_back_kernel", 28, 0},
    {"bias_act_kernel", 12, 0},           {"act_back_kernel", 12, 0},
    {"bias_grad_kernel", 700, 0},         {"sqnorm_lanes_kernel", 400, 0},
    {"clip_prepare_kernel", 2200, 0},     {"adam_kernel", 28, 0},
    {"blend_kernel", 12, 0},              {"ppo_sample_kernel", 20, 0},
    {"ppo_bootstrap_kernel", 14, 0},      {"ppo_gae_kernel", 1800, 0},
    {"ppo_permute_kernel", 4, 0},         {"ppo_gather_kernel", 470, 0},
    {"ppo_adv_stats_kernel", 4100, 0},    {"ppo_loss_kernel", 100, 0},
    {"ppo_loss_sum_kernel", 20500, 0},    {"ppo_tick_kernel", 8, 0},
    /* forward: layer 0's 384 rows gathered (78 KB of dataset rows, the ring's 5 KB), both
     * networks' weights (56 KB), 197 KB out, the batch kept (29 KB): 367 KB over 49,152
     * outputs, 7.5 B; layer 1's 197 KB in, 132 KB of weights, 197 KB out: 10.7 B; mean 9 an
     * output, 16 outputs a thread */
    {"pdqn_forward_kernel", 144, 2912, TILE},
    {"pdqn_head_loss_kernel", 2100, 3100, 1},
    /* backward: layer 1's delta, activations and weights read (260 KB), gradients and the
     * delta below written (133 KB) over 33,283 outputs; layer 0's 121 KB over 7,040: 12.8 B
     * an output, 14.3 outputs a thread */
    {"pdqn_backward_kernel", 186, 3668, TILE},
    {"pdqn_clip_kernel", 380, 190, 1},
    /* Adam: w, g, m, v read and w, m, v written; the target's blend (8 B) once in 1,000 */
    {"pdqn_adam_kernel", 28, 12, 0},
    {"pdqn_act_forward_kernel", 192, 2912, TILE},
    {"pdqn_act_head_kernel", 600, 800, 1},
    {"pdqn_store_kernel", 500, 0, 0},
    {"pop_env_step_kernel", 1000, 0, 0},  /* the fused experience step's, a member's */
    /* PPO at the defaults (54-64-64, actor and critic, 64 environments): forward 54 or 64
     * inputs; the heads 4 rows x 64 (acting: the state copied into the rollout, 432 B) or 1. */
    {"pppo_forward_kernel", 128, 1888, TILE},
    {"pppo_act_head_kernel", 470, 520, 1},
    {"pppo_observe_head_kernel", 30, 130, 1},
    /* The update (minibatch 2048 of 8192, 4 epochs): GAE 128 steps an environment; forward as
     * acting's; the statistics two passes over 2048 advantages a member; the heads and loss
     * 2 x 64 inputs and the last deltas of a row; backward's mean over its launches (a weight
     * gradient sums 2048 rows, a delta 64 units); the clip's lanes over 15,620 gradients. */
    {"pppo_gae_kernel", 2200, 900, 0},
    {"pppo_mb_forward_kernel", 192, 1888, TILE},
    {"pppo_stats_kernel", 16400, 8200, 0},
    {"pppo_head_loss_kernel", 1100, 1130, 1},
    {"pppo_backward_kernel", 126, 5513, TILE},
    {"pppo_clip_kernel", 250, 122, 1},
    {"pppo_adam_kernel", 36, 12, 0},
};

struct kern_ {
  char name[64];
  double runs, threads, flops, bytes; /* per 1,000 env steps of one trial */
  double eff;                          /* of the FP32 peak its flops reach */
};

/* What one trial did per 1,000 env steps in a window. */
struct rate_ {
  double calls, launches, graph_launches, copies, nodes, syncs, seconds;
  int m; /* members of the population measured: the trials one chain of kernels serves */
  struct kern_ k[MAXK];
  int nk;
};

static int fail_(const struct fox_err *e) {
  fprintf(stderr, "bench_device_model: %s\n", e->msg);
  return 1;
}

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void clear_(void) {
  counters_take();
#ifdef FOX_EMU_PROFILE
  struct cuda_emu_kernel_stat k[MAXK];
  cuda_emu_profile_take(k, MAXK);
#endif
}

/* The trials measured together: a population of `m` (members differ in seed). */
struct group_ {
  struct trial t[TRIALS];
  int m;
  struct pop p;
};

/* Runs `chunks` chunks of g and says what they cost per 1,000 env steps of one trial. */
static int window_(struct group_ *g, int chunks, struct rate_ *r, struct fox_err *e) {
  struct trial *t = &g->t[0];
  memset(r, 0, sizeof *r);
  FOX_TRY(t->be->mem_d2h(&(double){0}, t->ag.algo == FOX_ALGO_DQN ? t->ag.dqn.acc : t->ag.ppo.acc,
                         sizeof(double), e)); /* the device idle: the clock starts clean */
  clear_();
  double t0 = now_(), steps = 0;
  for (int c = 0; c < chunks; c++) {
    long k = chunk_steps(&g->p, 1L << 30);
    FOX_TRY(chunk_run(&g->p, k, e));
    steps += (double)k * t->cfg.num_envs;
  }
  FOX_TRY(t->be->mem_d2h(&(double){0}, t->ag.algo == FOX_ALGO_DQN ? t->ag.dqn.acc : t->ag.ppo.acc,
                         sizeof(double), e));
  double k1000 = 1000.0 / (steps * g->m);
  r->seconds = (now_() - t0) * k1000;
  r->m = g->m;
  struct backend_counts c = counters_take();
  c.syncs--, c.copies--; /* the closing read */
  r->launches = c.launches * k1000, r->graph_launches = c.graph_launches * k1000;
  r->copies = c.copies * k1000, r->nodes = c.nodes * k1000, r->syncs = c.syncs * k1000;
  r->calls = r->launches + r->graph_launches + r->copies;
#ifdef FOX_EMU_PROFILE
  struct cuda_emu_kernel_stat ks[MAXK];
  int n = cuda_emu_profile_take(ks, MAXK);
  for (int i = 0; i < n && i < MAXK; i++) {
    struct kern_ *k = &r->k[r->nk++];
    snprintf(k->name, sizeof k->name, "%s", ks[i].name);
    k->runs = (double)(ks[i].launches + ks[i].nodes) * k1000;
    k->threads = (double)ks[i].threads * k1000;
    k->flops = ks[i].flops * k1000;
    k->bytes = ks[i].bytes * k1000;
    k->eff = GEMM_EFF;
    if (!ks[i].flops) /* not cuBLAS: the table's figures per thread */
      for (size_t j = 0; j < sizeof per_thread_ / sizeof *per_thread_; j++)
        if (!strcmp(per_thread_[j].name, ks[i].name)) {
          k->bytes = k->threads * per_thread_[j].bytes;
          k->flops = k->threads * per_thread_[j].flops;
          if (per_thread_[j].tile > 0)
            k->eff = dot_eff_(per_thread_[j].tile);
        }
  }
#endif
  return 0;
}

/* Device time (us) per 1,000 env steps of each trial of a chain: its kernels in order, each at
 * least the floor, else its flops and (DRAM) bytes (chain: a population's kernels serve its m
 * members, so they run m x the trial's share of work, still one node each), and one trial's
 * flops and bytes alone (work). */
static void device_us_(const struct rate_ *r, const struct device_fig_ *d, double *chain,
                       double *work) {
  *chain = *work = 0;
  for (int i = 0; i < r->nk; i++) {
    const struct kern_ *k = &r->k[i];
    double us = fmax(k->flops / (k->eff * d->tflops * 1e6), k->bytes / (BW_EFF * d->gbs * 1e3));
    *work += us;
    *chain += fmax(k->runs * r->m * d->node_us, us * r->m);
  }
  if (!r->nk) /* a real device: no profile, the floors of the kernels counted */
    *chain = r->nodes * r->m * d->node_us;
}

/* The headline on device d (seconds): TRIALS trials of the first epoch `first` over `total`
 * transitions, `warm` of them acting (rate w), the rest learning (l); `val` bars evaluated.
 * device_lo: every trial's chain at the floors (the data in the L2); device_hi: the chains with
 * every byte from DRAM, and no less than all trials' work back to back. */
struct headline_ {
  double host, device_lo, device_hi, eval, wall_lo, wall_hi;
};

static struct headline_ headline_(const struct rate_ *first, const struct rate_ *w,
                                  const struct rate_ *l, double total, double warm, double val,
                                  const struct device_fig_ *d) {
  double cw, ww, cl, wl, k = total / 1000.0, kw = warm / 1000.0, kl = k - kw;
  device_us_(w, d, &cw, &ww);
  device_us_(l, d, &cl, &wl);
  struct headline_ h;
  h.host = TRIALS * k * first->calls * d->call_us * 1e-6;
  h.device_lo = k * first->nodes * first->m * d->node_us * 1e-6;
  h.device_hi = fmax((kw * cw + kl * cl) * 1e-6, TRIALS * (kw * ww + kl * wl) * 1e-6);
  h.eval = val * EVAL_BAR_US * 1e-6;
  h.wall_lo = fmax(h.host, h.device_lo) + h.eval;
  h.wall_hi = fmax(h.host, h.device_hi) + h.eval;
  return h;
}

static void rate_row_(const char *what, const struct rate_ *r) {
  printf("%-34s %10.1f %10.1f %10.2f %10.1f %10.3f\n", what, r->calls, r->launches + r->copies,
         r->graph_launches, r->nodes, r->syncs);
}

static void json_rate_(FILE *f, const char *key, const struct rate_ *r) {
  fprintf(f, "\"%s\": {\"host_calls\": %.3f, \"launches_and_copies\": %.3f, "
             "\"graph_launches\": %.4f, \"kernels\": %.3f, \"syncs\": %.4f, "
             "\"seconds_per_1000\": %.6f}", key, r->calls, r->launches + r->copies,
          r->graph_launches, r->nodes, r->syncs, r->seconds);
}

static void close_(struct group_ *g) {
  pop_free(&g->p);
  for (int i = 0; i < g->m; i++)
    trial_close(&g->t[i]);
}

/* m trials at the defaults (one epoch over the train split; graphs on or off), seeds 1 .. m,
 * as one population. */
static int open_(struct group_ *g, int m, int algo, int graphs, const struct dataset *ds,
                 const struct backend *be, const struct device_dataset *dev,
                 struct fox_err *e) {
  memset(g, 0, sizeof *g);
  pop_init(&g->p, be, m);
  struct config cfg;
  config_defaults(&cfg);
  cfg.algo = algo;
  cfg.epochs = 1;
  cfg.graphs = graphs;
  int rc = 0;
  for (; rc == 0 && g->m < m; g->m++) {
    cfg.seed = (uint64_t)g->m + 1;
    rc = trial_open(&g->t[g->m], &cfg, ds, be, dev, e);
    if (rc == 0)
      rc = pop_add(&g->p, &g->t[g->m], e);
  }
  if (rc != 0)
    close_(g);
  return rc;
}

/* Adds what a window counted (per 1,000 of its steps) to a running total of host calls and
 * kernels (absolute). */
static void add_(double *calls, double *nodes, const struct rate_ *r, double steps) {
  *calls += r->calls * steps / 1000.0;
  *nodes += r->nodes * steps / 1000.0;
}

static int run_(struct group_ *g, int chunks, struct rate_ *r, double *steps,
                struct fox_err *e) {
  const struct trial *t = &g->t[0];
  long before = t->ag.algo == FOX_ALGO_DQN ? t->ag.dqn.transitions
                                           : t->ag.ppo.updates * t->cfg.ppo.n_steps + t->ag.ppo.t;
  FOX_TRY(window_(g, chunks, r, e));
  long after = t->ag.algo == FOX_ALGO_DQN ? t->ag.dqn.transitions
                                          : t->ag.ppo.updates * t->cfg.ppo.n_steps + t->ag.ppo.t;
  *steps = (double)(after - before) * (t->ag.algo == FOX_ALGO_DQN ? 1 : t->cfg.num_envs);
  return 0;
}

/* DQN from its first step: the first chunks of each shape (run as they are, then captured),
 * acting up to learning_starts, the chunk that crosses it, the first learning chunks; then a
 * window of learning in the steady state. first: the first epoch of `total` transitions, its
 * start measured, its rest at the learning window's rate (every later chunk replays the one
 * learning shape: 4,688 vector steps are 293 chunks of 16). */
static int dqn_rates_(int m, int graphs, const struct dataset *ds, const struct backend *be,
                      const struct device_dataset *dev, double total, struct rate_ *warm,
                      struct rate_ *learn, struct rate_ *first, struct fox_err *e) {
  static struct group_ g;
  FOX_TRY(open_(&g, m, FOX_ALGO_DQN, graphs, ds, be, dev, e));
  const struct trial *t = &g.t[0];
  double calls = 0, nodes = 0, steps, done = 0;
  struct rate_ r;
  int rc = run_(&g, 2, &r, &steps, e);
  if (rc == 0) {
    add_(&calls, &nodes, &r, steps), done += steps;
    rc = run_(&g, 6, warm, &steps, e);
  }
  if (rc == 0)
    add_(&calls, &nodes, warm, steps), done += steps;
  while (rc == 0 && t->ag.dqn.transitions < t->ag.dqn.cfg.learning_starts + 3 * 1024) {
    rc = run_(&g, 1, &r, &steps, e);
    if (rc == 0)
      add_(&calls, &nodes, &r, steps), done += steps;
  }
  if (rc == 0)
    rc = run_(&g, 4, learn, &steps, e);
  if (rc == 0) {
    double rest = (total - done) / 1000.0;
    *first = *learn;
    first->nk = 0;
    first->calls = 1000.0 * (calls + rest * learn->calls) / total;
    first->nodes = 1000.0 * (nodes + rest * learn->nodes) / total;
    first->graph_launches = first->launches = first->copies = first->syncs = 0;
  }
  close_(&g);
  return rc;
}

/* PPO: two rollouts (the shape run, then captured), a window of two more (replays); the first
 * epoch of `total` transitions: those four, the rollouts after them at the window's rate, and
 * the epoch's last part of a rollout (run as it is: a shape seen once), measured. */
static int ppo_rates_(int m, int graphs, const struct dataset *ds, const struct backend *be,
                      const struct device_dataset *dev, double total, struct rate_ *win,
                      struct rate_ *first, struct fox_err *e) {
  static struct group_ g;
  FOX_TRY(open_(&g, m, FOX_ALGO_PPO, graphs, ds, be, dev, e));
  const struct trial *t = &g.t[0];
  double calls = 0, nodes = 0, steps, done = 0;
  struct rate_ r;
  long n = t->cfg.num_envs;
  long vec = (long)((total + (double)n - 1) / (double)n), tail = vec % t->cfg.ppo.n_steps;
  int rc = run_(&g, 2, &r, &steps, e);
  if (rc == 0) {
    add_(&calls, &nodes, &r, steps), done += steps;
    rc = run_(&g, 2, win, &steps, e);
  }
  if (rc == 0) {
    add_(&calls, &nodes, win, steps), done += steps;
    if (tail) {
      clear_();
      rc = chunk_run(&g.p, tail, e);
      struct backend_counts c = counters_take();
      calls += (double)counters_calls(&c);
      nodes += (double)c.nodes;
      done += (double)(tail * n);
    }
  }
  if (rc == 0) {
    double rest = (double)vec * n - done;
    *first = *win;
    first->nk = 0;
    first->calls = 1000.0 * (calls + rest / 1000.0 * win->calls) / ((double)vec * n);
    first->nodes = 1000.0 * (nodes + rest / 1000.0 * win->nodes) / ((double)vec * n);
    first->graph_launches = first->launches = first->copies = first->syncs = 0;
  }
  close_(&g);
  return rc;
}

/* The ways the trials reach the device: the reference (before populations: each trial alone on
 * its own thread, every kernel launched, every update member by member with cuBLAS), a trial
 * alone as a population of 1 with graphs, and the headline's TRIALS trials as one population,
 * without graphs and with them (the default). */
struct mode_ {
  const char *name, *key;
  int m, graphs, generic;
};
static const struct mode_ modes_[] = {
    {"reference (1 alone, no graphs, own)", "reference", 1, 0, 1},
    {"1 alone (graphs)", "alone", 1, 1, 0},
    {"population of 5 (no graphs)", "population_no_graphs", TRIALS, 0, 0},
    {"population of 5 (graphs)", "population", TRIALS, 1, 0},
};
#define NMODE ((int)(sizeof modes_ / sizeof *modes_))

int main(int argc, char **argv) {
  const char *json = argc > 1 ? argv[1] : "bench_device_model.json";
  long bars = argc > 2 ? atol(argv[2]) : 430013; /* train = floor(0.7 (bars - 1441)) */
  const struct backend *cuda;
  char name[256];
  struct dataset ds;
  struct device_dataset dev;
  int open = bench_cuda_open("bench_device_model", bars, &cuda, name, sizeof name, &ds, &dev);
  if (open != 0)
    return open;
  struct backend generic = *cuda; /* the agents' own operations, member by member */
  generic.pops = NULL;
  struct fox_err e = {0};
  struct config def;
  config_defaults(&def);
  double total = (double)(ds.split[FOX_SPLIT_TRAIN][1] - ds.split[FOX_SPLIT_TRAIN][0]);
  double val = (double)(ds.split[FOX_SPLIT_VAL][1] - ds.split[FOX_SPLIT_VAL][0]);
  double warm_tr = def.dqn.learning_starts;
  static struct rate_ dw[NMODE], dl[NMODE], df[NMODE], pr[NMODE], pf[NMODE];
  uint64_t peak[NMODE];
  for (int g = 0; g < NMODE; g++) {
    const struct mode_ *md = &modes_[g];
    const struct backend *be = md->generic ? &generic : cuda;
    counters_peak_reset(); /* the dataset stays in: the headline holds it too */
    if (dqn_rates_(md->m, md->graphs, &ds, be, &dev, total, &dw[g], &dl[g], &df[g], &e) != 0 ||
        ppo_rates_(md->m, md->graphs, &ds, be, &dev, total, &pr[g], &pf[g], &e) != 0)
      return fail_(&e);
    peak[g] = counters_peak_bytes();
  }
  cuda->dataset_release(&dev);
  dataset_free(&ds);

  printf("# device: %s; headline: %d DQN trials at the defaults x %.0f train bars x 1 epoch "
         "(learning from %.0f), %.0f validation bars\n", name, TRIALS, total, warm_tr, val);
  printf("# per 1,000 env steps of one trial (measured; a population's work shared equally "
         "among its members; a first epoch: its start measured, the rest at the steady rate)\n");
  printf("%-42s %10s %10s %10s %10s %10s\n", "window", "host calls", "launch+cp", "graphs",
         "kernels", "syncs");
  for (int g = 0; g < NMODE; g++) {
    char what[96];
    const char *mn = modes_[g].name;
    snprintf(what, sizeof what, "dqn acting: %s", mn);
    rate_row_(what, &dw[g]);
    snprintf(what, sizeof what, "dqn learning: %s", mn);
    rate_row_(what, &dl[g]);
    snprintf(what, sizeof what, "dqn first epoch: %s", mn);
    rate_row_(what, &df[g]);
    snprintf(what, sizeof what, "ppo rollout + update: %s", mn);
    rate_row_(what, &pr[g]);
    snprintf(what, sizeof what, "ppo first epoch: %s", mn);
    rate_row_(what, &pf[g]);
  }
  const int P = NMODE - 1, R = 0;
  printf("%-42s %10.5f\n", "dqn learning kernels: population / ref", dl[P].nodes / dl[R].nodes);
  printf("%-42s %10.5f\n", "dqn first epoch kernels: population / ref",
         df[P].nodes / df[R].nodes);
  printf("%-42s %10.5f\n", "dqn learning calls: population / ref", dl[P].calls / dl[R].calls);
  printf("%-42s %10.5f\n", "ppo kernels: population / ref", pr[P].nodes / pr[R].nodes);
  printf("%-42s %10.5f\n", "ppo first epoch calls: population / ref", pf[P].calls / pf[R].calls);
  for (int g = 0; g < NMODE; g += P)
    if (dl[g].nk) {
      printf("# dqn learning per 1,000 env steps of one trial, by kernel: %s (emulation's "
             "profile; non-cuBLAS bytes and flops from their figures per thread)\n",
             modes_[g].name);
      printf("%-28s %10s %12s %12s %12s\n", "kernel", "runs", "threads", "MFLOP", "MB");
      for (int i = 0; i < dl[g].nk; i++)
        printf("%-28s %10.1f %12.0f %12.2f %12.3f\n", dl[g].k[i].name, dl[g].k[i].runs,
               dl[g].k[i].threads, dl[g].k[i].flops / 1e6, dl[g].k[i].bytes / 1e6);
    }
  printf("# device memory, the process's peak after each mode (MB): ");
  for (int g = 0; g < NMODE; g++)
    printf("%s%s %.1f", g ? ", " : "", modes_[g].key, (double)peak[g] / 1e6);
  printf("\n# predicted headline (seconds; host calls serialised over the %d trials; device: the "
         "trials' chains overlapping, a population's one chain for all, at the floors (lo) or "
         "with every byte from DRAM (hi))\n", TRIALS);
  printf("%-8s %-22s %10s %10s %10s %10s %10s %10s\n", "device", "mode", "host", "device lo",
         "device hi", "eval", "wall lo", "wall hi");
  struct headline_ h[NDEV][NMODE];
  for (int d = 0; d < NDEV; d++)
    for (int g = 0; g < NMODE; g++) {
      h[d][g] = headline_(&df[g], &dw[g], &dl[g], total, warm_tr, val, &devices_[d]);
      printf("%-8s %-22s %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f\n", devices_[d].name,
             modes_[g].key, h[d][g].host, h[d][g].device_lo, h[d][g].device_hi, h[d][g].eval,
             h[d][g].wall_lo, h[d][g].wall_hi);
    }
  for (int d = 0; d < NDEV; d++)
    printf("%-8s %-22s %10s %10s %10s %10s %10.3f %10.3f\n", devices_[d].name,
           "population / ref", "", "", "", "", h[d][P].wall_lo / h[d][R].wall_lo,
           h[d][P].wall_hi / h[d][R].wall_hi);
  if (!dl[P].nk)
    printf("# measured on this device: %.4f s (population of %d, graphs) and %.4f s (reference) "
           "per 1,000 DQN learning env steps of one trial\n", dl[P].seconds, TRIALS,
           dl[R].seconds);

  FILE *f = fopen(json, "w");
  if (!f) {
    perror(json);
    return 1;
  }
  fprintf(f, "{\"device\": \"%s\", \"bars\": %ld, \"train_bars\": %.0f, \"val_bars\": %.0f, "
             "\"trials\": %d, ", name, bars, total, val, TRIALS);
  for (int g = 0; g < NMODE; g++) {
    fprintf(f, "\"%s\": {\"members\": %d, \"graphs\": %s, \"peak_device_bytes\": %llu, ",
            modes_[g].key, modes_[g].m, modes_[g].graphs ? "true" : "false",
            (unsigned long long)peak[g]);
    json_rate_(f, "dqn_acting", &dw[g]);
    fprintf(f, ", ");
    json_rate_(f, "dqn_learning", &dl[g]);
    fprintf(f, ", ");
    json_rate_(f, "dqn_first_epoch", &df[g]);
    fprintf(f, ", ");
    json_rate_(f, "ppo", &pr[g]);
    fprintf(f, ", ");
    json_rate_(f, "ppo_first_epoch", &pf[g]);
    fprintf(f, "}, ");
  }
  fprintf(f, "\"predicted_headline_seconds\": {");
  for (int d = 0; d < NDEV; d++)
    for (int g = 0; g < NMODE; g++)
      fprintf(f, "%s\"%s_%s\": {\"host\": %.3f, \"device_lo\": %.3f, \"device_hi\": %.3f, "
                 "\"eval\": %.3f, \"wall_lo\": %.3f, \"wall_hi\": %.3f}", d || g ? ", " : "",
              devices_[d].name, modes_[g].key, h[d][g].host, h[d][g].device_lo,
              h[d][g].device_hi, h[d][g].eval, h[d][g].wall_lo, h[d][g].wall_hi);
  fprintf(f, "}}\n");
  fclose(f);
  return 0;
}
