/* Gradient checks in double precision (the same sources built with FOX_NN_DOUBLE): every
 * parameter of every layer with ReLU and with tanh, and the Huber loss, against central finite
 * differences; the float tanh against libm's; torch's default and the orthogonal
 * initialisation; clipping and Adam against steps worked out by hand. */
#include <stdlib.h>
#include <string.h>

#include "agents/loss.h"
#include "agents/mlp.h"
#include "agents/ppo_loss.h"
#include "fox_check.h"
#include "ppo_step.h"

#define B 5

/* loss = Huber(mlp(x), target): exercises both the network and the loss gradient. */
static double loss_(struct mlp_f64 *m, const double *x, const double *target, double *dout) {
  double out[B * 3];
  struct fox_err e = {0};
  mlp_forward_f64(m, x, B, out, &e);
  return huber_loss_f64(out, target, B * 3, dout);
}

int main(void) {
  struct mlp_f64 m;
  struct fox_err e = {0};
  struct rng r;
  rng_seed(&r, 3);
  const int hidden[2] = {7, 6};
  static const char *const act_name[2] = {"relu", "tanh"};
  for (int act = FOX_ACT_RELU; act <= FOX_ACT_TANH; act++) {
    CHECK(mlp_create_f64(&m, 4, hidden, 2, 3, act, &e) == 0, "%s", e.msg);
    CHECK(m.n_params == (size_t)(7 * 5 + 6 * 8 + 3 * 7), "parameter count %zu", m.n_params);
    mlp_init_f64(&m, &r, FOX_INIT_ORTHOGONAL, 1.0);
    /* Biases start at zero; give them values so that their gradients are exercised too. */
    for (size_t i = 0; i < m.n_params; i++)
      m.w[i] += 0.1 * rng_normal(&r);
    mlp_touch_f64(&m);
    double x[B * 4], target[B * 3], dout[B * 3];
    for (int i = 0; i < B * 4; i++)
      x[i] = rng_normal(&r);
    for (int i = 0; i < B * 3; i++)
      target[i] = 3 * rng_normal(&r); /* some residuals beyond 1: both Huber branches */
    loss_(&m, x, target, dout);
    mlp_zero_grad_f64(&m);
    mlp_backward_f64(&m, dout, B);
    double *analytic = malloc(m.n_params * sizeof *analytic);
    memcpy(analytic, m.g, m.n_params * sizeof *analytic);
    double worst = 0;
    const double h = 1e-6;
    for (size_t i = 0; i < m.n_params; i++) {
      double keep = m.w[i];
      m.w[i] = keep + h;
      mlp_touch_f64(&m);
      double lp = loss_(&m, x, target, dout);
      m.w[i] = keep - h;
      mlp_touch_f64(&m);
      double lm = loss_(&m, x, target, dout);
      m.w[i] = keep;
      mlp_touch_f64(&m);
      double fd = (lp - lm) / (2 * h), err = fabs(fd - analytic[i]) / (1e-7 + fabs(fd));
      worst = err > worst ? err : worst;
      CHECK(err < 1e-5, "%s, param %zu: analytic %.10g, finite difference %.10g", act_name[act],
            i, analytic[i], fd);
    }
    printf("%s: worst relative gradient error over %zu parameters: %.2e\n", act_name[act],
           m.n_params, worst);
    free(analytic);
    if (act == FOX_ACT_TANH)
      break;
    mlp_free_f64(&m);
  }

  /* The float tanh of the CPU and CUDA networks: within 4e-7 of libm's double tanh over the
   * line, absolute and relative (7 float ulp at the worst, near -5.8), odd, saturated far out. */
  double worst_abs = 0, worst_rel = 0;
  for (int i = -240000; i <= 240000; i++) {
    float z = (float)(i * 5e-5);
    double ref = tanh((double)z), got = fox_tanhf(z);
    worst_abs = fmax(worst_abs, fabs(got - ref));
    if (fabs(ref) > 1e-30)
      worst_rel = fmax(worst_rel, fabs(got - ref) / fabs(ref));
    CHECK(fox_tanhf(-z) == -fox_tanhf(z), "fox_tanhf is odd at %g", z);
  }
  printf("fox_tanhf: worst absolute error %.2e, relative %.2e\n", worst_abs, worst_rel);
  CHECK(fox_tanhf(1e-40f) == 1e-40f && fox_tanhf(-3e-4f) == -3e-4f, "tiny inputs are themselves");
  CHECK(worst_abs < 4.2e-7 && worst_rel < 4.2e-7, "fox_tanhf error %.3g abs, %.3g rel", worst_abs,
        worst_rel);
  CHECK(fox_tanhf(30.0f) == 1.0f && fox_tanhf(-1e30f) == -1.0f, "saturation");
  CHECK(isnan(fox_tanhf(NAN)) && isnan(fox_act(FOX_ACT_RELU, NAN)), "NaN passes through");
  CHECK(fox_act_back(FOX_ACT_RELU, 0.0f, NAN) == 0.0f, "ReLU's mask zeroes even NaN");

  /* torch's default nn.Linear initialisation: W and b uniform in +-1/sqrt(fan_in). A 400 x 300
   * layer: every value inside, and mean and variance (bound^2 / 3) of the 120,300 draws
   * within 4 standard errors. */
  {
    struct mlp_f64 u;
    const int wide[1] = {400};
    CHECK(mlp_create_f64(&u, 300, wide, 1, 2, FOX_ACT_RELU, &e) == 0, "%s", e.msg);
    mlp_init_f64(&u, &r, FOX_INIT_DEFAULT, 1.0);
    double bound = 1 / sqrt(300.0), s1 = 0, s2 = 0, inside = 1;
    size_t n = 400 * 301;
    for (size_t i = 0; i < n; i++) {
      inside = inside && fabs(u.w[i]) <= bound;
      s1 += u.w[i];
      s2 += u.w[i] * u.w[i];
    }
    double var = bound * bound / 3, mean = s1 / n, ms = s2 / n;
    CHECK(inside, "default init: a value beyond 1/sqrt(fan_in)");
    CHECK(fabs(mean) < 4 * sqrt(var / n), "default init: mean %g", mean);
    /* Var of U^2 for U uniform in +-c: c^4/5 - c^4/9 */
    double sd2 = sqrt((pow(bound, 4) / 5 - pow(bound, 4) / 9) / n);
    CHECK(fabs(ms - var) < 4 * sd2, "default init: mean square %g, expected %g", ms, var);
    const double *head = u.w + u.offset[1], hb = 1 / sqrt(400.0);
    int head_in = 1;
    for (int i = 0; i < 2 * 401; i++)
      head_in = head_in && fabs(head[i]) <= hb && head[i] != 0;
    CHECK(head_in, "default init: the head's bound is 1/sqrt(400) and its biases are drawn");
    mlp_free_f64(&u);
  }

  /* Orthogonal init: W W^T = gain^2 I for a wide layer (rows <= cols), W^T W for a tall one. */
  mlp_init_f64(&m, &r, FOX_INIT_ORTHOGONAL, 0.01);
  const double *w0 = m.w; /* layer 0: 7 x 4, tall */
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++) {
      double s = 0;
      for (int i = 0; i < 7; i++)
        s += w0[i * 4 + a] * w0[i * 4 + b];
      CHECK_NEAR(s, a == b ? 2.0 : 0.0, 1e-12, 0);
    }
  const double *w2 = m.w + m.offset[2]; /* head: 3 x 6, wide, gain 0.01 */
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      double s = 0;
      for (int j = 0; j < 6; j++)
        s += w2[a * 6 + j] * w2[b * 6 + j];
      CHECK_NEAR(s, a == b ? 1e-4 : 0.0, 1e-15, 0);
    }
  CHECK(w2[3 * 6] == 0 && w0[7 * 4] == 0, "biases start at zero");
  mlp_free_f64(&m);

  /* Clipping: g = (3, 4), norm 5; max 1 scales by 1/(5 + 1e-6) as torch does; max 10 keeps. */
  double g[2] = {3, 4};
  CHECK_NEAR(grad_clip_f64(g, 2, 10), 5, 0, 1e-15);
  CHECK(g[0] == 3 && g[1] == 4, "below the limit nothing changes");
  grad_clip_f64(g, 2, 1);
  CHECK_NEAR(g[0], 3 / (5 + 1e-6), 0, 1e-15);
  CHECK_NEAR(g[1], 4 / (5 + 1e-6), 0, 1e-15);

  /* Adam, lr 0.1, eps 1e-8, g = 0.5 then -1: step 1 moves by about lr (bias correction makes
   * mhat/sqrt(vhat) = 0.5/0.5, less eps); step 2: m = 0.9*0.05 + 0.1*(-1) = -0.055, mhat = -0.055/0.19,
   * v = 0.999*0.00025 + 0.001*1 = 0.00124975, vhat = v/0.001999. */
  struct adam_f64 a;
  CHECK(adam_create_f64(&a, 1, 1e-8, &e) == 0, "%s", e.msg);
  double p = 1, g1 = 0.5, g2 = -1;
  adam_step_f64(&a, &p, &g1, 0.1);
  double p1 = 1 - 0.1 * 0.5 / (0.5 + 1e-8); /* mhat 0.5, sqrt(vhat) 0.5 */
  CHECK_NEAR(p, p1, 1e-15, 0);
  adam_step_f64(&a, &p, &g2, 0.1);
  double mhat = -0.055 / 0.19, vhat = 0.00124975 / 0.001999;
  CHECK_NEAR(p, p1 - 0.1 * mhat / (sqrt(vhat) + 1e-8), 1e-14, 0);
  adam_free_f64(&a);

  /* Huber by hand: residuals 0.5 and -3 -> (0.125 + 2.5)/2, gradients 0.25 and -0.5. */
  double pred[2] = {1.5, -1}, tgt[2] = {1, 2}, hg[2];
  CHECK_NEAR(huber_loss_f64(pred, tgt, 2, hg), (0.125 + 2.5) / 2, 0, 1e-15);
  CHECK_NEAR(hg[0], 0.25, 0, 1e-15);
  CHECK_NEAR(hg[1], -0.5, 0, 1e-15);
  const double h = 1e-6;
  /* The PPO loss: gradients w.r.t. logits and values against finite differences, with ratios
   * and value moves both inside and outside the clip range. */
  enum { M = 6 };
  double z[M * 3], v[M], oldlp[M], oldv[M], adv[M], ret[M], dz[M * 3], dv[M], dz2[M * 3], dv2[M];
  uint8_t act[M];
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < 3; j++)
      z[3 * i + j] = rng_normal(&r);
    act[i] = (uint8_t)(i % 3);
    double lp[3], hh;
    log_softmax3_f64(z + 3 * i, lp, &hh);
    oldlp[i] = lp[act[i]] + (i % 2 ? 0.5 : -0.05) * rng_normal(&r); /* some ratios clip */
    v[i] = rng_normal(&r);
    oldv[i] = v[i] + (i < 3 ? 0.05 : 0.6) * rng_normal(&r); /* some value moves clip */
    adv[i] = rng_normal(&r);
    ret[i] = rng_normal(&r);
  }
  struct ppo_stats_f64 st;
  for (int vl = FOX_VLOSS_MAX; vl <= FOX_VLOSS_UNCLIPPED; vl++) { /* each ppo.value_loss */
    ppo_loss_f64(z, v, act, oldlp, oldv, adv, ret, M, 0.2, 0.01, 0.5, vl, dz, dv, &st);
    for (int i = 0; i < M * 3 + M; i++) {
      double *x = i < M * 3 ? &z[i] : &v[i - M * 3], keep = *x,
             an = i < M * 3 ? dz[i] : dv[i - M * 3];
      *x = keep + h;
      ppo_loss_f64(z, v, act, oldlp, oldv, adv, ret, M, 0.2, 0.01, 0.5, vl, dz2, dv2, &st);
      double lp_ = st.loss;
      *x = keep - h;
      ppo_loss_f64(z, v, act, oldlp, oldv, adv, ret, M, 0.2, 0.01, 0.5, vl, dz2, dv2, &st);
      double lm_ = st.loss;
      *x = keep;
      double fd = (lp_ - lm_) / (2 * h);
      CHECK(fabs(fd - an) <= 1e-7 + 1e-5 * fabs(fd), "ppo (value loss %d) input %d: analytic "
            "%.10g, fd %.10g", vl, i, an, fd);
    }
  }
  /* The value losses by hand, one sample whose prediction moved 1 from the old 0 (clip 0.2:
   * vc = 0.2), vf_coef 0.5 (dv = 0.5 g). R = 0.5: e(v) = 0.25 > e(vc) = 0.09; R = 2: e(v) = 1 <
   * e(vc) = 3.24. v_loss is 0.5 e; g is v - R where e(v) counts, 0 where the clipped one does
   * (the clip holds vc still). */
  {
    const double R[2] = {0.5, 2}, vl_want[3][2] = {{.125, 1.62}, {.045, 1.62}, {.125, .5}},
                 g_want[3][2] = {{.5, 0}, {0, 0}, {.5, -1}};
    for (int vl = FOX_VLOSS_MAX; vl <= FOX_VLOSS_UNCLIPPED; vl++)
      for (int k = 0; k < 2; k++) {
        double zz[3] = {0, 0, 0}, vv = 1, lp = -log(3.0), ov = 0, a0 = 0, rr = R[k], dzz[3], dvv;
        uint8_t ac = 0;
        ppo_loss_f64(zz, &vv, &ac, &lp, &ov, &a0, &rr, 1, 0.2, 0.01, 0.5, vl, dzz, &dvv, &st);
        CHECK(fabs(st.v_loss - vl_want[vl][k]) < 1e-12 && fabs(dvv - 0.5 * g_want[vl][k]) < 1e-12,
              "value loss %d, R %g: v_loss %.12g (want %g), dv %.12g (want %g)", vl, R[k],
              st.v_loss, vl_want[vl][k], dvv, 0.5 * g_want[vl][k]);
      }
  }
  /* By hand: one sample, equal logits (p = 1/3, H = ln 3), ratio 1, A = 2, v = R: loss =
   * -2 - 0.01 ln 3; dlogits = -2 (onehot - 1/3) (the entropy is at its maximum: no slope). */
  double z1[3] = {0, 0, 0}, v1 = 1, lp1 = -log(3.0), ov1 = 1, a1 = 2, r1 = 1, dz1[3], dv1;
  uint8_t ac1 = 1;
  ppo_loss_f64(z1, &v1, &ac1, &lp1, &ov1, &a1, &r1, 1, 0.2, 0.01, 0.5, FOX_VLOSS_MAX, dz1, &dv1,
               &st);
  CHECK_NEAR(st.loss, -2 - 0.01 * log(3.0), 1e-12, 0);
  CHECK_NEAR(dz1[1], -2 * (1 - 1.0 / 3), 1e-12, 0);
  CHECK_NEAR(dz1[0], 2.0 / 3, 1e-12, 0);
  CHECK_NEAR(dv1, 0, 0, 0);
  return fox_check_done("test_nn_grad");
}
