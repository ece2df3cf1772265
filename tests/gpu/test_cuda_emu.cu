/* The CUDA emulation's own checks (FOXOPT_CUDA_EMU builds): a launch runs every (block, thread)
 * once with the right built-ins; the launch limits refuse a block of 1025 threads, a zero
 * dimension and more than 48 KiB of shared memory; cublasSgemm is column-major (a 2x3 by 3x2
 * product worked by hand); each misuse aborts with a message naming it, in a child process: a
 * host pointer passed to a launch, a copy the wrong way or past an allocation's end, cudaFree of
 * a host pointer, a launch nobody checked, host matrices or device scalars given to cuBLAS;
 * under ASan, a kernel writing past the end of its allocation is AddressSanitizer's report;
 * FOX_LAUNCH_SYNC runs a block's threads to a real barrier at each __syncthreads, and a plain
 * launch of a kernel that calls it aborts naming it; a fork while a kernel runs (on the
 * asynchronous engine) leaves it run once in parent and child alike.
 *   test_cuda_emu          the above
 *   test_cuda_emu nccl     (under mpiexec) ncclAllReduce on MPI: sums, maxima, averages */
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

/* The wrappers foxopt's sources call cudaMalloc, cudaFree and cudaMemcpy through. */
#include "child.h"
#include "cuda_check.h"
#include "fox_check.h"
#include "fox_launch.h"

__global__ void cover_kernel(int *hits, unsigned *dims) {
  unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  atomicAdd(&hits[b * blockDim.x * blockDim.y * blockDim.z + t], 1);
  if (b == 0 && t == 0) {
    dims[0] = gridDim.x, dims[1] = gridDim.y, dims[2] = gridDim.z;
    dims[3] = blockDim.x, dims[4] = blockDim.y, dims[5] = blockDim.z;
  }
}

__global__ void fill_kernel(float *x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = v;
}

/* Each thread writes its slot, then, after the barrier, reads its right neighbour's: without a
 * real barrier some neighbour has not written yet. Twice, so the barrier is reusable. */
__global__ void rotate_kernel(int *a, int *out, int rounds) {
  int t = threadIdx.x, n = blockDim.x, base = blockIdx.x * n;
  for (int r = 0; r < rounds; r++) {
    a[base + t] = (t + 1) * 100 + r;
    __syncthreads();
    out[(base + t) * rounds + r] = a[base + (t + 1) % n];
    __syncthreads();
  }
}

#if defined(__SANITIZE_ADDRESS__)
#define ASAN_ 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN_ 1
#endif
#endif

static float *device_floats_(int n) {
  float *d = NULL;
  if (cudaMalloc((void **)&d, n * sizeof(float)) != cudaSuccess)
    abort();
  return d;
}

/* The message names the line of this file that made the call, through cuda_check.h too. */
static void expect_abort_(const char *what, void (*misuse)(void), const char *want) {
  expect_death_(what, misuse, want, "test_cuda_emu.cu:", 1);
}

static void launch_host_pointer_(void) {
  float host[8];
  device_floats_(8);
  FOX_LAUNCH(fill_kernel, 1, 8, 0, 0, host, 8, 1.0f);
}

static void launch_freed_pointer_(void) {
  float *d = device_floats_(8);
  cudaFree(d);
  FOX_LAUNCH(fill_kernel, 1, 8, 0, 0, d, 8, 1.0f);
}

#ifdef ASAN_
/* 24 of the 32 threads write past the end: AddressSanitizer's report. */
static void launch_out_of_bounds_(void) {
  float *d = device_floats_(8);
  FOX_LAUNCH(fill_kernel, 1, 32, 0, 0, d, 32, 1.0f);
  cudaGetLastError();
  cudaDeviceSynchronize(); /* the kernel may run later, on the stream's own thread */
}
#endif

static void copy_wrong_way_(void) {
  float *d = device_floats_(4), host[4] = {0};
  cudaMemcpy(d, host, sizeof host, cudaMemcpyDeviceToHost);
}

static void copy_past_end_(void) {
  float *d = device_floats_(4), host[8] = {0};
  cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice);
}

static void free_host_pointer_(void) {
  float *h = (float *)malloc(16);
  cudaFree(h);
}

static void unchecked_launch_(void) {
  float *d = device_floats_(8);
  FOX_LAUNCH(fill_kernel, 1, 8, 0, 0, d, 8, 1.0f);
  cudaFree(d);
}

static void gemm_host_matrix_(void) {
  cublasHandle_t h;
  cublasCreate(&h);
  float *d = device_floats_(4), host[4] = {0}, one = 1.0f, zero = 0.0f;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, host, 2, d, 2, &zero, d, 2);
}

static void gemm_device_alpha_(void) {
  cublasHandle_t h;
  cublasCreate(&h);
  float *d = device_floats_(5), zero = 0.0f;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 1, d + 4, d, 2, d, 1, &zero, d, 2);
}

static void launches_(void) {
  /* Every (block, thread) exactly once, with gridDim and blockDim as launched. */
  dim3 grid(3, 2, 2), block(4, 3, 2);
  int total = 3 * 2 * 2 * 4 * 3 * 2, hits[288];
  unsigned dims[6];
  int *dh;
  unsigned *dd;
  CHECK(cudaMalloc((void **)&dh, sizeof hits) == cudaSuccess, "cudaMalloc");
  CHECK(cudaMalloc((void **)&dd, sizeof dims) == cudaSuccess, "cudaMalloc");
  CHECK(cudaMemset(dh, 0, sizeof hits) == cudaSuccess, "cudaMemset");
  FOX_LAUNCH(cover_kernel, grid, block, 0, 0, dh, dd);
  CHECK(cudaGetLastError() == cudaSuccess, "a good launch leaves no error");
  cudaMemcpy(hits, dh, sizeof hits, cudaMemcpyDeviceToHost);
  cudaMemcpy(dims, dd, sizeof dims, cudaMemcpyDeviceToHost);
  int once = 0;
  for (int i = 0; i < total; i++)
    once += hits[i] == 1;
  CHECK(once == total, "%d of %d (block, thread) pairs ran exactly once", once, total);
  CHECK(dims[0] == 3 && dims[1] == 2 && dims[2] == 2 && dims[3] == 4 && dims[4] == 3 &&
            dims[5] == 2, "gridDim (%u, %u, %u), blockDim (%u, %u, %u)", dims[0], dims[1],
        dims[2], dims[3], dims[4], dims[5]);

  /* Fresh device memory is all-ones bytes (NaN), not zeros. */
  float *x = device_floats_(2048), back[2048];
  cudaMemcpy(back, x, sizeof back, cudaMemcpyDeviceToHost);
  CHECK(isnan(back[0]) && isnan(back[2047]), "fresh device memory reads as NaN");

  /* The limits refuse a launch with cudaErrorInvalidConfiguration, and nothing runs. */
  FOX_LAUNCH(fill_kernel, 2, 1024, 0, 0, x, 2048, 1.0f);
  CHECK(cudaGetLastError() == cudaSuccess, "1024 threads per block are allowed");
  FOX_LAUNCH(fill_kernel, 2, 1025, 0, 0, x, 2048, 2.0f);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidConfiguration, "1025 threads are refused");
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration, "peek leaves the error");
  CHECK(cudaGetLastError() == cudaSuccess, "get clears it");
  cudaMemcpy(back, x, sizeof back, cudaMemcpyDeviceToHost);
  CHECK(back[0] == 1.0f && back[2047] == 1.0f, "the refused launch ran nothing (%g)", back[0]);
  FOX_LAUNCH(fill_kernel, dim3(1, 1, 1), dim3(1, 1, 65), 0, 0, x, 2048, 2.0f);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration, "block.z 65 is refused");
  FOX_LAUNCH(fill_kernel, 0, 32, 0, 0, x, 2048, 2.0f);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration, "an empty grid is refused");
  FOX_LAUNCH(fill_kernel, 1, 32, 49152, 0, x, 2048, 2.0f);
  CHECK(cudaGetLastError() == cudaSuccess, "48 KiB of shared memory are allowed");
  FOX_LAUNCH(fill_kernel, 1, 32, 49153, 0, x, 2048, 2.0f);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration, "48 KiB + 1 are refused");

  /* A launch on a (blocking) stream comes after the legacy stream's work. */
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s) == cudaSuccess, "stream");
  FOX_LAUNCH(fill_kernel, 8, 256, 0, s, x, 2048, 3.0f);
  CHECK(cudaGetLastError() == cudaSuccess, "a launch on a stream");
  CHECK(cudaMemcpyAsync(back, x, sizeof back, cudaMemcpyDeviceToHost, s) == cudaSuccess &&
            cudaStreamSynchronize(s) == cudaSuccess && back[1000] == 3.0f,
        "an async copy on the stream sees the launch (%g)", back[1000]);
  cudaEvent_t a, b;
  float ms = -1.0f;
  CHECK(cudaEventCreate(&a) == cudaSuccess && cudaEventCreate(&b) == cudaSuccess &&
            cudaEventRecord(a, s) == cudaSuccess && cudaEventRecord(b, s) ==
            cudaSuccess && cudaEventSynchronize(a) == cudaSuccess &&
            cudaEventSynchronize(b) == cudaSuccess && cudaEventElapsedTime(&ms, a, b) ==
            cudaSuccess && ms >= 0.0f,
        "events time in order (%g ms)", ms);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  CHECK(cudaStreamDestroy(s) == cudaSuccess, "stream destroyed");
  cudaFree(x);
  cudaFree(dh);
  cudaFree(dd);
}

static void device_(void) {
  int count = 0, dev = -1;
  cudaDeviceProp prop;
  cudaFuncAttributes attr;
  CHECK(cudaGetDeviceCount(&count) == cudaSuccess && count == 1, "one device (%d)", count);
  CHECK(cudaGetDeviceProperties(&prop, 0) == cudaSuccess &&
            strcmp(prop.name, "foxopt CUDA emulation") == 0 && prop.maxThreadsPerBlock == 1024,
        "device 0 is the emulation");
  CHECK(cudaSetDevice(1) == cudaErrorInvalidDevice, "no device 1");
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice, "the failed call is the last error");
  CHECK(cudaSetDevice(0) == cudaSuccess && cudaGetDevice(&dev) == cudaSuccess && dev == 0,
        "device 0 current");
  CHECK(cudaFuncGetAttributes(&attr, fill_kernel) == cudaSuccess && attr.maxThreadsPerBlock == 1024,
        "kernel attributes");
  CHECK(strcmp(cudaGetErrorString(cudaErrorInvalidConfiguration),
               "invalid configuration argument") == 0, "the runtime's error text");
}

static void gemm_(void) {
  /* A [2x3] = [1 2 3; 4 5 6], B [3x2] = [7 8; 9 10; 11 12]: A B = [58 64; 139 154]. */
  const float a_col[6] = {1, 4, 2, 5, 3, 6}, b_col[6] = {7, 9, 11, 8, 10, 12};
  const float a_row[6] = {1, 2, 3, 4, 5, 6}, b_row[6] = {7, 8, 9, 10, 11, 12};
  const float want[4] = {58, 139, 64, 154}; /* column-major */
  float *A, *B, *C, c[4], one = 1.0f, zero = 0.0f, two = 2.0f;
  A = device_floats_(6), B = device_floats_(6), C = device_floats_(4);
  cublasHandle_t h;
  CHECK(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  CHECK(cublasSetStream(h, cudaStreamPerThread) == CUBLAS_STATUS_SUCCESS, "cublasSetStream");
  cudaMemcpy(A, a_col, sizeof a_col, cudaMemcpyHostToDevice);
  cudaMemcpy(B, b_col, sizeof b_col, cudaMemcpyHostToDevice);
  /* C holds NaN (fresh memory): beta 0 must not read it. */
  CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, A, 2, B, 3, &zero, C, 2) ==
            CUBLAS_STATUS_SUCCESS, "sgemm N N");
  cudaMemcpy(c, C, sizeof c, cudaMemcpyDeviceToHost);
  CHECK(memcmp(c, want, sizeof c) == 0, "N N: [%g %g; %g %g]", c[0], c[2], c[1], c[3]);
  /* Row-major storage is the column-major transpose: op T on both gives the same product. */
  cudaMemcpy(A, a_row, sizeof a_row, cudaMemcpyHostToDevice);
  cudaMemcpy(B, b_row, sizeof b_row, cudaMemcpyHostToDevice);
  CHECK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_T, 2, 2, 3, &one, A, 3, B, 2, &one, C, 2) ==
            CUBLAS_STATUS_SUCCESS, "sgemm T T");
  cudaMemcpy(c, C, sizeof c, cudaMemcpyDeviceToHost);
  CHECK(c[0] == 116 && c[1] == 278 && c[2] == 128 && c[3] == 308, "T T with beta 1: [%g %g; %g %g]",
        c[0], c[2], c[1], c[3]);
  CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &one, A, 1, B, 3, &zero, C, 2) ==
            CUBLAS_STATUS_INVALID_VALUE, "lda < m is cuBLAS's invalid value");
  float nrm = 0.0f;
  CHECK(cublasSnrm2(h, 4, C, 1, &nrm) == CUBLAS_STATUS_SUCCESS &&
            fabsf(nrm - sqrtf(116.f * 116 + 278.f * 278 + 128.f * 128 + 308.f * 308)) < 1e-2f,
        "snrm2 %g", nrm);
  CHECK(cublasSscal(h, 4, &two, C, 1) == CUBLAS_STATUS_SUCCESS &&
            cublasSaxpy(h, 4, &two, C, 1, C, 1) == CUBLAS_STATUS_SUCCESS, "sscal, saxpy");
  cudaMemcpy(c, C, sizeof c, cudaMemcpyDeviceToHost);
  CHECK(c[0] == 696 && c[3] == 1848, "2 (2 C) + 2 C = 6 C: %g %g", c[0], c[3]);
  CHECK(strcmp(cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE),
               "an invalid numeric value was used as an argument") == 0, "cuBLAS's status text");
  cublasDestroy(h);
  cudaFree(A), cudaFree(B), cudaFree(C);
}

static int nccl_(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ncclUniqueId id;
  if (rank == 0)
    CHECK(ncclGetUniqueId(&id) == ncclSuccess, "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  int n = 0, me = -1;
  CHECK(ncclCommInitRank(&comm, size, id, rank) == ncclSuccess, "ncclCommInitRank");
  CHECK(ncclCommCount(comm, &n) == ncclSuccess && n == size && ncclCommUserRank(comm, &me) ==
            ncclSuccess && me == rank, "count %d, rank %d", n, me);
  double h[3] = {rank + 1.0, 2.0 * rank, 1.0}, *d;
  float f[2] = {(float)rank, -(float)rank}, *fs, *fr;
  cudaMalloc((void **)&d, sizeof h);
  cudaMalloc((void **)&fs, sizeof f);
  cudaMalloc((void **)&fr, sizeof f);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  CHECK(ncclAllReduce(d, d, 3, ncclDouble, ncclSum, comm, s) == ncclSuccess, "in-place sum");
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  double r1 = size * (size + 1) / 2.0, r2 = (double)size * (size - 1);
  CHECK(h[0] == r1 && h[1] == r2 && h[2] == size, "sums %g %g %g", h[0], h[1], h[2]);
  cudaMemcpy(fs, f, sizeof f, cudaMemcpyHostToDevice);
  CHECK(ncclAllReduce(fs, fr, 2, ncclFloat, ncclMax, comm, s) == ncclSuccess, "max");
  cudaMemcpy(f, fr, sizeof f, cudaMemcpyDeviceToHost);
  CHECK(f[0] == size - 1 && f[1] == 0.0f, "maxima %g %g", f[0], f[1]);
  CHECK(ncclAllReduce(d, d, 3, ncclDouble, ncclAvg, comm, s) == ncclSuccess, "average");
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  CHECK(h[0] == r1 && h[2] == size, "averages of equal sums %g %g", h[0], h[2]);
  CHECK(ncclCommDestroy(comm) == ncclSuccess, "ncclCommDestroy");
  cudaStreamDestroy(s);
  cudaFree(d), cudaFree(fs), cudaFree(fr);
  int rc = fox_check_done("test_cuda_emu nccl");
  MPI_Finalize();
  return rc;
}

/* FOX_LAUNCH_SYNC: the block's threads meet at every __syncthreads. */
static void block_sync_(void) {
  enum { B = 3, T = 5, R = 4 };
  int *a, *out, host[B * T * R];
  CHECK(cudaMalloc((void **)&a, B * T * sizeof(int)) == cudaSuccess &&
            cudaMalloc((void **)&out, sizeof host) == cudaSuccess,
        "buffers");
  FOX_LAUNCH_SYNC(rotate_kernel, B, T, 0, 0, a, out, (int)R);
  CHECK(cudaGetLastError() == cudaSuccess, "FOX_LAUNCH_SYNC");
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int r = 0; r < R; r++)
        bad += host[(b * T + t) * R + r] != ((t + 1) % T + 1) * 100 + r;
  CHECK(bad == 0, "%d reads saw a neighbour before the barrier", bad);
  cudaFree(a);
  cudaFree(out);
}

/* __syncthreads in a kernel launched without FOX_LAUNCH_SYNC aborts naming it. */
static void plain_launch_of_sync_kernel_(void) {
  int *a, *out;
  cudaMalloc((void **)&a, 4 * sizeof(int));
  cudaMalloc((void **)&out, 4 * sizeof(int));
  FOX_LAUNCH(rotate_kernel, 1, 4, 0, 0, a, out, 1);
  cudaGetLastError();
  cudaDeviceSynchronize(); /* the kernel may run later, on the stream's own thread */
}

/* Adds one, then holds its stream, so that a fork lands while it runs. */
__global__ void add_then_sleep_kernel(float *x) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    x[0] += 1.0f;
    usleep(200 * 1000);
  }
}

/* fork() copies the queues: an op half run at that moment must not run again in the child
 * (on the synchronous engine nothing is running when the launch returns). */
static void fork_mid_kernel_(void) {
  float *d = NULL, h = 0.0f;
  cudaStream_t s;
  CHECK(cudaMalloc((void **)&d, sizeof(float)) == cudaSuccess, "cudaMalloc");
  CHECK(cudaMemset(d, 0, sizeof(float)) == cudaSuccess && cudaStreamCreate(&s) == cudaSuccess,
        "memset, stream");
  CHECK(cudaDeviceSynchronize() == cudaSuccess, "sync");
  FOX_LAUNCH(add_then_sleep_kernel, 1, 1, 0, s, d);
  CHECK(cudaGetLastError() == cudaSuccess, "launch");
  usleep(50 * 1000); /* the kernel is running now */
  fflush(NULL);
  pid_t pid = fork();
  CHECK(pid >= 0, "fork");
  int ok = cudaStreamSynchronize(s) == cudaSuccess &&
           cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess && h == 1.0f;
  if (pid == 0)
    _exit(ok ? 0 : 1);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(ok, "fork while a kernel runs: the parent's value is %g, want 1", (double)h);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "fork while a kernel runs: the child saw the kernel run twice (or failed)");
  cudaStreamDestroy(s);
  cudaFree(d);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "nccl") == 0)
    return nccl_(&argc, &argv);
  block_sync_();
  expect_death_("__syncthreads without FOX_LAUNCH_SYNC", plain_launch_of_sync_kernel_,
                "rotate_kernel calls __syncthreads but was not launched with FOX_LAUNCH_SYNC",
                NULL, 1);
  device_();
  launches_();
  fork_mid_kernel_();
  gemm_();
  expect_abort_("host pointer to a launch", launch_host_pointer_,
                "launch of fill_kernel: argument 1 (");
  expect_abort_("... and the nearest allocation", launch_host_pointer_,
                "the device allocation nearest to");
  expect_abort_("freed pointer to a launch", launch_freed_pointer_, "already freed");
  expect_abort_("copy the wrong way", copy_wrong_way_,
                "the destination of a cudaMemcpyDeviceToHost copy");
  expect_abort_("copy past the end", copy_past_end_, "32 bytes run 16 bytes past the end");
  expect_abort_("cudaFree of a host pointer", free_host_pointer_,
                "is not a live device allocation");
  expect_abort_("launch without a check", unchecked_launch_,
                "was not followed by a launch-error check");
  expect_abort_("host matrix to cublasSgemm", gemm_host_matrix_, "cublasSgemm: A 0x");
  expect_abort_("device alpha in host pointer mode", gemm_device_alpha_,
                "alpha (pointer mode host)");
#ifdef ASAN_
  expect_death_("kernel writing out of bounds", launch_out_of_bounds_, "heap-buffer-overflow",
                NULL, 0);
#endif
  return fox_check_done("test_cuda_emu");
}
