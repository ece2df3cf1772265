/* The agents' arithmetic against hand-computed cases: GAE, DQN targets (plain and Double),
 * the dueling head, the epsilon schedule; and a diverging trial ends as `failed`. */
#include <stdlib.h>
#include <string.h>

#include "agents/dqn.h"
#include "agents/ppo.h"
#include "backend/agent_ops.h"
#include "data/synth.h"
#include "fox_check.h"
#include "train/solo.h"
#include "train/trial_h5.h"
#include <unistd.h>

#define SD_ (FOX_NFEAT + FOX_NPORTFOLIO) /* a state of the built-in features */

/* The CPU backend's operations on host arrays (its memory is the host's). */
static void gae_(int T, int N, float *r, float *v, uint8_t *d, float *last, double g, double l,
                 float *adv, float *ret) {
  struct rollout_dev ro = {.rewards = r, .values = v, .dones = d, .adv = adv, .ret = ret};
  struct fox_err e = {0};
  CHECK(backend_cpu()->agents->ppo_gae(T, N, &ro, last, g, l, &e) == 0, "%s", e.msg);
}

static void targets_(const float *qt, const float *qo, const float *r, const uint8_t *term,
                     double gamma, int n, float *y) {
  for (int i = 0; i < n; i++)
    y[i] = dqn_target(qt + 3 * i, qo ? qo + 3 * i : NULL, r[i], term[i], gamma);
}

int main(void) {
  /* GAE with T = 3, N = 1, gamma 0.5, lambda 0.5; rewards 1, 2, 3; values 0.5, 1, 1.5; V(s3)
   * = 2; no done: delta2 = 3 + 0.5*2 - 1.5 = 2.5, A2 = 2.5; delta1 = 2 + 0.5*1.5 - 1 = 1.75,
   * A1 = 1.75 + 0.25*2.5 = 2.375; delta0 = 1 + 0.5*1 - 0.5 = 1, A0 = 1 + 0.25*2.375. */
  float r[3] = {1, 2, 3}, v[3] = {0.5f, 1, 1.5f}, last = 2, adv[3], ret[3];
  uint8_t none[3] = {0, 0, 0}, mid[3] = {0, 1, 0};
  gae_(3, 1, r, v, none, &last, 0.5, 0.5, adv, ret);
  CHECK_NEAR(adv[2], 2.5, 1e-6, 0);
  CHECK_NEAR(adv[1], 2.375, 1e-6, 0);
  CHECK_NEAR(adv[0], 1 + 0.25 * 2.375, 1e-6, 0);
  CHECK_NEAR(ret[0], adv[0] + 0.5, 1e-6, 0);
  /* An episode ending at step 1 cuts both the bootstrap and the trace there. */
  gae_(3, 1, r, v, mid, &last, 0.5, 0.5, adv, ret);
  CHECK_NEAR(adv[1], 2 - 1, 1e-6, 0);              /* delta1 = r1 - v1, nothing after */
  CHECK_NEAR(adv[0], 1 + 0.5 * 1 - 0.5 + 0.25 * 1, 1e-6, 0);
  CHECK_NEAR(adv[2], 2.5, 1e-6, 0);
  /* Two environments interleaved [t][env]: the second sees its own values only. */
  float r2[4] = {1, 10, 1, 10}, v2[4] = {0, 0, 0, 0}, last2[2] = {0, 0}, a2[4], rt2[4];
  uint8_t d2[4] = {0};
  gae_(2, 2, r2, v2, d2, last2, 1.0, 1.0, a2, rt2);
  CHECK_NEAR(a2[0], 2, 1e-6, 0);
  CHECK_NEAR(a2[1], 20, 1e-6, 0);

  /* DQN targets, gamma 0.9. Q_target(s') rows: (1, 3, 2), (5, 4, 6); Q_online(s'): (4, 0, 1),
   * (0, 0, 0) (a tie: the lowest action). Plain: max 3 and 6. Double: Q_target at the online
   * argmax: 1 and 5. The second transition is terminal: y = r. */
  float qt[6] = {1, 3, 2, 5, 4, 6}, qo[6] = {4, 0, 1, 0, 0, 0}, rr[2] = {0.5f, -1}, y[2];
  uint8_t term[2] = {0, 1};
  targets_(qt, NULL, rr, term, 0.9, 2, y);
  CHECK_NEAR(y[0], 0.5 + 0.9 * 3, 1e-6, 0);
  CHECK_NEAR(y[1], -1, 0, 0);
  term[1] = 0;
  targets_(qt, qo, rr, term, 0.9, 2, y);
  CHECK_NEAR(y[0], 0.5 + 0.9 * 1, 1e-6, 0);
  CHECK_NEAR(y[1], -1 + 0.9 * 5, 1e-6, 0);

  /* Dueling: V 1, A (1, 2, 6): mean 3 -> Q = (-1, 0, 4); backward of dQ = (1, 0, 0): dV 1,
   * dA = (1 - 1/3, -1/3, -1/3). */
  float raw[4] = {1, 1, 2, 6}, q[3], dq[3] = {1, 0, 0}, draw[4];
  struct fox_err de = {0};
  CHECK(backend_cpu()->agents->dqn_dueling(raw, 1, q, &de) == 0, "%s", de.msg);
  CHECK(q[0] == -1 && q[1] == 0 && q[2] == 4, "dueling Q = (%g, %g, %g)", q[0], q[1], q[2]);
  CHECK(backend_cpu()->agents->dqn_dueling_backward(dq, 1, draw, &de) == 0, "%s", de.msg);
  CHECK_NEAR(draw[0], 1, 0, 0);
  CHECK_NEAR(draw[1], 2.0 / 3, 1e-7, 0);
  CHECK_NEAR(draw[2], -1.0 / 3, 1e-7, 0);

  /* A vector step of 5 transitions into a ring of 3: the last 3 survive where one by one they
   * would land (2 at slot 2, 3 at 0, 4 at 1), and the write position moves on by 5. */
  {
    struct replay rb;
    struct fox_err re = {0};
    CHECK(replay_create(&rb, backend_cpu(), 3, FOX_NFEAT, &re) == 0, "%s", re.msg);
    float rs[5 * SD_] = {0}, rs2[5 * SD_] = {0}, rr5[5] = {0, 1, 2, 3, 4};
    int32_t bars5[5] = {10, 11, 12, 13, 14};
    uint8_t a5[5] = {0, 1, 2, 0, 1}, d5[5] = {0};
    struct dqn_clock clk = {0, 0, 0, 0}; /* the CPU backend's memory is the host's */
    CHECK(replay_push(&rb, &clk, 5, bars5, rs, rs2, a5, rr5, d5, &re) == 0, "%s", re.msg);
    CHECK(rb.size == 3 && rb.pos == 2 && rb.d.bar[0] == 13 && rb.d.bar[1] == 14 &&
              rb.d.bar[2] == 12 && rb.d.r[0] == 3 && rb.d.a[1] == 1,
          "ring of 3 after 5: size %zu pos %zu bars %d %d %d", rb.size, rb.pos, rb.d.bar[0],
          rb.d.bar[1], rb.d.bar[2]);
    CHECK(clk.transitions == 5 && clk.pos == 2 && clk.size == 3 && clk.updates == 0,
          "the clock after 5 into 3: transitions %lld at %lld of %lld",
          (long long)clk.transitions, (long long)clk.pos, (long long)clk.size);
    /* Two more land where the clock says: slots 2 and 0. */
    CHECK(replay_push(&rb, &clk, 2, bars5, rs, rs2, a5, rr5, d5, &re) == 0, "%s", re.msg);
    CHECK(rb.d.bar[2] == 10 && rb.d.bar[0] == 11 && rb.d.bar[1] == 14 && clk.pos == 1 &&
              rb.pos == 1 && clk.transitions == 7,
          "two more: bars %d %d %d, clock at %lld", rb.d.bar[0], rb.d.bar[1], rb.d.bar[2],
          (long long)clk.pos);
    replay_free(&rb);
  }
  /* Epsilon: 1 -> 0.05 over half of 1000 transitions, then flat. */
  struct config cfg;
  config_defaults(&cfg);
  /* Target updates: tau 1 copies; tau 0.25 moves a quarter of the way. */
  struct fox_err te = {0};
  struct dqn dqa;
  cfg.dqn.hidden[0] = cfg.dqn.hidden[1] = 8, cfg.dqn.buffer_size = 16, cfg.dqn.batch_size = 4;
  CHECK(dqn_create(&dqa, &cfg.dqn, backend_cpu(), 4, FOX_NFEAT, NULL, 1000, 1, &te) == 0, "%s", te.msg);
  size_t np = dqa.online.n_params;
  float *w2 = malloc(np * sizeof *w2), *w0 = calloc(np, sizeof *w0), *wt = malloc(np * sizeof *wt);
  for (size_t i = 0; i < np; i++)
    w2[i] = 2.0f;
  CHECK(net_set_params(&dqa.online, w2, &te) == 0 && net_set_params(&dqa.target, w0, &te) == 0,
        "%s", te.msg);
  dqa.cfg.tau = 0.25;
  CHECK(dqn_sync_target(&dqa, &te) == 0 && net_get_params(&dqa.target, wt, &te) == 0, "%s",
        te.msg);
  CHECK(wt[0] == 0.5f && wt[np - 1] == 0.5f, "soft update %g", wt[0]);
  dqa.cfg.tau = 1.0;
  CHECK(dqn_sync_target(&dqa, &te) == 0 && net_get_params(&dqa.target, wt, &te) == 0, "%s",
        te.msg);
  CHECK(wt[3] == 2.0f, "hard update %g", wt[3]);
  free(w2), free(w0), free(wt);
  dqn_free(&dqa);
  config_defaults(&cfg);
  cfg.dqn.uniform_warmup = 0; /* the schedule alone (learning_starts 10000 is past the run) */
  CHECK_NEAR(dqn_epsilon(&cfg.dqn, 0, 1000), 1, 0, 1e-12);
  CHECK_NEAR(dqn_epsilon(&cfg.dqn, 250, 1000), 0.525, 0, 1e-12);
  CHECK_NEAR(dqn_epsilon(&cfg.dqn, 500, 1000), 0.05, 0, 1e-12);
  CHECK_NEAR(dqn_epsilon(&cfg.dqn, 900, 1000), 0.05, 0, 1e-12);
  /* dqn.uniform_warmup: 1 before learning_starts (100 here), the schedule from there. */
  cfg.dqn.uniform_warmup = 1, cfg.dqn.learning_starts = 100;
  CHECK_NEAR(dqn_epsilon(&cfg.dqn, 0, 1000), 1, 0, 0);
  CHECK_NEAR(dqn_epsilon(&cfg.dqn, 99, 1000), 1, 0, 0);
  CHECK_NEAR(dqn_epsilon(&cfg.dqn, 100, 1000), 1 - 0.95 * 100 / 500, 0, 1e-12);
  CHECK_NEAR(dqn_epsilon(&cfg.dqn, 250, 1000), 0.525, 0, 1e-12);
  config_defaults(&cfg);

  /* The updates a step makes, planned ahead (a chunk's shape) and step by step, agree: 10
   * envs and train_freq 4 pay 2 and 3 updates alternately once learning_starts 25 is crossed
   * (in the third step); planning ahead moves no mirror. */
  {
    struct dqn dp;
    struct fox_err pe = {0};
    config_defaults(&cfg);
    cfg.dqn.hidden[0] = cfg.dqn.hidden[1] = 4, cfg.dqn.buffer_size = 16;
    cfg.dqn.learning_starts = 25, cfg.dqn.train_freq = 4;
    CHECK(dqn_create(&dp, &cfg.dqn, backend_cpu(), 10, FOX_NFEAT, NULL, 1000, 1, &pe) == 0, "%s", pe.msg);
    int ahead[8], one[8], want[8] = {0, 0, 2, 3, 2, 3, 2, 3};
    dqn_plan_ahead(&dp, 10, 8, ahead);
    CHECK(dp.transitions == 0 && dp.updates == 0, "planning ahead moved the mirrors");
    int same = 1;
    for (int k = 0; k < 8; k++) {
      one[k] = dqn_plan(&dp, 10);
      same &= one[k] == ahead[k] && one[k] == want[k];
    }
    CHECK(same, "due ahead %d %d %d %d %d, step by step %d %d %d %d %d", ahead[0], ahead[1],
          ahead[2], ahead[3], ahead[4], one[0], one[1], one[2], one[3], one[4]);
    CHECK(dp.transitions == 80 && dp.updates == 15 && dp.rb.size == 1 && dp.rb.pos == 0,
          "mirrors after 8 steps (a ring of 1: no dataset): %ld transitions, %ld updates, ring "
          "at %zu of %zu",
          dp.transitions, dp.updates, dp.rb.pos, dp.rb.size);
    dqn_free(&dp);
  }

  /* Counter-based draws (rng_step.h): a pure function of (seed, stream, step, index), so any
   * order of evaluation gives the same numbers; uniform (chi-square over 10 bins, 1e5 draws,
   * 99.9% point 27.9); exploration at eps 1 picks each action a third of the time, at eps 0
   * never leaves the argmax; replay indices stay below the filled size. */
  {
    double fwd[64], bwd[64];
    for (int i = 0; i < 64; i++)
      fwd[i] = fox_u01(7, FOX_RS_REPLAY, 3, (uint64_t)i);
    for (int i = 63; i >= 0; i--)
      bwd[i] = fox_u01(7, FOX_RS_REPLAY, 3, (uint64_t)i);
    CHECK(memcmp(fwd, bwd, sizeof fwd) == 0, "draws depend on their order");
    CHECK(fox_u01(7, FOX_RS_REPLAY, 3, 0) != fox_u01(7, FOX_RS_POLICY, 3, 0) &&
              fox_u01(7, FOX_RS_REPLAY, 3, 0) != fox_u01(7, FOX_RS_REPLAY, 4, 0) &&
              fox_u01(7, FOX_RS_REPLAY, 3, 0) != fox_u01(8, FOX_RS_REPLAY, 3, 0),
          "streams, steps and seeds give other numbers");
    int bins[10] = {0}, acts[3] = {0}, greedy = 1, in_range = 1;
    const float q[3] = {0.1f, 0.7f, 0.2f};
    for (int i = 0; i < 100000; i++) {
      double u = fox_u01(11, FOX_RS_EXPLORE, (uint64_t)(i / 64), (uint64_t)(i % 64));
      bins[(int)(u * 10)]++;
      acts[dqn_explore_at(q, (struct dqn_eps){1, 1, 1, 0, 0}, i / 64, 11, (uint64_t)(i % 64))]++;
      greedy &= dqn_explore_at(q, (struct dqn_eps){0, 0, 1, 0, 0}, i, 11, 0) == 1;
      in_range &= dqn_replay_index(11, (uint64_t)i, 5, 1000) < 1000;
    }
    double chi = 0, chi3 = 0;
    for (int k = 0; k < 10; k++)
      chi += (bins[k] - 1e4) * (bins[k] - 1e4) / 1e4;
    for (int k = 0; k < 3; k++)
      chi3 += (acts[k] - 1e5 / 3) * (acts[k] - 1e5 / 3) / (1e5 / 3);
    CHECK(chi < 27.9, "fox_u01 not uniform: chi-square %g", chi);
    CHECK(chi3 < 13.8, "random actions not uniform: chi-square %g", chi3); /* 2 dof, 99.9% */
    CHECK(greedy && in_range, "eps 0 is greedy, replay indices in range");
    /* dqn.eps_per_env false: at epsilon 1/2 a vector step of 64 environments is all greedy
     * (every action 1) about half the time, and otherwise explores in every environment (all
     * 64 random actions 1: 3^-64); each its own coin: all 64 greedy at (2/3)^64. The random
     * actions are the environments' own either way. */
    struct dqn_eps one = {0.5, 0.5, 1, 0, 1}, own = {0.5, 0.5, 1, 0, 0};
    int all_one = 0, all_own = 0, mixed_one = 0, same_rand = 1;
    for (int64_t t = 0; t < 2000; t += 5) {
      int g1 = 0, g2 = 0, a0 = -1, same = 1;
      for (int i = 0; i < 64; i++) {
        int a = dqn_explore_at(q, one, t, 11, (uint64_t)i);
        g1 += a == 1, g2 += dqn_explore_at(q, own, t, 11, (uint64_t)i) == 1;
        same &= a0 < 0 || a == a0, a0 = a;
      }
      all_one += g1 == 64, all_own += g2 == 64, mixed_one += g1 < 64 && g1 > 40;
      same_rand &= g1 == 64 || !same;
    }
    printf("explore, one coin a step: %d of 400 steps all greedy; a coin each: %d\n", all_one,
           all_own);
    CHECK(all_one > 160 && all_one < 240 && all_own == 0 && !mixed_one && same_rand,
          "one coin a step: %d all greedy (about 200), %d mixed; a coin each: %d all greedy",
          all_one, mixed_one, all_own);
  }

  /* reward.scale auto by hand: train split [1, 5) of closes 50, 100, 110, 99, 99, 200 has the
   * returns ln 1.1, ln 0.9, 0 (bar 1 -> 4; bar 0 and bar 5 are outside): mean m = ln(0.99)/3,
   * population variance = mean of squares - m^2. A number set by the user stays; a flat
   * split is an error naming the dataset. */
  {
    struct dataset hd;
    memset(&hd, 0, sizeof hd);
    struct fox_err he = {0};
    CHECK(bars_reserve(&hd.bars, 6, &he) == 0, "%s", he.msg);
    const double cl[6] = {50, 100, 110, 99, 99, 200};
    for (int i = 0; i < 6; i++)
      CHECK(bars_push(&hd.bars, 60 * i, cl[i], cl[i], cl[i], cl[i], 1, &he) == 0, "%s", he.msg);
    hd.split[FOX_SPLIT_TRAIN][0] = 1, hd.split[FOX_SPLIT_TRAIN][1] = 5;
    snprintf(hd.source, sizeof hd.source, "hand.h5");
    double r1 = log(1.1), r2 = log(0.9), m = (r1 + r2) / 3;
    double want = sqrt((r1 * r1 + r2 * r2) / 3 - m * m), sd;
    CHECK(dataset_return_std(&hd, FOX_SPLIT_TRAIN, &sd, &he) == 0, "%s", he.msg);
    CHECK_NEAR(sd, want, 1e-15, 1e-12);
    struct config rc;
    config_defaults(&rc);
    CHECK(trial_resolve_reward(&rc, &hd, &he) == 0, "%s", he.msg);
    CHECK_NEAR(rc.market.reward_scale, 1 / want, 0, 1e-12);
    rc.market.reward_scale = 3;
    CHECK(trial_resolve_reward(&rc, &hd, &he) == 0 && rc.market.reward_scale == 3,
          "a number stays");
    hd.bars.close[2] = hd.bars.close[3] = 100, hd.bars.close[4] = 100;
    rc.market.reward_scale = 0;
    CHECK(trial_resolve_reward(&rc, &hd, &he) == FOX_EDATA && strstr(he.msg, "hand.h5") &&
              strstr(he.msg, "never moves"),
          "a flat train split: %s", he.msg);
    bars_free(&hd.bars);
  }

  /* A diverging trial: a NaN weight is reported as status failed with the reason. */
  struct fox_err e = {0};
  struct dataset ds;
  CHECK(synth_dataset(&ds, 6000, 1, &e) == 0, "%s", e.msg);
  struct device_dataset dev;
  CHECK(backend_cpu()->dataset_upload(&ds, &dev, &e) == 0, "%s", e.msg);
  cfg.num_envs = 4, cfg.episode_bars = 100, cfg.epochs = 2, cfg.steps_per_epoch = 400;
  cfg.dqn.learning_starts = 100, cfg.dqn.batch_size = 16, cfg.dqn.buffer_size = 1000;
  cfg.dqn.hidden[0] = cfg.dqn.hidden[1] = 16;
  struct trial t;
  CHECK(trial_open(&t, &cfg, &ds, backend_cpu(), &dev, &e) == 0, "%s", e.msg);
  struct agent *ag = &t.ag;
  {
    float *w = malloc(ag->dqn.online.n_params * sizeof *w);
    CHECK(net_get_params(&ag->dqn.online, w, &e) == 0, "%s", e.msg);
    w[3] = NAN;
    CHECK(net_set_params(&ag->dqn.online, w, &e) == 0, "%s", e.msg);
    free(w);
  }
  CHECK(trial_advance(&t, cfg.epochs, NULL, NULL, &e) == 0, "%s", e.msg);
  struct trial_result res = t.r;
  CHECK(res.status == FOX_TRIAL_FAILED && strstr(res.reason, "diverged"),
        "failed with a reason, got status %d '%s'", res.status, res.reason);
  CHECK(res.epochs_done == 0, "no NaN metrics recorded as results (%d epochs)", res.epochs_done);
  /* Its trial.h5 says failed, and a policy backtest refuses it with the reason. */
  char path[64];
  snprintf(path, sizeof path, "/tmp/fox_failed_%ld.h5", (long)getpid());
  CHECK(trial_write_h5(path, &cfg, ag, &res, &e) == 0, "%s", e.msg);
  struct config back;
  struct agent loaded;
  fox_err_clear(&e);
  CHECK(trial_read_h5(path, backend_cpu(), &back, &loaded, &e) == FOX_EDATA &&
            strstr(e.msg, "failed") && strstr(e.msg, "diverged"),
        "a failed trial is refused: %s", e.msg);
  remove(path);
  trial_close(&t);
  /* The same trial without the NaN completes both epochs. */
  CHECK(trial_run(&t, &cfg, &ds, backend_cpu(), &dev, NULL, &e) == 0, "%s", e.msg);
  CHECK(t.r.status == FOX_TRIAL_COMPLETE && t.r.epochs_done == 2, "complete, %d epochs",
        t.r.epochs_done);
  trial_close(&t);
  backend_cpu()->dataset_release(&dev);
  dataset_free(&ds);
  return fox_check_done("test_agents");
}
