/* Every entry of the agents' operation table (src/backend/agent_ops.h) on the CUDA backend
 * against the CPU backend, on the same inputs in each backend's memory: both run one FOX_HD
 * function per item (kernels/dqn_step.h, ppo_step.h) and the sums on one thread in the CPU's
 * order, so every array must hold the same bits after every call. Sizes span several CUDA
 * blocks; inputs reach the branches (dones of each kind, a ring that wraps, exploration 0 to 1,
 * logits far apart, a non-finite loss). Equal outputs would not catch an op wrong on both
 * sides, so results are also checked by hand; then the networks' clipped Adam step (equal to
 * the GEMMs' rounding) and soft target update (bitwise). Skips (77) without a device. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "act_step.h"
#include "agents/net.h"
#include "backend/agent_ops.h"
#include "backend/backend.h"
#include "dqn_step.h"
#include "fox_check.h"
#include "ppo_step.h"
#include "util/rng.h"

#define NENV 300    /* a vector step: 3 blocks of FOX_CUDA_BLOCK */
#define CAP 500     /* the ring: NENV transitions at POS wrap */
#define POS 400
#define BARS 1000   /* rows of the dataset's states */
#define BATCH 200   /* DQN */
#define NR (7 * 45) /* PPO rollout: 7 steps of 45 environments */
#define MB 150      /* PPO minibatch */
#define NF FOX_NFEAT
#define SD (NF + FOX_NPORTFOLIO)

/* One array on both backends (p[0] CPU, p[1] CUDA), the host input pushed to both (in) and
 * each side's last download (h). kind: 'u' bytes, 'i' 4-byte integers, 'f' floats, 'd'
 * doubles; 'F', 'D' the same left out of the bitwise comparison (the networks' GEMMs). */
struct twin {
  const char *name;
  char kind;
  size_t n, bytes;
  void *p[2], *h[2], *in;
};
static struct twin pool_[80];
static int npool_;
static const struct backend *be_[2];
static struct fox_err e_;
static struct rng rng_;
/* On the emulation every op must match the CPU bit for bit. A real device's exp and log (PPO's
 * softmax in double) may differ from glibc's in the last place: there, floats and doubles
 * agree to a few ulps and the rest (actions, indices, flags) exactly. */
static int exact_ = 1;

#define P(t) ((t)->p[s])
#define P_(t, side) ((t)->p[side])
/* The call on the CPU backend's table, then on the CUDA one (s names the side for P). */
#define BOTH(call)                                                                             \
  for (int s = 0; s < 2; s++)                                                                  \
  CHECK(be_[s]->agents->call == 0, "%s: %s", be_[s]->name, e_.msg)

static void push_side_(struct twin *t, int s) {
  CHECK(be_[s]->mem_h2d(t->p[s], t->in, t->bytes, &e_) == 0, "h2d: %s", e_.msg);
}

static void push_(struct twin *t) {
  for (int s = 0; s < 2; s++)
    push_side_(t, s);
}

/* Zeroed on both sides: an output starts the same whatever an op leaves alone. */
static struct twin *tw_(const char *name, char kind, size_t n) {
  if (npool_ == (int)(sizeof pool_ / sizeof pool_[0]))
    abort();
  struct twin *t = &pool_[npool_++];
  *t = (struct twin){name, kind, n, n * (kind == 'd' || kind == 'D' ? 8 : kind == 'u' ? 1 : 4)};
  t->in = calloc(1, t->bytes);
  for (int s = 0; s < 2; s++) {
    t->h[s] = malloc(t->bytes);
    if (!t->in || !t->h[s] || !(t->p[s] = be_[s]->mem_alloc(t->bytes, &e_))) {
      fprintf(stderr, "out of memory: %s\n", e_.msg);
      exit(1);
    }
  }
  push_(t);
  return t;
}

static void *read_(struct twin *t, int s) {
  CHECK(be_[s]->mem_d2h(t->h[s], t->p[s], t->bytes, &e_) == 0, "d2h: %s", e_.msg);
  return t->h[s];
}

/* After op: every array, not only its outputs (a stray write on one side shows too), bit for
 * bit; NaN matches NaN whatever its payload (a device may canonicalise it). h[0] then holds
 * the CPU's values for the hand checks. */
static void sync_(const char *op) {
  for (int k = 0; k < npool_; k++) {
    struct twin *t = &pool_[k];
    const unsigned char *c = read_(t, 0), *g = read_(t, 1);
    size_t sz = t->bytes / t->n, first = t->n;
    for (size_t i = 0; t->kind >= 'a' && i < t->n && first == t->n; i++) {
      double x = 0, y = 0;
      if (memcmp(c + i * sz, g + i * sz, sz) == 0)
        continue;
      if (t->kind == 'f')
        x = ((const float *)c)[i], y = ((const float *)g)[i];
      if (t->kind == 'd')
        x = ((const double *)c)[i], y = ((const double *)g)[i];
      double ulps = t->kind == 'f' ? 4 * 1.2e-7 : 4 * 2.3e-16;
      if (!exact_ && (t->kind == 'f' || t->kind == 'd') && fabs(x - y) <= ulps * fabs(x))
        continue;
      if (!isnan(x) || !isnan(y))
        first = i;
    }
    CHECK(first == t->n, "%s: %s: cpu and cuda differ first at element %zu of %zu", op,
          t->name, first, t->n);
    if (first < t->n) /* the CPU's values on both: later ops are blamed for their own */
      be_[1]->mem_h2d(t->p[1], t->h[0], t->bytes, &e_);
  }
}

/* Floats N(0, scale^2), or bytes uniform in 0 .. k-1 (k 0: dones, 15% terminal and 15%
 * truncated), into the input, pushed. */
static float *normal_(struct twin *t, double scale) {
  float *x = t->in;
  for (size_t i = 0; i < t->n; i++)
    x[i] = (float)(scale * rng_normal(&rng_));
  push_(t);
  return x;
}
static uint8_t *draw_(struct twin *t, int k) {
  uint8_t *x = t->in;
  for (size_t i = 0; i < t->n; i++) {
    double u = rng_uniform(&rng_);
    x[i] = (uint8_t)(k ? u * k : u < .15 ? FOX_DONE_TERMINAL : u < .3 ? FOX_DONE_TRUNCATED : 0);
  }
  push_(t);
  return x;
}
static int32_t *bars_(struct twin *t) { /* s' is at bar + 1: below BARS - 1 */
  int32_t *x = t->in;
  for (size_t i = 0; i < t->n; i++)
    x[i] = (int32_t)(rng_uniform(&rng_) * (BARS - 1));
  push_(t);
  return x;
}

/* The clocks (kernels/dqn_step.h, ppo_step.h) as arrays of int64 on both sides: pushed as set
 * here, compared bit for bit as doubles would be. */
static struct twin *dclk_, *pclk_;
static void dqn_clock_(struct dqn_clock c, int side) {
  memcpy(dclk_->in, &c, sizeof c);
  if (side < 0)
    push_(dclk_);
  else
    push_side_(dclk_, side);
}
static void ppo_clock_(struct ppo_clock c, int side) {
  memcpy(pclk_->in, &c, sizeof c);
  if (side < 0)
    push_(pclk_);
  else
    push_side_(pclk_, side);
}

/* Two updates' losses into acc (FOX_ACC_*), then a NaN term twice: the first marks BAD with
 * 1 + its transitions, the second keeps it. finite gets the CPU's acc after the first pair. */
static void acc_(const char *op, struct twin *terms, size_t bad_at, long tr,
                 void (*sum)(struct twin *, struct twin *, long, int), double *finite) {
  struct twin *acc = tw_("acc", 'd', FOX_ACC_N), *nan = tw_("nan terms", 'd', terms->n);
  memcpy(nan->in, terms->h[0], terms->bytes);
  ((double *)nan->in)[bad_at] = NAN;
  push_(nan);
  for (int s = 0; s < 2; s++)
    sum(terms, acc, tr, s), sum(terms, acc, 2 * tr, s);
  sync_(op);
  memcpy(finite, acc->h[0], acc->bytes);
  for (int s = 0; s < 2; s++)
    sum(nan, acc, 3 * tr, s), sum(nan, acc, 4 * tr, s);
  sync_(op);
  for (int s = 0; s < 2; s++) {
    const double *a = read_(acc, s);
    CHECK(a[FOX_ACC_BAD] == 3 * tr + 1 && a[FOX_ACC_UPDATES] == 4 && isnan(a[FOX_ACC_LOSS]),
          "%s on %s: bad %g updates %g", op, be_[s]->name, a[FOX_ACC_BAD], a[FOX_ACC_UPDATES]);
  }
}
/* The transitions a loss is marked with come from the clock: DQN's count, PPO's rollouts
 * (none done here: the rollout itself is tr). DQN's sum counts the update on the clock. */
static void dqn_sum_(struct twin *t, struct twin *acc, long tr, int s) {
  dqn_clock_((struct dqn_clock){tr, 41, 0, 0}, s);
  CHECK(be_[s]->agents->dqn_loss_sum(P(t), BATCH, P(dclk_), P(acc), &e_) == 0, "%s", e_.msg);
  const struct dqn_clock *c = read_(dclk_, s);
  CHECK(c->updates == 42 && c->transitions == tr, "dqn_loss_sum on %s: clock %lld %lld",
        be_[s]->name, (long long)c->transitions, (long long)c->updates);
}
static void ppo_sum_(struct twin *t, struct twin *acc, long tr, int s) {
  ppo_clock_((struct ppo_clock){0}, s);
  CHECK(be_[s]->agents->ppo_loss_sum(P(t), MB, .01, .5, P(pclk_), tr, P(acc), &e_) == 0, "%s",
        e_.msg);
}

static void test_dqn_(void) {
  /* Exploration; every tenth row a three-way tie, which greed breaks to action 0. */
  struct twin *tq = tw_("q", 'f', NENV * 3), *ta = tw_("actions", 'u', NENV);
  float *q = normal_(tq, 1.0);
  for (int i = 0; i < NENV; i += 10)
    q[3 * i + 1] = q[3 * i + 2] = q[3 * i];
  push_(tq);
  /* Epsilon at the clock's 12345 transitions: flat schedules, one that passes 0.3 there, a
   * greedy one still in its uniform warm-up (to 20000), and one coin for every environment at
   * 0.5 (all explore or none: which is the seed's; both backends must agree). */
  const struct dqn_eps eps[5] = {{0, 0, 1, 0, 0},     {1, 0.3, 1000, 0, 0}, {1, 1, 1, 0, 0},
                                 {0, 0, 1, 20000, 0}, {0.5, 0.5, 1, 0, 1}};
  const char *names[5] = {"dqn_explore eps 0", "dqn_explore eps 0.3", "dqn_explore eps 1",
                          "dqn_explore warm-up", "dqn_explore one coin"};
  dqn_clock_((struct dqn_clock){12345, 0, 0, 0}, -1);
  for (int k = 0; k < 5; k++) {
    BOTH(dqn_explore(P(tq), NENV, P(dclk_), &eps[k], 7, P(ta), &e_));
    sync_(names[k]);
    const uint8_t *a = ta->h[0];
    int greedy = 0, bad = 0;
    for (int i = 0; i < NENV; i++)
      greedy += a[i] == dqn_argmax3(q + 3 * i), bad += a[i] > 2 || (!k && !(i % 10) && a[i]);
    printf("%-20s greedy %d of %d\n", names[k], greedy, NENV);
    CHECK(!bad && (k == 4 && greedy == NENV ? 1
                   : k                      ? greedy < NENV && greedy > NENV / 5
                                            : greedy == NENV),
          "%s: greedy %d", names[k], greedy);
  }
  /* Dueling (worked values in test_hand_). */
  struct twin *tr = tw_("raw", 'f', NENV * 4), *tqo = tw_("dueling q", 'f', NENV * 3);
  struct twin *tdq = tw_("dq", 'f', NENV * 3), *tdr = tw_("draw", 'f', NENV * 4);
  normal_(tr, 2.0), normal_(tdq, 1.0);
  BOTH(dqn_dueling(P(tr), NENV, P(tqo), &e_));
  sync_("dqn_dueling");
  BOTH(dqn_dueling_backward(P(tdq), NENV, P(tdr), &e_));
  sync_("dqn_dueling_backward");

  /* The ring, prefilled, then NENV transitions at POS: entries POS .. CAP - 1, 0 .. 199. */
  struct twin *rt[5] = {tw_("ring bar", 'i', CAP), tw_("ring pf", 'f', CAP * 6),
                        tw_("ring r", 'f', CAP), tw_("ring a", 'u', CAP),
                        tw_("ring term", 'u', CAP)};
  int bad = 0;
  const int32_t *bar0 = bars_(rt[0]);
  const float *r0 = normal_(rt[2], 1.0);
  normal_(rt[1], 1.0), draw_(rt[3], 3), draw_(rt[4], 2);
  struct replay_dev rb[2];
  for (int s = 0; s < 2; s++)
    rb[s] = (struct replay_dev){CAP, P(rt[0]), P(rt[1]), P(rt[2]), P(rt[3]), P(rt[4]), NF};
  struct twin *tb = tw_("bars", 'i', NENV), *ts = tw_("s", 'f', NENV * SD);
  struct twin *ts2 = tw_("s2", 'f', NENV * SD), *tia = tw_("a", 'u', NENV);
  struct twin *tir = tw_("r", 'f', NENV), *tdn = tw_("dones", 'u', NENV);
  const int32_t *bars = bars_(tb);
  const float *st = normal_(ts, 1.0), *st2 = normal_(ts2, 1.0), *ir = normal_(tir, 1.0);
  const uint8_t *ia = draw_(tia, 3), *dn = draw_(tdn, 0);
  dqn_clock_((struct dqn_clock){0, 0, POS, 0}, -1);
  BOTH(replay_insert(&rb[s], P(dclk_), 0, NENV, P(tb), P(ts), P(ts2), P(tia), P(tir), P(tdn),
                     &e_));
  sync_("replay_insert");
  const int32_t *gbar = rt[0]->h[0];
  const float *gpf = rt[1]->h[0], *gr = rt[2]->h[0];
  const uint8_t *ga = rt[3]->h[0], *gt = rt[4]->h[0];
  for (int i = 0; i < NENV; i++) {
    int k = (POS + i) % CAP;
    bad += gbar[k] != bars[i] || ga[k] != ia[i] || gr[k] != ir[i];
    bad += gt[k] != (dn[i] == FOX_DONE_TERMINAL); /* a truncation bootstraps */
    for (int j = 0; j < 3; j++)
      bad += gpf[6 * k + j] != st[SD * i + NF + j] || gpf[6 * k + 3 + j] != st2[SD * i + NF + j];
  }
  for (int k = POS + NENV - CAP; k < POS; k++) /* untouched */
    bad += gbar[k] != bar0[k] || gr[k] != r0[k];
  CHECK(!bad, "replay_insert: %d entries off", bad);

  /* A batch from the full ring: s from the dataset's row bar, s' from bar + 1. */
  struct twin *tdata = tw_("data states", 'f', (size_t)BARS * NF);
  struct twin *tbs = tw_("batch s", 'f', 2 * BATCH * SD), *tba = tw_("batch a", 'u', BATCH);
  struct twin *tbr = tw_("batch r", 'f', BATCH), *tbt = tw_("batch term", 'u', BATCH);
  const float *data = normal_(tdata, 1.0), *bs = tbs->h[0], *br = tbr->h[0];
  const uint8_t *ba = tba->h[0], *bt = tbt->h[0];
  dqn_clock_((struct dqn_clock){CAP + 100, 7, 100, CAP}, -1); /* update 7, a full ring */
  BOTH(replay_sample(&rb[s], P(dclk_), P(tdata), 99, BATCH, P(tbs), P(tba), P(tbr), P(tbt),
                     &e_));
  sync_("replay_sample");
  int terminals = 0;
  bad = 0;
  for (int i = 0; i < BATCH; i++) {
    size_t k = (size_t)dqn_replay_index(99, 7, (uint64_t)i, CAP), b = (size_t)gbar[k];
    const float *s1 = bs + (size_t)i * SD, *s2 = bs + (size_t)(BATCH + i) * SD;
    bad += memcmp(s1, data + b * NF, NF * 4) || memcmp(s2, data + (b + 1) * NF, NF * 4) ||
           memcmp(s1 + NF, gpf + 6 * k, 12) || memcmp(s2 + NF, gpf + 6 * k + 3, 12);
    bad += ba[i] != ga[k] || br[i] != gr[k] || bt[i] != gt[k];
    terminals += bt[i];
  }
  CHECK(!bad && terminals && terminals < BATCH, "replay_sample: %d off", bad);

  /* The losses on that batch, plain and Double DQN; a terminal's target is r alone. */
  struct twin *tqt = tw_("q target", 'f', BATCH * 3), *tqn = tw_("q online'", 'f', BATCH * 3);
  struct twin *tqq = tw_("q taken", 'f', BATCH * 3), *tg1 = tw_("dq", 'f', BATCH * 3);
  struct twin *tg2 = tw_("dq double", 'f', BATCH * 3), *tt1 = tw_("terms", 'd', BATCH);
  struct twin *tt2 = tw_("terms double", 'd', BATCH);
  const float *qt = normal_(tqt, 2.0), *qn = normal_(tqn, 2.0), *qq = normal_(tqq, 2.0);
  BOTH(dqn_loss(P(tqt), NULL, P(tqq), P(tba), P(tbr), P(tbt), .99, BATCH, P(tg1), P(tt1), &e_));
  sync_("dqn_loss");
  BOTH(dqn_loss(P(tqt), P(tqn), P(tqq), P(tba), P(tbr), P(tbt), .99, BATCH, P(tg2), P(tt2), &e_));
  sync_("dqn_loss double");
  const double *t1 = tt1->h[0], *t2 = tt2->h[0];
  const float *g1 = tg1->h[0];
  int huber[2] = {0, 0}, differ = 0;
  bad = 0;
  for (int i = 0; i < BATCH; i++) {
    differ += t1[i] != t2[i];
    bad += t1[i] != t2[i] && (bt[i] || dqn_argmax3(qt + 3 * i) == dqn_argmax3(qn + 3 * i));
    double d = (double)qq[3 * i + ba[i]] - br[i], a = fabs(d);
    if (!bt[i])
      continue;
    huber[a < 1]++;
    bad += t1[i] != (a < 1 ? 0.5 * d * d : a - 0.5);
    for (int j = 0; j < 3; j++)
      bad += g1[3 * i + j] != (j != ba[i] ? 0.0f : (float)((a < 1 ? d : d > 0 ? 1 : -1) / BATCH));
  }
  CHECK(!bad && differ && huber[0] && huber[1], "dqn_loss: %d off, Double differs on %d", bad,
        differ);
  double acc[FOX_ACC_N], want = 0;
  acc_("dqn_loss_sum acc", tt1, 17, 1000, dqn_sum_, acc);
  for (int i = 0; i < BATCH; i++)
    want += 2 * t1[i] / BATCH;
  CHECK(acc[FOX_ACC_UPDATES] == 2 && !acc[FOX_ACC_BAD] &&
            fabs(acc[FOX_ACC_LOSS] - want) <= 1e-12 * want,
        "dqn_loss_sum: loss %.17g, want %.17g", acc[FOX_ACC_LOSS], want);
  printf("dqn: batch terminals %d, huber quadratic %d linear %d, Double differs on %d\n",
         terminals, huber[1], huber[0], differ);
}

/* Logits from nearly flat to 60 apart; row 0 is {80, -80, 0} (probabilities 1, e^-160,
 * e^-80). */
static float *logits_(struct twin *t) {
  float *z = t->in;
  for (size_t i = 0; i < t->n; i++)
    z[i] = (float)((i / 3 % 3 ? i / 3 % 3 == 1 ? 3 : 30 : 0.1) * rng_normal(&rng_));
  z[0] = 80, z[1] = -80, z[2] = 0;
  push_(t);
  return z;
}

/* log softmax(z)[a] in double on the host. */
static double logp_(const float *z, int a) {
  double mx = fmax(z[0], fmax(z[1], z[2]));
  return z[a] - mx - log(exp(z[0] - mx) + exp(z[1] - mx) + exp(z[2] - mx));
}

static void test_ppo_(void) {
  struct twin *tl = tw_("logits", 'f', NENV * 3), *tpa = tw_("sampled", 'u', NENV);
  struct twin *tlp = tw_("sampled logp", 'f', NENV);
  const float *lg = logits_(tl), *slp = tlp->h[0];
  ppo_clock_((struct ppo_clock){3}, -1); /* step 3 x 10 + 12 = 42 of the run */
  BOTH(ppo_sample(P(tl), NENV, P(pclk_), 10, 12, 5, P(tpa), P(tlp), &e_));
  sync_("ppo_sample");
  const uint8_t *pa = tpa->h[0];
  int bad = 0, count[4] = {0};
  for (int i = 0; i < NENV; i++) {
    double want = pa[i] > 2 ? 1 : logp_(lg + 3 * i, pa[i]);
    count[pa[i] > 2 ? 3 : pa[i]]++;
    bad += !(fabs(slp[i] - want) <= 1e-5 * (1 + fabs(want)));
  }
  CHECK(!bad && !pa[0] && count[0] && count[1] && count[2] && !count[3], "ppo_sample: %d off",
        bad);

  /* Only a truncation's reward gets gamma V(s'). */
  struct twin *tr = tw_("rewards", 'f', NENV), *td = tw_("dones", 'u', NENV);
  struct twin *tv = tw_("v next", 'f', NENV), *tro = tw_("slot r", 'f', NENV);
  struct twin *tdo = tw_("slot d", 'u', NENV);
  const float *r = normal_(tr, 1.0), *v = normal_(tv, 5.0), *ro_r = tro->h[0];
  const uint8_t *d = draw_(td, 0), *ro_d = tdo->h[0];
  BOTH(ppo_bootstrap(NENV, P(tr), P(td), P(tv), .99, P(tro), P(tdo), &e_));
  sync_("ppo_bootstrap");
  bad = 0;
  for (int i = 0; i < NENV; i++)
    bad += ro_d[i] != d[i] ||
           ro_r[i] != (d[i] == FOX_DONE_TRUNCATED ? r[i] + (float)(.99 * v[i]) : r[i]);
  CHECK(!bad, "ppo_bootstrap: %d off", bad);

  /* A rollout, its GAE, a permutation of it, a minibatch of its first MB. */
  struct twin *tob = tw_("obs", 'f', NR * SD), *tlg = tw_("logp", 'f', NR);
  struct twin *tva = tw_("values", 'f', NR), *trw = tw_("rewards", 'f', NR);
  struct twin *tac = tw_("actions", 'u', NR), *tdd = tw_("dones", 'u', NR);
  struct twin *tlast = tw_("last values", 'f', NR / 7), *tadv = tw_("adv", 'f', NR);
  struct twin *tret = tw_("ret", 'f', NR), *tperm = tw_("perm", 'i', NR);
  const float *obs = normal_(tob, 1.0), *rlp = normal_(tlg, 1.0), *adv = tadv->h[0];
  normal_(tva, 2.0), normal_(trw, 1.0), normal_(tlast, 2.0), draw_(tdd, 0);
  const uint8_t *ac = draw_(tac, 3);
  struct rollout_dev ro[2];
  for (int s = 0; s < 2; s++)
    ro[s] = (struct rollout_dev){P(tob), P(tlg), P(tva), P(trw), P(tadv), P(tret), P(tac), P(tdd),
                                 SD};
  BOTH(ppo_gae(7, NR / 7, &ro[s], P(tlast), .99, .95, &e_));
  sync_("ppo_gae");
  ppo_clock_((struct ppo_clock){1}, -1); /* round 1 x 2 + 1 = 3 */
  BOTH(ppo_permute(NR, 5, P(pclk_), 2, 1, P(tperm), &e_));
  sync_("ppo_permute");
  const uint32_t *perm = tperm->h[0];
  char seen[NR] = {0};
  bad = 0;
  for (size_t k = 0; k < NR; k++)
    bad += perm[k] >= NR || seen[perm[k] % NR]++;
  CHECK(!bad, "ppo_permute: not a permutation of 0 .. %d", NR - 1);

  const char *names[10] = {"mb obs", "mb logits", "mb values", "mb dlogits", "mb dvalues",
                           "mb adv", "mb oldlogp", "mb oldv", "mb ret", "mb act"};
  struct twin *m[10], *tstats = tw_("stats", 'd', 2);
  for (int j = 0; j < 10; j++)
    m[j] = tw_(names[j], j == 9 ? 'u' : 'f', MB * (j ? j == 1 || j == 3 ? 3 : 1 : SD));
  struct minibatch_dev mb[2];
  for (int s = 0; s < 2; s++)
    mb[s] = (struct minibatch_dev){P(m[0]), P(m[1]), P(m[2]), P(m[3]), P(m[4]),
                                   P(m[5]), P(m[6]), P(m[7]), P(m[8]), P(m[9]), SD};
  BOTH(ppo_gather(&ro[s], P(tperm), MB, &mb[s], P(tstats), &e_));
  sync_("ppo_gather");
  const float *mobs = m[0]->h[0], *madv = m[5]->h[0], *mlp = m[6]->h[0];
  const double *stats = tstats->h[0];
  const uint8_t *mact = m[9]->h[0];
  double mean = 0, var = 0;
  bad = 0;
  for (int j = 0; j < MB; j++) {
    size_t k = perm[j];
    bad += memcmp(mobs + (size_t)j * SD, obs + k * SD, SD * 4) || madv[j] != adv[k] ||
           mact[j] != ac[k] || mlp[j] != rlp[k];
    mean += (double)adv[k] / MB;
  }
  for (int j = 0; j < MB; j++)
    var += (madv[j] - mean) * (madv[j] - mean) / (MB - 1);
  CHECK(!bad && fabs(stats[0] - mean) <= 1e-9 && fabs(stats[1] - sqrt(var)) <= 1e-9,
        "ppo_gather: %d off, stats %.17g %.17g, want %.17g %.17g", bad, stats[0], stats[1],
        mean, sqrt(var));

  /* The loss on new logits and values near the old ones, so that both clips sometimes bite. */
  float *ml = logits_(m[1]), *mv = normal_(m[2], 2.0), *oldlp = m[6]->in, *oldv = m[7]->in;
  for (int j = 0; j < MB; j++) {
    oldlp[j] = (float)(logp_(ml + 3 * j, mact[j]) + 0.3 * rng_normal(&rng_));
    oldv[j] = mv[j] + (float)(0.3 * rng_normal(&rng_));
  }
  push_(m[6]), push_(m[7]);
  struct twin *tterms = tw_("ppo terms", 'd', MB * 5);
  BOTH(ppo_loss(&mb[s], MB, P(tstats), .2, .01, .5, FOX_VLOSS_MAX, P(tterms), &e_));
  sync_("ppo_loss");
  const double *terms = tterms->h[0];
  const float *dz = m[3]->h[0];
  bad = 0;
  for (int j = 0; j < MB; j++) /* softmax's gradients sum to 0 over a row */
    bad += (terms[5 * j + 4] != 0 && terms[5 * j + 4] != 1) ||
           fabs((double)dz[3 * j] + dz[3 * j + 1] + dz[3 * j + 2]) > 1e-6;
  CHECK(!bad, "ppo_loss: %d rows off", bad);
  double acc[FOX_ACC_N];
  acc_("ppo_loss_sum acc", tterms, 5 * 3 + 1, 100, ppo_sum_, acc);
  double clipfrac = 0; /* the samples' clipped flags (term 4) */
  for (int j = 0; j < MB; j++)
    clipfrac += terms[5 * j + 4] / MB;
  CHECK(acc[FOX_ACC_UPDATES] == 2 && !acc[FOX_ACC_BAD] && clipfrac > 0 && clipfrac < 1 &&
            isfinite(acc[FOX_ACC_LOSS]),
        "ppo_loss_sum: updates %g, clip fraction %g", acc[FOX_ACC_UPDATES], clipfrac);
  printf("ppo: actions %d/%d/%d, adv mean %.4f std %.4f, clip fraction %.3f\n", count[0],
         count[1], count[2], stats[0], stats[1], clipfrac);
}

/* Worked by hand on the CPU backend's table (host arrays are its memory). */
static void test_hand_(void) {
  const struct agent_ops *ops = be_[0]->agents;
  /* GAE, gamma = lambda = 0.5, 2 steps: deltas 1 + 0.5 * 0.25 - 0.5 = 0.625 and
   * 2 + 0.5 * 1 - 0.25 = 2.25, so adv = {0.625 + 0.25 * 2.25, 2.25}; a done at step 0 (of
   * either kind: a truncation's bootstrap is already in its reward) leaves 1 - 0.5 there. */
  float r[2] = {1, 2}, v[2] = {.5f, .25f}, last = 1, adv[2], ret[2], q[3];
  uint8_t d[2] = {0, 0};
  struct rollout_dev ro = {.rewards = r, .values = v, .dones = d, .adv = adv, .ret = ret};
  ops->ppo_gae(2, 1, &ro, &last, .5, .5, &e_);
  CHECK(adv[0] == 1.1875f && adv[1] == 2.25f && ret[0] == 1.6875f && ret[1] == 2.5f,
        "gae %g %g %g %g", adv[0], adv[1], ret[0], ret[1]);
  d[0] = FOX_DONE_TRUNCATED;
  ops->ppo_gae(2, 1, &ro, &last, .5, .5, &e_);
  CHECK(adv[0] == .5f && ret[0] == 1 && adv[1] == 2.25f, "gae, done at 0: %g %g", adv[0], ret[0]);
  /* Dueling: raw {1, 2, 3, 7}, mean advantage 4: Q = 1 + {2, 3, 7} - 4; backward of
   * {1, 2, 3}: V gets the sum 6, each advantage its own minus the mean 2. */
  float dr[4];
  ops->dqn_dueling((float[4]){1, 2, 3, 7}, 1, q, &e_);
  ops->dqn_dueling_backward((float[3]){1, 2, 3}, 1, dr, &e_);
  CHECK(q[0] == -1 && q[1] == 0 && q[2] == 4, "dueling %g %g %g", q[0], q[1], q[2]);
  CHECK(dr[0] == 6 && dr[1] == -1 && dr[2] == 0 && dr[3] == 1, "dueling backward %g %g %g %g",
        dr[0], dr[1], dr[2], dr[3]);
  /* Permutations of 5 and of 1. */
  uint32_t p[5], mask = 0;
  struct ppo_clock pc = {0};
  ops->ppo_permute(5, 9, &pc, 1, 0, p, &e_);
  for (int i = 0; i < 5; i++)
    mask |= p[i] < 5 ? 1u << p[i] : 64u;
  CHECK(mask == 31, "permute 5: %u %u %u %u %u", p[0], p[1], p[2], p[3], p[4]);
  ops->ppo_permute(1, 9, &pc, 1, 0, p, &e_);
  CHECK(p[0] == 0, "permute 1: %u", p[0]);
  /* The ticks: 7 transitions into a ring of 5 at 3 (fill 4) wrap to 0 and fill it; a rollout
   * counted. */
  struct dqn_clock dc = {10, 2, 3, 4};
  ops->dqn_tick(&dc, 7, 5, &e_);
  CHECK(dc.transitions == 17 && dc.pos == 0 && dc.size == 5 && dc.updates == 2,
        "dqn_tick: %lld at %lld of %lld", (long long)dc.transitions, (long long)dc.pos,
        (long long)dc.size);
  ops->ppo_tick(&pc, &e_);
  CHECK(pc.updates == 1, "ppo_tick: %lld", (long long)pc.updates);
}

/* Elements of y further than rtol relative to x (plus atol) from it. */
static size_t off_(const float *x, const float *y, size_t n, double atol, double rtol) {
  size_t bad = 0;
  for (size_t i = 0; i < n; i++)
    bad += !(fabs((double)x[i] - y[i]) <= atol + rtol * fabs(x[i]));
  return bad;
}

/* One clipped Adam step of the same network on both backends: the GEMMs may round apart, so
 * the coefficient and the parameters agree to 1e-5 relative plus 1e-3 lr (ADAM_ATOL_); the
 * soft target update is elementwise (opt_blend_elem on both) and must agree bitwise from
 * identical parameters. A first Adam step moves a parameter by lr g / (|g| + eps), whose slope
 * eps / (|g| + eps)^2 passes a gradient's rounding dg on times up to lr / eps (at g near 0, or
 * a g whose sign the rounding decides). At eps 1e-8 a layer-0 gradient of 2e-7 (64 products
 * of order 1 cancelling), whose last bits differ between libxsmm's kernel on an AVX-512 FP16
 * Xeon and the device's dot products, moved its parameter 1e-4 lr apart. The nets here take
 * PPO's eps 1e-5, where a dg of 1e-9 moves a parameter at most 1e-4 lr, a tenth of the limit;
 * a defect (a gradient or a step missed) moves one by about lr. */
#define ADAM_ATOL_ 1e-6
static void test_nets_(void) {
  const int hidden[2] = {64, 32};
  struct net on[2], tg[2];
  struct twin *tx = tw_("net x", 'F', BATCH * SD), *tdy = tw_("net dy", 'F', BATCH * 4);
  struct twin *ty = tw_("net y", 'F', BATCH * 4), *tl = tw_("lanes", 'D', FOX_SQ_LANES);
  struct twin *tc = tw_("coef", 'F', 1);
  normal_(tx, 1.0), normal_(tdy, 1.0);
  float *w0 = NULL, *w[2], *b[2];
  size_t np = 0;
  for (int s = 0; s < 2; s++) {
    struct net *one = &on[s];
    CHECK(!net_create(one, be_[s]->nets, SD, hidden, 2, 4, FOX_ACT_RELU, 1e-5, &e_) &&
              !net_create(&tg[s], be_[s]->nets, SD, hidden, 2, 4, FOX_ACT_RELU, 1e-5, &e_),
          "%s: %s", be_[s]->name, e_.msg);
    if (!s) { /* the CPU's initial parameters, given to both */
      np = one->n_params, w0 = malloc(np * 4);
      CHECK(!net_init(one, &rng_, FOX_INIT_DEFAULT, 1.0, &e_) && !net_get_params(one, w0, &e_),
            "%s", e_.msg);
    }
    w[s] = malloc(np * 4), b[s] = malloc(np * 4);
    CHECK(!net_set_params(one, w0, &e_) && !net_zero_grad(one, &e_) &&
              !net_forward(one, P(tx), BATCH, P(ty), &e_) &&
              !net_backward(one, P(tdy), BATCH, &e_) &&
              !net_clip_step(&one, 1, P(tl), P(tc), 0.5, (struct opt_lr){1e-3, 0, 0}, NULL,
                             &e_) &&
              !net_get_params(one, w[s], &e_),
          "%s: %s", be_[s]->name, e_.msg);
  }
  size_t moved = 0, bad = off_(w[0], w[1], np, ADAM_ATOL_, 1e-5);
  const float *coef[2] = {read_(tc, 0), read_(tc, 1)};
  const double *lanes = read_(tl, 0);
  double norm = 0;
  for (int k = 0; k < FOX_SQ_LANES; k++)
    norm += lanes[k];
  norm = sqrt(norm);
  for (size_t i = 0; i < np; i++)
    moved += w[0][i] != w0[i];
  CHECK(!off_(read_(ty, 0), read_(ty, 1), BATCH * 4, 1e-6, 1e-5), "net forward differs");
  CHECK(*coef[0] < 1 && fabs(*coef[0] - 0.5 / (norm + 1e-6)) <= 1e-6 * *coef[0] &&
            !off_(coef[0], coef[1], 1, 0, 1e-5),
        "clip coef cpu %.9g cuda %.9g (norm %g)", *coef[0], *coef[1], norm);
  CHECK(!bad && moved > np / 2, "adam: %zu of %zu params differ, %zu moved", bad, np, moved);
  printf("net: %zu params, grad norm %.6g, clip coef %.9g / %.9g, %zu params off by > 1e-5\n",
         np, norm, *coef[0], *coef[1], bad);

  /* Blend from identical online (the CPU's stepped) and target (initial) parameters; tau 1
   * is a copy. */
  for (int s = 0; s < 2; s++)
    CHECK(!net_set_params(&on[s], w[0], &e_) && !net_set_params(&tg[s], w0, &e_) &&
              !net_blend(&tg[s], &on[s], 0.3, &e_) && !net_get_params(&tg[s], b[s], &e_),
          "%s: %s", be_[s]->name, e_.msg);
  size_t first = np;
  for (size_t i = 0; i < np; i++) {
    bad += fabs(b[0][i] - (0.3 * w[0][i] + 0.7 * w0[i])) > 1e-6 * (1 + fabs(w0[i]));
    first = first == np && memcmp(&b[0][i], &b[1][i], 4) ? i : first;
  }
  CHECK(first == np && !bad, "blend 0.3: cpu and cuda differ first at %zu of %zu, %zu off",
        first, np, bad);
  for (int s = 0; s < 2; s++)
    CHECK(!net_blend(&tg[s], &on[s], 1.0, &e_) && !net_get_params(&tg[s], b[s], &e_) &&
              !memcmp(b[s], w[0], np * 4),
          "%s: blend 1 is not a copy", be_[s]->name);

  /* A blend every 4 counts (the DQN's target update), decided on the device: the counter at 5
   * leaves the target alone, at 8 copies. */
  struct twin *tcount = tw_("count", 'd', 1);
  for (int k = 0; k < 2; k++) {
    int64_t count = k ? 8 : 5;
    memcpy(tcount->in, &count, 8);
    push_(tcount);
    for (int s = 0; s < 2; s++)
      CHECK(!net_set_params(&tg[s], w0, &e_) &&
                !net_blend_every(&tg[s], &on[s], 1.0, P(tcount), 4, &e_) &&
                !net_get_params(&tg[s], b[s], &e_) && !memcmp(b[s], k ? w[0] : w0, np * 4),
            "%s: blend every 4 at count %lld", be_[s]->name, (long long)count);
  }

  /* A second step at an annealed rate read from the device (progress 2 of 4: half of 1e-3):
   * the CPU's equals a step at 5e-4 bit for bit, the CUDA side's the CPU's to the GEMMs'
   * rounding, and Adam's step count is 2 on both. */
  struct twin *tprog = tw_("progress", 'd', 1);
  int64_t two = 2;
  memcpy(tprog->in, &two, 8);
  push_(tprog);
  struct net plain;
  CHECK(!net_create(&plain, be_[0]->nets, SD, hidden, 2, 4, FOX_ACT_RELU, 1e-5, &e_), "%s",
        e_.msg);
  struct net *p1 = &plain;
  long t[2];
  float *am = malloc(np * 4), *av = malloc(np * 4);
  CHECK(!net_get_adam(&on[0], am, av, &t[0], &e_) && !net_set_adam(&plain, am, av, t[0], &e_) &&
            !net_set_params(&plain, w[0], &e_) && !net_zero_grad(&plain, &e_) &&
            !net_forward(&plain, P_(tx, 0), BATCH, P_(ty, 0), &e_) &&
            !net_backward(&plain, P_(tdy, 0), BATCH, &e_) &&
            !net_clip_step(&p1, 1, P_(tl, 0), P_(tc, 0), 0.5, (struct opt_lr){5e-4, 0, 0},
                           NULL, &e_) &&
            !net_get_params(&plain, b[0], &e_),
        "%s", e_.msg);
  float *start = malloc(np * 4);
  memcpy(start, w[0], np * 4);
  for (int s = 0; s < 2; s++) {
    struct net *one = &on[s];
    CHECK(!net_set_params(one, start, &e_) && !net_zero_grad(one, &e_) &&
              !net_forward(one, P(tx), BATCH, P(ty), &e_) &&
              !net_backward(one, P(tdy), BATCH, &e_) &&
              !net_clip_step(&one, 1, P(tl), P(tc), 0.5, (struct opt_lr){1e-3, 1, 4}, P(tprog),
                             &e_) &&
              !net_get_params(one, w[s], &e_) && !net_get_adam(one, am, av, &t[s], &e_),
          "%s: %s", be_[s]->name, e_.msg);
  }
  CHECK(!memcmp(w[0], b[0], np * 4) && !off_(w[0], w[1], np, ADAM_ATOL_, 1e-5) && t[0] == 2 &&
            t[1] == 2,
        "annealed step: cpu %s the plain step at half the rate; cuda %zu off; Adam steps %ld %ld",
        memcmp(w[0], b[0], np * 4) ? "differs from" : "equals",
        off_(w[0], w[1], np, ADAM_ATOL_, 1e-5), t[0], t[1]);
  free(am), free(av), free(start);
  net_free(&plain);
  for (int s = 0; s < 2; s++)
    net_free(&on[s]), net_free(&tg[s]), free(w[s]), free(b[s]);
  free(w0);
}

int main(void) {
  const struct backend *cuda = backend_cuda();
  char name[256];
  if (!cuda || backend_cuda_devices(name, sizeof name) == 0) {
    printf("skipped: %s\n", cuda ? "no CUDA device" : "built without CUDA");
    return 77;
  }
  exact_ = strstr(name, "emulation") != NULL;
  be_[0] = backend_cpu(), be_[1] = cuda;
  rng_seed(&rng_, 2024);
  dclk_ = tw_("dqn clock", 'd', sizeof(struct dqn_clock) / 8);
  pclk_ = tw_("ppo clock", 'd', sizeof(struct ppo_clock) / 8);
  test_dqn_();
  test_ppo_();
  test_hand_();
  test_nets_();
  for (int i = 0; i < npool_; i++) { /* cleared: a missed free is then a leak to LSan */
    for (int s = 0; s < 2; s++)
      be_[s]->mem_free(pool_[i].p[s]), free(pool_[i].h[s]);
    free(pool_[i].in);
    pool_[i] = (struct twin){0};
  }
  return fox_check_done("test_agent_ops");
}
