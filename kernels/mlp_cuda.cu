/* CUDA MLP: row-major arrays as the CPU twin keeps them, read by cuBLAS as their column-major
 * transposes (a row-major [r, c] matrix is a column-major [c, r] one), so no copy is ever
 * transposed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "act_step.h"
#include "cuda_check.h"
#include "fox_launch.h"
#include "mlp_cuda.h"
#include "mlp_layout.h"
#include "opt_step.h"

#define BLK_ 256

/* y[i, j] = act(y[i, j] + b[j]) on hidden layers (act >= 0), + b[j] on the output layer
 * (act < 0). */
__global__ void bias_act_kernel(float *y, const float *b, int rows, int cols, int act) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (size_t)rows * cols)
    return;
  float v = y[i] + b[i % cols];
  y[i] = act >= 0 ? fox_act(act, v) : v;
}

/* d[i] = dLoss/dz of a hidden unit from dLoss/dy and its output h[i]. */
__global__ void act_back_kernel(float *d, const float *h, size_t n, int act) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    d[i] = fox_act_back(act, h[i], d[i]);
}

/* gb[j] += sum over the batch of d[i, j]; one thread per output unit, a fixed order. */
__global__ void bias_grad_kernel(float *gb, const float *d, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols)
    return;
  float s = 0.0f;
  for (int i = 0; i < rows; i++)
    s += d[(size_t)i * cols + j];
  gb[j] += s;
}

/* Lane k of the squared norm (opt_step.h): one thread per lane, the CPU's order. */
__global__ void sqnorm_lanes_kernel(const float *g, size_t n, double *lanes, int accumulate) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= FOX_SQ_LANES)
    return;
  double s = opt_sq_lane(g, n, k);
  lanes[k] = accumulate ? lanes[k] + s : s;
}

/* The networks of one optimiser step, for the one-thread kernel that prepares it. */
struct clip_nets_ {
  struct opt_state *st[FOX_CLIP_NETS];
  int k;
};

/* One thread: the lanes in order, the clip coefficient, and each network's step count and
 * Adam constants at the learning rate of *progress (opt_prepare), which every Adam thread
 * reads. */
__global__ void clip_prepare_kernel(const double *lanes, double max_norm, float *coef,
                                    struct clip_nets_ nets, struct opt_lr lr,
                                    const int64_t *progress) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *coef = opt_prepare(lanes, max_norm, lr, progress, nets.st, nets.k);
}

__global__ void adam_kernel(float *p, const float *g, float *m, float *v, size_t n,
                            const float *coef, const struct opt_state *st) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    opt_adam_elem(&p[i], &m[i], &v[i], g[i], *coef, st->a);
}

/* A blend whenever *count is a multiple of every (count NULL: always): the decision is read on
 * the device, so a captured update holds it. */
__global__ void blend_kernel(float *dst, const float *src, size_t n, float tau,
                             const int64_t *count, int64_t every) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && opt_blend_due(count, every))
    dst[i] = opt_blend_elem(dst[i], src[i], tau);
}

/* A cuBLAS GEMM is a kernel launch too: counted beside FOX_LAUNCH's (backend/counters.h). */
#define GEMM_(e, ...)                                                                          \
  do {                                                                                         \
    counters_launch();                                                                         \
    cublasCheck(cublasSgemm(__VA_ARGS__), e);                                                  \
  } while (0)

static unsigned grid_(size_t n) { return (unsigned)((n + BLK_ - 1) / BLK_); }

static int create_(struct mlp_cuda *m, int in, const int *hidden, int n_hidden, int out,
                   int activation, double adam_eps, struct fox_err *e) {
  if (n_hidden < 0 || n_hidden + 1 > FOX_MLP_CUDA_MAX || in < 1 || out < 1)
    return fox_errf(e, FOX_EUSAGE, "mlp_cuda: %d hidden layers, in %d, out %d", n_hidden, in,
                    out);
  if (activation != FOX_ACT_RELU && activation != FOX_ACT_TANH)
    return fox_errf(e, FOX_EUSAGE, "mlp_cuda: unknown activation %d", activation);
  m->activation = activation;
  m->n_layers = n_hidden + 1;
  m->n_params = mlp_layout(in, hidden, n_hidden, out, m->dims, m->offset);
  size_t bytes = m->n_params * sizeof(float);
  cudaCheck(cudaMalloc((void **)&m->w, bytes), e);
  cudaCheck(cudaMalloc((void **)&m->g, bytes), e);
  cudaCheck(cudaMalloc((void **)&m->adam_m, bytes), e);
  cudaCheck(cudaMalloc((void **)&m->adam_v, bytes), e);
  cudaCheck(cudaMemset(m->w, 0, bytes), e);
  cudaCheck(cudaMemset(m->g, 0, bytes), e);
  cudaCheck(cudaMemset(m->adam_m, 0, bytes), e);
  cudaCheck(cudaMemset(m->adam_v, 0, bytes), e);
  struct opt_state st = {0, adam_eps, {0, 0, 0, 0, 0}};
  cudaCheck(cudaMalloc((void **)&m->st, sizeof st), e);
  cudaCheck(cudaMemcpy(m->st, &st, sizeof st, cudaMemcpyHostToDevice), e);
  cublasHandle_t h;
  cublasCheck(cublasCreate(&h), e);
  m->blas = h;
  /* Several trials share a device from their own threads: each works in its thread's stream. */
  cublasCheck(cublasSetStream(h, cudaStreamPerThread), e);
  return 0;
}

int mlp_cuda_create(struct mlp_cuda *m, int in, const int *hidden, int n_hidden, int out,
                    int activation, double adam_eps, struct fox_err *e) {
  memset(m, 0, sizeof *m);
  int rc = create_(m, in, hidden, n_hidden, out, activation, adam_eps, e);
  if (rc != 0)
    mlp_cuda_free(m);
  return rc;
}

void mlp_cuda_free(struct mlp_cuda *m) {
  /* cudaFree promises no wait for the work queued on these buffers: this thread's stream is
   * drained first (a teardown, once per network). */
  if (m->w)
    cudaStreamSynchronize(cudaStreamPerThread);
  cudaFree(m->w);
  cudaFree(m->g);
  cudaFree(m->adam_m);
  cudaFree(m->adam_v);
  cudaFree(m->st);
  for (int l = 0; l <= FOX_MLP_CUDA_MAX; l++)
    cudaFree(m->act[l]);
  cudaFree(m->delta[0]);
  cudaFree(m->delta[1]);
  if (m->blas)
    cublasDestroy((cublasHandle_t)m->blas);
  memset(m, 0, sizeof *m);
}

int mlp_cuda_set_params(struct mlp_cuda *m, const float *host, struct fox_err *e) {
  cudaCheck(cudaMemcpy(m->w, host, m->n_params * sizeof(float), cudaMemcpyHostToDevice), e);
  return 0;
}

int mlp_cuda_get_params(const struct mlp_cuda *m, float *host, struct fox_err *e) {
  cudaCheck(cudaMemcpy(host, m->w, m->n_params * sizeof(float), cudaMemcpyDeviceToHost), e);
  return 0;
}

int mlp_cuda_get_grads(const struct mlp_cuda *m, float *host, struct fox_err *e) {
  cudaCheck(cudaMemcpy(host, m->g, m->n_params * sizeof(float), cudaMemcpyDeviceToHost), e);
  return 0;
}

int mlp_cuda_reserve(struct mlp_cuda *m, int batch, struct fox_err *e) {
  if (batch <= m->batch_cap)
    return 0;
  /* The old buffers go: queued work may still read or write them. */
  if (m->batch_cap > 0)
    cudaCheck(cudaStreamSynchronize(cudaStreamPerThread), e);
  int widest = 0;
  for (int l = 0; l <= m->n_layers; l++) {
    cudaFree(m->act[l]);
    m->act[l] = NULL;
    cudaCheck(cudaMalloc((void **)&m->act[l], (size_t)batch * m->dims[l] * sizeof(float)), e);
    widest = m->dims[l] > widest ? m->dims[l] : widest;
  }
  for (int i = 0; i < 2; i++) {
    cudaFree(m->delta[i]);
    m->delta[i] = NULL;
    cudaCheck(cudaMalloc((void **)&m->delta[i], (size_t)batch * widest * sizeof(float)), e);
  }
  m->batch_cap = batch;
  return 0;
}

/* The layers read x itself and the last writes out itself: no copies, so that a step is
 * kernels and GEMMs only; backward reads the input of the last forward from x, which the
 * caller keeps until then (a batch buffer or the rollout's minibatch). */
int mlp_cuda_forward(struct mlp_cuda *m, const float *x, int batch, float *out,
                     struct fox_err *e) {
  FOX_TRY(mlp_cuda_reserve(m, batch, e));
  cublasHandle_t h = (cublasHandle_t)m->blas;
  const float one = 1.0f, zero = 0.0f;
  m->input = x;
  for (int l = 0; l < m->n_layers; l++) {
    int in = m->dims[l], o = m->dims[l + 1];
    const float *w = m->w + m->offset[l], *b = w + (size_t)o * in;
    const float *xl = l == 0 ? x : m->act[l];
    float *yl = l == m->n_layers - 1 ? out : m->act[l + 1];
    /* Y^T [o, B] = (W^T)^T [o, in] X^T [in, B] */
    GEMM_(e, h, CUBLAS_OP_T, CUBLAS_OP_N, o, batch, in, &one, w, in, xl, in, &zero, yl, o);
    size_t n = (size_t)batch * o;
    FOX_LAUNCH(bias_act_kernel, grid_(n), BLK_, 0, 0, yl, b, batch, o,
               l < m->n_layers - 1 ? m->activation : -1);
    cudaCheckLaunch(e);
  }
  return 0;
}

/* The top layer reads dout itself; the deltas below go to the network's own buffers. */
int mlp_cuda_backward(struct mlp_cuda *m, const float *dout, int batch, struct fox_err *e) {
  cublasHandle_t h = (cublasHandle_t)m->blas;
  int L = m->n_layers;
  const float *d = dout;
  float *dn = m->delta[0];
  const float one = 1.0f, zero = 0.0f;
  for (int l = L - 1; l >= 0; l--) {
    int in = m->dims[l], o = m->dims[l + 1];
    const float *w = m->w + m->offset[l], *xl = l == 0 ? m->input : m->act[l];
    float *gw = m->g + m->offset[l], *gb = gw + (size_t)o * in;
    /* dW^T [in, o] += X^T [in, B] (dY^T)^T [B, o] */
    GEMM_(e, h, CUBLAS_OP_N, CUBLAS_OP_T, in, o, batch, &one, xl, in, d, o, &one, gw, in);
    FOX_LAUNCH(bias_grad_kernel, grid_((size_t)o), BLK_, 0, 0, gb, d, batch, o);
    cudaCheckLaunch(e);
    if (l == 0)
      break;
    /* dX^T [in, B] = W^T [in, o] dY^T [o, B], then through the activation of layer l-1 */
    GEMM_(e, h, CUBLAS_OP_N, CUBLAS_OP_N, in, batch, o, &one, w, in, d, o, &zero, dn, in);
    size_t n = (size_t)batch * in;
    FOX_LAUNCH(act_back_kernel, grid_(n), BLK_, 0, 0, dn, m->act[l], n, m->activation);
    cudaCheckLaunch(e);
    d = dn;
    dn = dn == m->delta[0] ? m->delta[1] : m->delta[0];
  }
  return 0;
}

int mlp_cuda_zero_grad(struct mlp_cuda *m, struct fox_err *e) {
  cudaCheck(cudaMemsetAsync(m->g, 0, m->n_params * sizeof(float), cudaStreamPerThread), e);
  return 0;
}

int mlp_cuda_clip_step(struct mlp_cuda *const *nets, int k, double *lanes, float *coef,
                       double max_norm, struct opt_lr lr, const int64_t *progress,
                       struct fox_err *e) {
  struct clip_nets_ cn = {{NULL, NULL}, k};
  for (int i = 0; i < k; i++) {
    FOX_LAUNCH(sqnorm_lanes_kernel, FOX_SQ_LANES / 64, 64, 0, 0, nets[i]->g, nets[i]->n_params,
               lanes, i > 0);
    cudaCheckLaunch(e);
    cn.st[i] = nets[i]->st;
  }
  FOX_LAUNCH(clip_prepare_kernel, 1, 1, 0, 0, lanes, max_norm, coef, cn, lr, progress);
  cudaCheckLaunch(e);
  for (int i = 0; i < k; i++) {
    struct mlp_cuda *m = nets[i];
    FOX_LAUNCH(adam_kernel, grid_(m->n_params), BLK_, 0, 0, m->w, m->g, m->adam_m, m->adam_v,
               m->n_params, coef, m->st);
    cudaCheckLaunch(e);
  }
  return 0;
}

int mlp_cuda_blend(struct mlp_cuda *dst, const struct mlp_cuda *src, float tau,
                   const int64_t *count, int64_t every, struct fox_err *e) {
  FOX_LAUNCH(blend_kernel, grid_(dst->n_params), BLK_, 0, 0, dst->w, src->w, dst->n_params, tau,
             count, every);
  cudaCheckLaunch(e);
  return 0;
}

int mlp_cuda_get_adam(const struct mlp_cuda *m, float *mom, float *vel, long *t,
                      struct fox_err *e) {
  size_t bytes = m->n_params * sizeof(float);
  struct opt_state st;
  cudaCheck(cudaMemcpy(mom, m->adam_m, bytes, cudaMemcpyDeviceToHost), e);
  cudaCheck(cudaMemcpy(vel, m->adam_v, bytes, cudaMemcpyDeviceToHost), e);
  cudaCheck(cudaMemcpy(&st, m->st, sizeof st, cudaMemcpyDeviceToHost), e);
  *t = (long)st.t;
  return 0;
}

int mlp_cuda_copy_state(struct mlp_cuda *dst, const struct mlp_cuda *src, struct fox_err *e) {
  size_t bytes = dst->n_params * sizeof(float);
  cudaStream_t s = cudaStreamPerThread;
  cudaCheck(cudaMemcpyAsync(dst->w, src->w, bytes, cudaMemcpyDeviceToDevice, s), e);
  cudaCheck(cudaMemcpyAsync(dst->adam_m, src->adam_m, bytes, cudaMemcpyDeviceToDevice, s), e);
  cudaCheck(cudaMemcpyAsync(dst->adam_v, src->adam_v, bytes, cudaMemcpyDeviceToDevice, s), e);
  /* the step count alone: the rest of opt_state is the trial's own (as set_adam leaves it) */
  cudaCheck(cudaMemcpyAsync(&dst->st->t, &src->st->t, sizeof dst->st->t,
                            cudaMemcpyDeviceToDevice, s), e);
  return 0;
}

int mlp_cuda_set_adam(struct mlp_cuda *m, const float *mom, const float *vel, long t,
                      struct fox_err *e) {
  size_t bytes = m->n_params * sizeof(float);
  struct opt_state st;
  cudaCheck(cudaMemcpy(&st, m->st, sizeof st, cudaMemcpyDeviceToHost), e);
  st.t = t;
  cudaCheck(cudaMemcpy(m->adam_m, mom, bytes, cudaMemcpyHostToDevice), e);
  cudaCheck(cudaMemcpy(m->adam_v, vel, bytes, cudaMemcpyHostToDevice), e);
  cudaCheck(cudaMemcpy(m->st, &st, sizeof st, cudaMemcpyHostToDevice), e);
  return 0;
}
