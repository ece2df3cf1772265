/* CUDA MLP vs its CPU twin on the same parameters and batch: forward outputs, accumulated
 * gradients, clipping and an Adam step. Skips (77) without a device. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "agents/mlp.h"
#include "backend/backend.h"
#include "fox_check.h"
#include "mlp_cuda.h"
#include "opt_step.h"

#define B 37

static size_t differ_(const float *g, const float *c, size_t n, float atol, float rtol) {
  size_t bad = 0;
  for (size_t i = 0; i < n; i++)
    bad += !(fabsf(g[i] - c[i]) <= atol + rtol * fabsf(c[i]));
  return bad;
}

int main(void) {
  if (backend_cuda_devices(NULL, 0) == 0) {
    printf("skipped: no CUDA device\n");
    return 77;
  }
  struct fox_err e = {0};
  const int hidden[2] = {128, 64};
  struct mlp cpu;
  struct mlp_cuda gpu;
  struct rng r;
  rng_seed(&r, 11);
  for (int act = FOX_ACT_RELU; act <= FOX_ACT_TANH; act++) {
    CHECK(mlp_create(&cpu, 54, hidden, 2, 4, act, &e) == 0, "%s", e.msg);
    CHECK(mlp_cuda_create(&gpu, 54, hidden, 2, 4, act, 1e-8, &e) == 0, "%s", e.msg);
    mlp_init(&cpu, &r, act == FOX_ACT_RELU ? FOX_INIT_ORTHOGONAL : FOX_INIT_DEFAULT, 1.0);
    for (size_t i = 0; i < cpu.n_params; i++)
      cpu.w[i] += 0.05f * (float)rng_normal(&r); /* non-zero biases */
    mlp_touch(&cpu);
    CHECK(mlp_cuda_set_params(&gpu, cpu.w, &e) == 0, "%s", e.msg);
    size_t nx = (size_t)B * 54, ny = (size_t)B * 4, np = cpu.n_params;
    float *x = malloc(nx * sizeof *x), *dy = malloc(ny * sizeof *dy);
    float *yc = malloc(ny * sizeof *yc);
    float *yg = malloc(ny * sizeof *yg), *host = malloc(np * sizeof *host);
    for (size_t i = 0; i < nx; i++)
      x[i] = (float)rng_normal(&r);
    for (size_t i = 0; i < ny; i++)
      dy[i] = (float)rng_normal(&r);
    float *dx, *ddy, *dyg;
    CHECK(cudaMalloc((void **)&dx, nx * sizeof(float)) == cudaSuccess &&
              cudaMalloc((void **)&ddy, ny * sizeof(float)) == cudaSuccess &&
              cudaMalloc((void **)&dyg, ny * sizeof(float)) == cudaSuccess,
          "device buffers");
    cudaMemcpy(dx, x, nx * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(ddy, dy, ny * sizeof(float), cudaMemcpyHostToDevice);

    double *lanes;
    float *coef;
    CHECK(cudaMalloc((void **)&lanes, FOX_SQ_LANES * sizeof(double)) == cudaSuccess &&
              cudaMalloc((void **)&coef, sizeof(float)) == cudaSuccess,
          "clip buffers");
    struct adam opt;
    CHECK(adam_create(&opt, np, 1e-8, &e) == 0, "%s", e.msg);
    for (int step = 0; step < 3; step++) {
      CHECK(mlp_forward(&cpu, x, B, yc, &e) == 0, "%s", e.msg);
      CHECK(mlp_cuda_forward(&gpu, dx, B, dyg, &e) == 0, "%s", e.msg);
      cudaMemcpy(yg, dyg, ny * sizeof(float), cudaMemcpyDeviceToHost);
      CHECK(differ_(yg, yc, ny, 1e-5f, 1e-4f) == 0, "act %d, step %d: forward outputs differ", act,
            step);
      mlp_zero_grad(&cpu);
      CHECK(mlp_cuda_zero_grad(&gpu, &e) == 0, "%s", e.msg);
      mlp_backward(&cpu, dy, B);
      CHECK(mlp_cuda_backward(&gpu, ddy, B, &e) == 0, "%s", e.msg);
      CHECK(mlp_cuda_get_grads(&gpu, host, &e) == 0, "%s", e.msg);
      CHECK(differ_(host, cpu.g, np, 1e-4f, 1e-3f) == 0, "step %d: gradients differ", step);
      /* The clip coefficient from the device's lanes, against the CPU norm: the same up to
       * the sums' order (lanes here, one running sum there); then Adam (the step counted on
       * the device). */
      double nc = grad_clip(cpu.g, np, 1.0);
      struct mlp_cuda *one = &gpu;
      struct opt_lr lr = {1e-3, 0, 0};
      CHECK(mlp_cuda_clip_step(&one, 1, lanes, coef, 1.0, lr, NULL, &e) == 0, "%s", e.msg);
      float cg;
      cudaMemcpy(&cg, coef, sizeof cg, cudaMemcpyDeviceToHost);
      double want = 1.0 / (nc + 1e-6);
      CHECK(fabs(cg - (want < 1 ? want : 1.0)) <= 1e-6 * want, "step %d: clip coefficient %g vs "
            "%g", step, cg, want);
      adam_step(&opt, cpu.w, cpu.g, 1e-3);
      mlp_touch(&cpu);
      CHECK(mlp_cuda_get_params(&gpu, host, &e) == 0, "%s", e.msg);
      CHECK(differ_(host, cpu.w, np, 1e-5f, 1e-4f) == 0, "step %d: parameters after Adam differ",
            step);
    }
    adam_free(&opt);
    cudaFree(dx), cudaFree(ddy), cudaFree(dyg), cudaFree(lanes), cudaFree(coef);
    free(x), free(dy), free(yc), free(yg), free(host);
    mlp_free(&cpu);
    mlp_cuda_free(&gpu);
  }
  return fox_check_done("test_mlp_cuda");
}
