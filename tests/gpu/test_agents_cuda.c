/* The agents' networks on CUDA against the CPU ones from the same seed and the same data: one
 * DQN update (plain and dueling) and one PPO update leave the same parameters (to float
 * rounding). Skips (77) without a device. */
#include <stdlib.h>
#include <string.h>

#include "agents/dqn.h"
#include "agents/ppo.h"
#include "backend/backend.h"
#include "fox_check.h"

static size_t differ_(const struct net *a, const struct net *b, struct fox_err *e) {
  size_t n = a->n_params, bad = 0;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  net_get_params(a, x, e);
  net_get_params(b, y, e);
  for (size_t i = 0; i < n; i++)
    bad += !(fabsf(x[i] - y[i]) <= 1e-5f + 1e-3f * fabsf(y[i]));
  free(x), free(y);
  return bad;
}

static void fill_(float *x, size_t n, struct rng *r, double scale) {
  for (size_t i = 0; i < n; i++)
    x[i] = (float)(scale * rng_normal(r));
}

int main(void) {
  const struct backend *cuda = backend_cuda();
  if (!cuda || backend_cuda_devices(NULL, 0) == 0) {
    printf("skipped: %s\n", cuda ? "no CUDA device" : "built without CUDA");
    return 77;
  }
  struct fox_err e = {0};
  struct config cfg;
  config_defaults(&cfg);
  struct rng r;
  rng_seed(&r, 5);
  enum { N = 64 };
  float s[N * FOX_STATE_DIM], s2[N * FOX_STATE_DIM], rew[N];
  uint8_t a[N], term[N];
  for (int dueling = 0; dueling < 2; dueling++) {
    cfg.dqn.dueling = dueling;
    cfg.dqn.learning_starts = N, cfg.dqn.batch_size = 32, cfg.dqn.buffer_size = 256;
    cfg.dqn.train_freq = 16;
    struct dqn dc, dg;
    CHECK(dqn_create(&dc, &cfg.dqn, &net_cpu_ops, 9, &e) == 0, "%s", e.msg);
    CHECK(dqn_create(&dg, &cfg.dqn, cuda->nets, 9, &e) == 0, "%s", e.msg);
    CHECK(differ_(&dc.online, &dg.online, &e) == 0, "same initial parameters");
    fill_(s, sizeof s / sizeof *s, &r, 1), fill_(s2, sizeof s2 / sizeof *s2, &r, 1);
    fill_(rew, N, &r, 0.1);
    for (int i = 0; i < N; i++)
      a[i] = (uint8_t)(i % 3), term[i] = i % 7 == 0;
    double lc, lg;
    CHECK(dqn_observe(&dc, N, s, a, rew, s2, term, &lc, &e) == 0, "%s", e.msg);
    CHECK(dqn_observe(&dg, N, s, a, rew, s2, term, &lg, &e) == 0, "%s", e.msg);
    CHECK(dc.updates == 4 && dg.updates == 4, "updates %ld / %ld", dc.updates, dg.updates);
    CHECK(fabs(lc - lg) <= 1e-4 * fabs(lc) + 1e-7, "dueling %d: loss %g vs %g", dueling, lc, lg);
    CHECK(differ_(&dc.online, &dg.online, &e) == 0, "dueling %d: DQN parameters differ", dueling);
    dqn_free(&dc);
    dqn_free(&dg);
  }
  cfg.ppo.n_steps = 8;
  struct ppo pc, pg;
  CHECK(ppo_create(&pc, &cfg.ppo, N, 10, &net_cpu_ops, 3, &e) == 0, "%s", e.msg);
  CHECK(ppo_create(&pg, &cfg.ppo, N, 10, cuda->nets, 3, &e) == 0, "%s", e.msg);
  for (int t = 0; t < cfg.ppo.n_steps; t++) {
    float lp[N], v[N], lp2[N], v2[N];
    uint8_t a2[N];
    fill_(s, sizeof s / sizeof *s, &r, 1);
    fill_(rew, N, &r, 0.1);
    CHECK(ppo_act(&pc, s, N, a, lp, v, &e) == 0, "%s", e.msg);
    /* Both agents draw the same numbers so that their minibatch shuffles agree. */
    CHECK(ppo_act(&pg, s, N, a2, lp2, v2, &e) == 0, "%s", e.msg);
    for (int i = 0; i < N; i++)
      term[i] = i % 11 == t;
    ppo_record(&pc, s, a, lp, v, rew, term);
    ppo_record(&pg, s, a, lp, v, rew, term);
  }
  struct ppo_stats sc, sg;
  CHECK(ppo_update(&pc, s, &sc, &e) == 0 && ppo_update(&pg, s, &sg, &e) == 0, "%s", e.msg);
  CHECK(fabs(sc.loss - sg.loss) <= 1e-3 * fabs(sc.loss) + 1e-6, "PPO loss %g vs %g", sc.loss,
        sg.loss);
  CHECK(differ_(&pc.actor, &pg.actor, &e) == 0, "PPO actor parameters differ");
  CHECK(differ_(&pc.critic, &pg.critic, &e) == 0, "PPO critic parameters differ");
  ppo_free(&pc);
  ppo_free(&pg);
  return fox_check_done("test_agents_cuda");
}
