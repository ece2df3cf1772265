/* GEMM benchmark at the agents' shapes (DESIGN.md s8 defaults): the GEMMs of one DQN update
 * (target forward on s', online forward on s and s', backward) and of one PPO minibatch (actor
 * and critic forward and backward), run through foxopt's gemm.h (libxsmm when built with it)
 * and through OpenBLAS's cblas_sgemm on the same shapes, one thread. GFLOP/s = 2 m n k / s.
 * The rate of the sequence is the ceiling for a training loop that does only these GEMMs:
 * tests/bench/bench_train.sh divides by it.
 *   OMP_NUM_THREADS=1 bench_gemm [OUT.json] */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agents/gemm.h"

static double now_(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

enum { FWD = 0, DW = 1, DX = 2 };
struct op_ {
  int kind, B, in, o;
};

/* The GEMMs of an MLP dims[0..L] on a batch: forward, or backward (dW for every layer, dX for
 * all but the first). */
static int mlp_ops_(struct op_ *ops, int n, const int *dims, int L, int B, int backward) {
  for (int l = 0; l < L; l++) {
    if (!backward) {
      ops[n++] = (struct op_){FWD, B, dims[l], dims[l + 1]};
      continue;
    }
    ops[n++] = (struct op_){DW, B, dims[l], dims[l + 1]};
    if (l > 0)
      ops[n++] = (struct op_){DX, B, dims[l], dims[l + 1]};
  }
  return n;
}

static double flops_(const struct op_ *ops, int n) {
  double f = 0;
  for (int i = 0; i < n; i++)
    f += 2.0 * ops[i].B * ops[i].in * ops[i].o;
  return f;
}

/* Seconds per run of the sequence, the best of 5 timings of ~0.2 s each. */
static double time_(const struct op_ *ops, int n, int blas, float *a, float *b, float *c) {
  double best = 1e30;
  int reps = 1;
  for (int trial = 0; trial < 6; trial++) {
    double t0 = now_();
    for (int r = 0; r < reps; r++)
      for (int i = 0; i < n; i++) {
        const struct op_ *p = &ops[i];
        if (!blas) {
          if (p->kind == FWD)
            gemm_xwt(p->B, p->in, p->o, a, b, c);
          else if (p->kind == DW)
            gemm_dw(p->B, p->in, p->o, a, b, c);
          else
            gemm_dx(p->B, p->in, p->o, a, b, c);
        } else if (p->kind == FWD) {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, p->B, p->o, p->in, 1, a, p->in, b,
                      p->in, 0, c, p->o);
        } else if (p->kind == DW) {
          cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, p->o, p->in, p->B, 1, a, p->o, b,
                      p->in, 1, c, p->in);
        } else {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p->B, p->in, p->o, 1, a, p->o, b,
                      p->in, 0, c, p->in);
        }
      }
    double dt = (now_() - t0) / reps;
    if (trial == 0) /* calibration: the JIT's first dispatch is in here */
      reps = dt > 0 ? (int)(0.2 / dt) + 1 : 1000;
    else if (dt < best)
      best = dt;
  }
  return best;
}

int main(int argc, char **argv) {
  openblas_set_num_threads(1);
  const char *json = argc > 1 ? argv[1] : "bench_gemm.json";
  size_t big = 4096 * 256;
  float *a = malloc(big * sizeof *a), *b = malloc(big * sizeof *b), *c = malloc(big * sizeof *c);
  for (size_t i = 0; i < big; i++)
    a[i] = b[i] = c[i] = (float)(i % 7) * 0.01f;
  struct op_ dqn[32], ppo[32];
  const int qd[4] = {54, 128, 128, 3}, ad[4] = {54, 64, 64, 3}, vd[4] = {54, 64, 64, 1};
  int nd = 0, np = 0;
  nd = mlp_ops_(dqn, nd, qd, 3, 128, 0); /* target on s' */
  nd = mlp_ops_(dqn, nd, qd, 3, 256, 0); /* online on s and s' */
  nd = mlp_ops_(dqn, nd, qd, 3, 128, 1);
  np = mlp_ops_(ppo, np, ad, 3, 2048, 0);
  np = mlp_ops_(ppo, np, vd, 3, 2048, 0);
  np = mlp_ops_(ppo, np, ad, 3, 2048, 1);
  np = mlp_ops_(ppo, np, vd, 3, 2048, 1);
  const struct {
    const char *name;
    const struct op_ *ops;
    int n;
  } seq[2] = {{"dqn_update", dqn, nd}, {"ppo_minibatch", ppo, np}};
  printf("# GEMMs of the agents at DESIGN.md s8 defaults, one thread; foxopt = gemm.h (%s)\n",
         gemm_library());
  printf("# dqn_update: 54-128-128-3, batch 128 (online forward on 256 rows); ppo_minibatch: "
         "54-64-64-3 actor and 54-64-64-1 critic on 2048 rows\n");
  printf("# %-14s %8s %14s %14s %8s\n", "sequence", "MFLOP", "foxopt GFLOP/s",
         "OpenBLAS GFLOP/s", "ratio");
  FILE *f = fopen(json, "w");
  if (f)
    fprintf(f, "{\"library\": \"%s\"", gemm_library());
  for (int s = 0; s < 2; s++) {
    double fl = flops_(seq[s].ops, seq[s].n);
    double tf = time_(seq[s].ops, seq[s].n, 0, a, b, c);
    double tb = time_(seq[s].ops, seq[s].n, 1, a, b, c);
    printf("  %-14s %8.2f %14.1f %16.1f %8.2f\n", seq[s].name, fl / 1e6, fl / tf / 1e9,
           fl / tb / 1e9, tb / tf);
    if (f)
      fprintf(f, ", \"%s\": {\"mflop\": %.4f, \"foxopt_gflops\": %.2f, \"openblas_gflops\": %.2f}",
              seq[s].name, fl / 1e6, fl / tf / 1e9, fl / tb / 1e9);
  }
  if (f) {
    fprintf(f, "}\n");
    fclose(f);
  }
  printf("# json: %s\n", json);
  free(a), free(b), free(c);
  return 0;
}
