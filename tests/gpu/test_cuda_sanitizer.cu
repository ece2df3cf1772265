/* The emulation's stream sanitizer and capture rules (FOXOPT_CUDA_EMU builds): hazard
 * programs, each run in a child process that must abort with a message naming both operations
 * (or the rule broken), and each one's correct twin, which must run clean and compute the
 * right values. Runs on the asynchronous engine (FOX_CUDA_EMU_ASYNC=1, set here), where
 * copies really are pending while the host goes on; a kernel that sleeps first keeps a
 * stream busy where a hazard needs its copy still pending. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "child.h"
#include "fox_check.h"
#include "fox_launch.h"

#define N_ 256

__global__ void write_kernel(float *x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = v;
}

__global__ void read_kernel(const float *x, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i] + 1.0f;
}

/* x = tab[0], reached through a table in device memory (a population's): the launch
 * declares it (FOX_LAUNCH_TOUCH), or the sanitizer sees only the table. */
__global__ void table_write_kernel(float *const *tab, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    tab[0][i] = v;
}

/* Holds its stream for ms milliseconds, so that what follows stays pending. */
__global__ void sleep_kernel(int ms) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    usleep((useconds_t)ms * 1000);
}

#define OK_(call)                                                                              \
  do {                                                                                         \
    if ((call) != cudaSuccess) {                                                               \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call);                        \
      exit(3);                                                                                 \
    }                                                                                          \
  } while (0)

static float *dev_(void) {
  float *d = NULL;
  OK_(cudaMalloc((void **)&d, N_ * sizeof(float)));
  return d;
}

static cudaStream_t stream_(unsigned flags) {
  cudaStream_t s;
  OK_(cudaStreamCreateWithFlags(&s, flags));
  return s;
}

static void write_(float *x, float v, cudaStream_t s) {
  FOX_LAUNCH(write_kernel, 2, 128, 0, s, x, N_, v);
  OK_(cudaGetLastError());
}

static void read_(const float *x, float *out, cudaStream_t s) {
  FOX_LAUNCH(read_kernel, 2, 128, 0, s, x, N_, out);
  OK_(cudaGetLastError());
}

static void sleep_(cudaStream_t s, int ms) {
  FOX_LAUNCH(sleep_kernel, 1, 1, 0, s, ms);
  OK_(cudaGetLastError());
}

/* out[i] must be want everywhere (the twin's result), read back after a device sync. */
static void expect_(const float *out, float want) {
  float h[N_];
  OK_(cudaDeviceSynchronize());
  OK_(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N_; i++)
    if (h[i] != want) {
      fprintf(stderr, "value %d is %g, want %g\n", i, h[i], want);
      exit(4);
    }
}

/* 1. Two streams, no event between a write and a read. */
static void event_wait_(int good) {
  float *x = dev_(), *out = dev_();
  cudaStream_t a = stream_(cudaStreamNonBlocking), b = stream_(cudaStreamNonBlocking);
  cudaEvent_t ev;
  OK_(cudaEventCreate(&ev));
  write_(x, 2.0f, a);
  OK_(cudaEventRecord(ev, a));
  if (good)
    OK_(cudaStreamWaitEvent(b, ev, 0));
  read_(x, out, b);
  expect_(out, 3.0f);
}
static void event_wait_bad_(void) { event_wait_(0); }
static void event_wait_good_(void) { event_wait_(1); }

/* 2. The host reads page-locked memory that an asynchronous copy is still filling. */
static void pinned_read_(int good) {
  float *x = dev_(), *h = NULL;
  OK_(cudaMallocHost((void **)&h, N_ * sizeof(float)));
  cudaStream_t s = stream_(cudaStreamNonBlocking);
  write_(x, 5.0f, s);
  sleep_(s, 300);
  OK_(cudaMemcpyAsync(h, x, N_ * sizeof(float), cudaMemcpyDeviceToHost, s));
  if (good)
    OK_(cudaStreamSynchronize(s));
  volatile float got = h[7];
  if (got != 5.0f)
    exit(4);
  OK_(cudaStreamSynchronize(s));
  OK_(cudaFreeHost(h));
}
static void pinned_read_bad_(void) { pinned_read_(0); }
static void pinned_read_good_(void) { pinned_read_(1); }

/* 3. Memory freed while a kernel that reads it may not have run. */
static void free_busy_(int good) {
  float *x = dev_(), *out = dev_();
  write_(x, 1.0f, cudaStreamLegacy);
  OK_(cudaDeviceSynchronize());
  cudaStream_t s = stream_(cudaStreamNonBlocking);
  sleep_(s, 100);
  read_(x, out, s);
  if (good)
    OK_(cudaStreamSynchronize(s));
  OK_(cudaFree(x));
  OK_(cudaStreamSynchronize(s));
}
static void free_busy_bad_(void) { free_busy_(0); }
static void free_busy_good_(void) { free_busy_(1); }

/* 4. A host synchronisation inside a stream capture. */
static void capture_sync_(int good) {
  float *x = dev_(), *out = dev_();
  cudaStream_t s = stream_(cudaStreamNonBlocking);
  cudaGraph_t g;
  cudaGraphExec_t ex;
  OK_(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  write_(x, 4.0f, s);
  if (!good)
    OK_(cudaStreamSynchronize(s));
  read_(x, out, s);
  OK_(cudaStreamEndCapture(s, &g));
  OK_(cudaGraphInstantiate(&ex, g, 0));
  OK_(cudaGraphLaunch(ex, s));
  OK_(cudaStreamSynchronize(s));
  expect_(out, 5.0f);
}
static void capture_sync_bad_(void) { capture_sync_(0); }
static void capture_sync_good_(void) { capture_sync_(1); }

/* 5. Two host threads, each on its own per-thread default stream, share a buffer. */
static float *shared_x_, *shared_out_;
static cudaEvent_t shared_ev_;
static int shared_good_;
static void *producer_(void *arg) {
  write_(shared_x_, 6.0f, cudaStreamPerThread);
  if (shared_good_)
    OK_(cudaEventRecord(shared_ev_, cudaStreamPerThread));
  return arg;
}
static void *consumer_(void *arg) {
  if (shared_good_)
    OK_(cudaStreamWaitEvent(cudaStreamPerThread, shared_ev_, 0));
  read_(shared_x_, shared_out_, cudaStreamPerThread);
  return arg;
}
static void threads_(int good) {
  shared_x_ = dev_(), shared_out_ = dev_(), shared_good_ = good;
  OK_(cudaEventCreate(&shared_ev_));
  pthread_t t;
  pthread_create(&t, NULL, producer_, NULL);
  pthread_join(t, NULL);
  pthread_create(&t, NULL, consumer_, NULL);
  pthread_join(t, NULL);
  expect_(shared_out_, 7.0f);
}
static void threads_bad_(void) { threads_(0); }
static void threads_good_(void) { threads_(1); }

/* 6. The host writes the page-locked source of a copy still pending. */
static void pinned_write_(int good) {
  float *x = dev_(), *out = dev_(), *h = NULL;
  OK_(cudaMallocHost((void **)&h, N_ * sizeof(float)));
  for (int i = 0; i < N_; i++)
    h[i] = 8.0f;
  cudaStream_t s = stream_(cudaStreamNonBlocking);
  sleep_(s, 300);
  OK_(cudaMemcpyAsync(x, h, N_ * sizeof(float), cudaMemcpyHostToDevice, s));
  if (good)
    OK_(cudaStreamSynchronize(s));
  h[3] = 0.0f;
  h[3] = 8.0f;
  read_(x, out, s);
  expect_(out, 9.0f);
  OK_(cudaFreeHost(h));
}
static void pinned_write_bad_(void) { pinned_write_(0); }
static void pinned_write_good_(void) { pinned_write_(1); }

/* 7. An event recorded before the write it was meant to mark. */
static void early_event_(int good) {
  float *x = dev_(), *out = dev_();
  cudaStream_t a = stream_(cudaStreamNonBlocking), b = stream_(cudaStreamNonBlocking);
  cudaEvent_t ev;
  OK_(cudaEventCreate(&ev));
  if (!good)
    OK_(cudaEventRecord(ev, a));
  write_(x, 10.0f, a);
  if (good)
    OK_(cudaEventRecord(ev, a));
  OK_(cudaStreamWaitEvent(b, ev, 0));
  read_(x, out, b);
  expect_(out, 11.0f);
}
static void early_event_bad_(void) { early_event_(0); }
static void early_event_good_(void) { early_event_(1); }

/* 8. A non-blocking stream does not wait for the legacy stream; a blocking one does. */
static void legacy_(int good) {
  float *x = dev_(), *out = dev_();
  cudaStream_t s = stream_(good ? cudaStreamDefault : cudaStreamNonBlocking);
  write_(x, 12.0f, 0); /* stream 0 of this file: the legacy default stream */
  read_(x, out, s);
  expect_(out, 13.0f);
}
static void legacy_bad_(void) { legacy_(0); }
static void legacy_good_(void) { legacy_(1); }

/* 9. A write after a read on another stream (WAR). */
static void war_(int good) {
  float *x = dev_(), *out = dev_();
  write_(x, 14.0f, cudaStreamLegacy);
  OK_(cudaDeviceSynchronize());
  cudaStream_t a = stream_(cudaStreamNonBlocking), b = stream_(cudaStreamNonBlocking);
  cudaEvent_t ev;
  OK_(cudaEventCreate(&ev));
  read_(x, out, a);
  OK_(cudaEventRecord(ev, a));
  if (good)
    OK_(cudaStreamWaitEvent(b, ev, 0));
  OK_(cudaMemsetAsync(x, 0, N_ * sizeof(float), b));
  expect_(out, 15.0f);
}
static void war_bad_(void) { war_(0); }
static void war_good_(void) { war_(1); }

/* 10. A cuBLAS GEMM on its handle's stream and a kernel on another. */
static void blas_(int good) {
  float *a = dev_(), *c = dev_(), *out = dev_(), one = 1.0f, zero = 0.0f;
  write_(a, 1.0f, cudaStreamLegacy);
  OK_(cudaDeviceSynchronize());
  cudaStream_t s1 = stream_(cudaStreamNonBlocking), s2 = stream_(cudaStreamNonBlocking);
  cudaEvent_t ev;
  OK_(cudaEventCreate(&ev));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasSetStream(h, s1) != CUBLAS_STATUS_SUCCESS)
    exit(3);
  /* C [16 x 16] = A [16 x 16] A [16 x 16]: every entry 16. */
  if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &one, a, 16, a, 16, &zero, c, 16) !=
      CUBLAS_STATUS_SUCCESS)
    exit(3);
  OK_(cudaEventRecord(ev, s1));
  if (good)
    OK_(cudaStreamWaitEvent(s2, ev, 0));
  read_(c, out, s2);
  expect_(out, 17.0f);
  cublasDestroy(h);
}
static void blas_bad_(void) { blas_(0); }
static void blas_good_(void) { blas_(1); }

/* 11. A graph launched on one stream, its output read on another. */
static void graph_(int good) {
  float *x = dev_(), *out = dev_();
  cudaStream_t s1 = stream_(cudaStreamNonBlocking), s2 = stream_(cudaStreamNonBlocking);
  cudaGraph_t g;
  cudaGraphExec_t ex;
  OK_(cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal));
  write_(x, 18.0f, s1);
  OK_(cudaStreamEndCapture(s1, &g));
  OK_(cudaGraphInstantiate(&ex, g, 0));
  OK_(cudaGraphDestroy(g));
  cudaEvent_t ev;
  OK_(cudaEventCreate(&ev));
  OK_(cudaGraphLaunch(ex, s1));
  OK_(cudaEventRecord(ev, s1));
  if (good)
    OK_(cudaStreamWaitEvent(s2, ev, 0));
  read_(x, out, s2);
  expect_(out, 19.0f);
  OK_(cudaGraphExecDestroy(ex));
}
static void graph_bad_(void) { graph_(0); }
static void graph_good_(void) { graph_(1); }

/* 12. The host writes a pageable source before the asynchronous copy read it. */
static void pageable_(int good) {
  float *x = dev_(), *out = dev_(), h[N_];
  for (int i = 0; i < N_; i++)
    h[i] = 20.0f;
  cudaStream_t s = stream_(cudaStreamNonBlocking);
  sleep_(s, 200);
  OK_(cudaMemcpyAsync(x, h, sizeof h, cudaMemcpyHostToDevice, s));
  if (good)
    OK_(cudaStreamSynchronize(s));
  h[5] = -1.0f;
  read_(x, out, s);
  expect_(out, 21.0f);
}
static void pageable_bad_(void) { pageable_(0); }
static void pageable_good_(void) { pageable_(1); }

/* 13. Page-locked memory freed under a pending copy. */
static void free_pinned_(int good) {
  float *x = dev_(), *h = NULL;
  OK_(cudaMallocHost((void **)&h, N_ * sizeof(float)));
  write_(x, 1.0f, cudaStreamLegacy);
  cudaStream_t s = stream_(cudaStreamDefault);
  sleep_(s, 100);
  OK_(cudaMemcpyAsync(h, x, N_ * sizeof(float), cudaMemcpyDeviceToHost, s));
  if (good)
    OK_(cudaStreamSynchronize(s));
  OK_(cudaFreeHost(h));
  OK_(cudaStreamSynchronize(s));
}
static void free_pinned_bad_(void) { free_pinned_(0); }
static void free_pinned_good_(void) { free_pinned_(1); }

/* 14. A global-mode capture in one thread forbids another thread's cudaMalloc. */
static pthread_mutex_t gate_ = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv_ = PTHREAD_COND_INITIALIZER;
static int capturing_, allocated_;
static void *allocator_(void *arg) {
  pthread_mutex_lock(&gate_);
  while (!capturing_)
    pthread_cond_wait(&gate_cv_, &gate_);
  pthread_mutex_unlock(&gate_);
  float *p = dev_();
  OK_(cudaFree(p));
  pthread_mutex_lock(&gate_);
  allocated_ = 1;
  pthread_cond_signal(&gate_cv_);
  pthread_mutex_unlock(&gate_);
  return arg;
}
static void global_capture_(int good) {
  float *x = dev_();
  cudaStream_t s = stream_(cudaStreamNonBlocking);
  pthread_t t;
  pthread_create(&t, NULL, allocator_, NULL);
  OK_(cudaStreamBeginCapture(s, good ? cudaStreamCaptureModeThreadLocal
                                     : cudaStreamCaptureModeGlobal));
  write_(x, 1.0f, s);
  pthread_mutex_lock(&gate_);
  capturing_ = 1;
  pthread_cond_signal(&gate_cv_);
  while (!allocated_)
    pthread_cond_wait(&gate_cv_, &gate_);
  pthread_mutex_unlock(&gate_);
  cudaGraph_t g;
  OK_(cudaStreamEndCapture(s, &g));
  OK_(cudaGraphDestroy(g));
  pthread_join(t, NULL);
}
static void global_capture_bad_(void) { global_capture_(0); }
static void global_capture_good_(void) { global_capture_(1); }

/* 15. A legacy-stream op while a blocking stream is being captured. */
static void implicit_(int good) {
  float *x = dev_(), *y = dev_();
  cudaStream_t s = stream_(good ? cudaStreamNonBlocking : cudaStreamDefault);
  OK_(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  write_(x, 1.0f, s);
  write_(y, 2.0f, 0); /* the legacy stream */
  cudaGraph_t g;
  OK_(cudaStreamEndCapture(s, &g));
  OK_(cudaGraphDestroy(g));
  OK_(cudaDeviceSynchronize());
}
static void implicit_bad_(void) { implicit_(0); }
static void implicit_good_(void) { implicit_(1); }

/* 16 and 17. A fork inside a capture: the forked stream must be joined back, and its nodes
 * must not race the origin's. */
static void fork_(int join, int ordered) {
  float *x = dev_(), *y = dev_(), *out = dev_();
  cudaStream_t a = stream_(cudaStreamNonBlocking), b = stream_(cudaStreamNonBlocking);
  cudaEvent_t fork_ev, mid_ev, join_ev;
  OK_(cudaEventCreate(&fork_ev));
  OK_(cudaEventCreate(&mid_ev));
  OK_(cudaEventCreate(&join_ev));
  OK_(cudaStreamBeginCapture(a, cudaStreamCaptureModeThreadLocal));
  write_(x, 22.0f, a);
  OK_(cudaEventRecord(fork_ev, a));
  OK_(cudaStreamWaitEvent(b, fork_ev, 0)); /* b joins the capture */
  write_(y, 1.0f, a);
  OK_(cudaEventRecord(mid_ev, a));
  if (ordered)
    OK_(cudaStreamWaitEvent(b, mid_ev, 0));
  read_(y, out, b); /* without mid_ev, unordered with a's write of y */
  read_(x, out, b);
  OK_(cudaEventRecord(join_ev, b));
  if (join)
    OK_(cudaStreamWaitEvent(a, join_ev, 0));
  cudaGraph_t g;
  cudaGraphExec_t ex;
  OK_(cudaStreamEndCapture(a, &g));
  OK_(cudaGraphInstantiate(&ex, g, 0));
  OK_(cudaGraphLaunch(ex, a));
  expect_(out, 23.0f);
}
static void unjoined_bad_(void) { fork_(0, 1); }
static void graph_race_bad_(void) { fork_(1, 0); }
static void fork_good_(void) { fork_(1, 1); }

/* 18. A synchronous copy inside a capture (the capturing thread may not make one). */
static void capture_copy_(int good) {
  float *x = dev_(), *y = dev_();
  cudaStream_t s = stream_(cudaStreamNonBlocking);
  OK_(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  write_(x, 24.0f, s);
  if (good)
    OK_(cudaMemcpyAsync(y, x, N_ * sizeof(float), cudaMemcpyDeviceToDevice, s));
  else
    OK_(cudaMemcpy(y, x, N_ * sizeof(float), cudaMemcpyDeviceToDevice));
  cudaGraph_t g;
  cudaGraphExec_t ex;
  OK_(cudaStreamEndCapture(s, &g));
  OK_(cudaGraphInstantiate(&ex, g, 0));
  OK_(cudaGraphLaunch(ex, s));
  OK_(cudaStreamSynchronize(s));
  float *out = dev_();
  read_(y, out, s);
  expect_(out, 25.0f);
}
static void capture_copy_bad_(void) { capture_copy_(0); }
static void capture_copy_good_(void) { capture_copy_(1); }

/* 19. A graph launched after memory its nodes use was freed (and perhaps given out again):
 * a GPU's replay writes wherever the captured address now points. */
static void stale_graph_(int good) {
  float *x = dev_(), *out = dev_();
  cudaStream_t s = stream_(cudaStreamNonBlocking);
  cudaGraph_t g;
  cudaGraphExec_t ex;
  OK_(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  write_(x, 26.0f, s);
  OK_(cudaStreamEndCapture(s, &g));
  OK_(cudaGraphInstantiate(&ex, g, 0));
  OK_(cudaGraphDestroy(g));
  OK_(cudaGraphLaunch(ex, s));
  OK_(cudaStreamSynchronize(s));
  if (good) { /* the graph goes first, then its memory */
    OK_(cudaGraphExecDestroy(ex));
    OK_(cudaFree(x));
    x = dev_();
    write_(x, 26.0f, s);
  } else {
    OK_(cudaFree(x));
    x = dev_(); /* may well be the freed address: the serial, not the address, tells */
    OK_(cudaGraphLaunch(ex, s));
  }
  read_(x, out, s);
  expect_(out, 27.0f);
}
static void stale_graph_bad_(void) { stale_graph_(0); }
static void stale_graph_good_(void) { stale_graph_(1); }

/* 20. The host writes page-locked memory that a copy of part of the buffer is still filling
 * (the page is shared with memory the host may use, so no page guard: the poison tells).
 * The twin uses that rest of the page meanwhile, by hand and by read(2), and passes one
 * pageable buffer through two stream-ordered copies (legal, and unchecked by the poison). */
static void partial_pinned_(int good) {
  enum { BIG = 4096 }; /* floats: several pages, the copy's 256 share the first */
  float *x = dev_(), *y = dev_(), *h = NULL, round[N_];
  OK_(cudaMallocHost((void **)&h, BIG * sizeof(float)));
  write_(x, 28.0f, cudaStreamLegacy);
  OK_(cudaDeviceSynchronize());
  cudaStream_t s = stream_(cudaStreamNonBlocking);
  sleep_(s, 200);
  OK_(cudaMemcpyAsync(h, x, N_ * sizeof(float), cudaMemcpyDeviceToHost, s));
  if (good) {
    h[800] = 1.0f; /* beside the copy: legal */
    int fds[2];
    float v = 2.0f;
    if (pipe(fds) != 0 || write(fds[1], &v, sizeof v) != sizeof v ||
        read(fds[0], &h[900], sizeof v) != sizeof v) {
      fprintf(stderr, "read(2) into page-locked memory beside a pending copy failed\n");
      exit(5);
    }
    OK_(cudaMemcpyAsync(round, x, sizeof round, cudaMemcpyDeviceToHost, s));
    OK_(cudaMemcpyAsync(y, round, sizeof round, cudaMemcpyHostToDevice, s));
  } else {
    h[3] = 1.0f; /* inside the copy */
  }
  OK_(cudaStreamSynchronize(s));
  if (h[3] != 28.0f || h[800] != 1.0f || h[900] != 2.0f)
    exit(4);
  float *out = dev_();
  read_(y, out, s);
  expect_(out, 29.0f);
  OK_(cudaFreeHost(h));
}
static void partial_pinned_bad_(void) { partial_pinned_(0); }
static void partial_pinned_good_(void) { partial_pinned_(1); }

/* A table in device memory holding x, for table_write_kernel. */
static float *const *table_(float *x) {
  float **tab = NULL;
  OK_(cudaMalloc((void **)&tab, sizeof *tab));
  OK_(cudaMemcpy(tab, &x, sizeof x, cudaMemcpyHostToDevice));
  OK_(cudaDeviceSynchronize()); /* a pageable H2D may return before it lands */
  return tab;
}

static void table_write_(float *const *tab, float *x, float v, cudaStream_t s) {
  FOX_LAUNCH_TOUCH(x, 1, "x through the table");
  FOX_LAUNCH(table_write_kernel, 2, 128, 0, s, tab, N_, v);
  OK_(cudaGetLastError());
}

/* 21. An array written through a table on one stream and read on another with no event
 * between: the declared array is the launch's access, as an argument would be. */
static void table_race_(int good) {
  float *x = dev_(), *out = dev_();
  float *const *tab = table_(x);
  cudaStream_t a = stream_(cudaStreamNonBlocking), b = stream_(cudaStreamNonBlocking);
  cudaEvent_t ev;
  OK_(cudaEventCreate(&ev));
  sleep_(a, 50);
  table_write_(tab, x, 30.0f, a);
  OK_(cudaEventRecord(ev, a));
  if (good)
    OK_(cudaStreamWaitEvent(b, ev, 0));
  read_(x, out, b);
  expect_(out, 31.0f);
}
static void table_race_bad_(void) { table_race_(0); }
static void table_race_good_(void) { table_race_(1); }

/* 22. A graph whose node writes through a table launched after the array the table points to
 * was freed (a population's graph kept after a member's arrays went): the declared array is
 * the graph's memory, checked at every replay. */
static void table_stale_(int good) {
  float *x = dev_(), *out = dev_();
  float *const *tab = table_(x);
  cudaStream_t s = stream_(cudaStreamNonBlocking);
  cudaGraph_t g;
  cudaGraphExec_t ex;
  OK_(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  table_write_(tab, x, 32.0f, s);
  OK_(cudaStreamEndCapture(s, &g));
  OK_(cudaGraphInstantiate(&ex, g, 0));
  OK_(cudaGraphDestroy(g));
  OK_(cudaGraphLaunch(ex, s));
  OK_(cudaStreamSynchronize(s));
  if (!good) {
    OK_(cudaFree(x));
    x = dev_(); /* the table still holds the old address */
  }
  OK_(cudaGraphLaunch(ex, s));
  OK_(cudaStreamSynchronize(s));
  if (!good)
    OK_(cudaMemcpy((void *)tab, &x, sizeof x, cudaMemcpyHostToDevice));
  read_(x, out, s);
  expect_(out, 33.0f);
}
static void table_stale_bad_(void) { table_stale_(0); }
static void table_stale_good_(void) { table_stale_(1); }

struct hazard_ {
  const char *name;
  void (*bad)(void), (*good)(void);
  const char *want[2]; /* both must be in the report */
  int sites; /* how many of this file's lines the report must name at least: the calls (a
              * host access's comes from addr2line), the allocation, the capture */
};

static const struct hazard_ hazards_[] = {
    {"missing event wait", event_wait_bad_, event_wait_good_,
     {"first:  write by kernel write_kernel", "second: read by kernel read_kernel"}, 2},
    {"host read of a pending D2H", pinned_read_bad_, pinned_read_good_,
     {"the host reads", "while cudaMemcpyAsync (device to host) given at"}, 3},
    {"free while a kernel reads", free_busy_bad_, free_busy_good_,
     {"sanitizer: cudaFree at", "pending: read by kernel read_kernel"}, 2},
    {"host sync inside a capture", capture_sync_bad_, capture_sync_good_,
     {"cudaStreamSynchronize of", "being captured into a graph"}, 1},
    {"per-thread streams of two threads", threads_bad_, threads_good_,
     {"per-thread default stream of host thread", "read by kernel read_kernel"}, 2},
    {"host write to a pending H2D source", pinned_write_bad_, pinned_write_good_,
     {"the host writes", "while cudaMemcpyAsync (host to device) given at"}, 3},
    {"event recorded too early", early_event_bad_, early_event_good_,
     {"first:  write by kernel write_kernel", "second: read by kernel read_kernel"}, 2},
    {"legacy stream and non-blocking one", legacy_bad_, legacy_good_,
     {"on the legacy default stream", "on the non-blocking stream"}, 2},
    {"write after read, two streams", war_bad_, war_good_,
     {"first:  read by kernel read_kernel", "second: write by cudaMemsetAsync"}, 2},
    {"cuBLAS and a kernel, two streams", blas_bad_, blas_good_,
     {"first:  write by cublasSgemm (C)", "second: read by kernel read_kernel"}, 2},
    {"graph output read on another stream", graph_bad_, graph_good_,
     {"its node kernel write_kernel given at", "second: read by kernel read_kernel"}, 3},
    {"host write to a pending pageable H2D", pageable_bad_, pageable_good_,
     {"the pageable source of cudaMemcpyAsync (host to device)", "before the copy ran"}, 1},
    {"free of page-locked memory in use", free_pinned_bad_, free_pinned_good_,
     {"sanitizer: cudaFreeHost at", "cudaMemcpyAsync (device to host)"}, 2},
    {"cudaMalloc under a global capture", global_capture_bad_, global_capture_good_,
     {"cudaMalloc during the stream capture", "in another thread"}, 2},
    {"legacy op while capturing", implicit_bad_, implicit_good_,
     {"an op on the legacy default stream would wait for", "cudaErrorStreamCaptureImplicit"},
     1},
    {"capture ends with a fork unjoined", unjoined_bad_, fork_good_,
     {"which joined it, has nodes the origin never waited for",
      "cudaErrorStreamCaptureUnjoined"}, 1},
    {"race inside a captured graph", graph_race_bad_, fork_good_,
     {"a race inside the graph captured from", "with no edge between them"}, 3},
    {"synchronous copy inside a capture", capture_copy_bad_, capture_copy_good_,
     {"cudaMemcpy during the stream capture", "potentially unsafe call"}, 2},
    {"graph launched after its memory was freed", stale_graph_bad_, stale_graph_good_,
     {"its node kernel write_kernel given at", "freed since the capture"}, 3},
    {"host write beside a partial page-locked copy", partial_pinned_bad_, partial_pinned_good_,
     {"the page-locked destination of cudaMemcpyAsync (device to host)",
      "before the copy landed"}, 1},
    {"array through a table, two streams", table_race_bad_, table_race_good_,
     {"first:  write by kernel table_write_kernel", "second: read by kernel read_kernel"}, 2},
    {"graph through a table after its array was freed", table_stale_bad_, table_stale_good_,
     {"its node kernel table_write_kernel given at", "x through the table"}, 2},
};

static int count_(const char *s, const char *what) {
  int n = 0;
  for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
    n++;
  return n;
}

/* test_cuda_sanitizer [K]: every hazard and twin; with K, hazard K alone, in this process
 * (its whole report on stderr). */
int main(int argc, char **argv) {
  setenv("FOX_CUDA_EMU_ASYNC", "1", 0); /* pending copies stay pending */
  setenv("FOX_CUDA_EMU_SANITIZE", "1", 1);
  int n = (int)(sizeof hazards_ / sizeof *hazards_);
  if (argc > 1) {
    int k = atoi(argv[1]);
    if (k < 1 || k > n) {
      fprintf(stderr, "test_cuda_sanitizer: hazards are 1 .. %d\n", n);
      return 2;
    }
    hazards_[k - 1].bad();
    return 0;
  }
  for (int i = 0; i < n; i++) {
    const struct hazard_ *h = &hazards_[i];
    const char *out = expect_death_(h->name, h->bad, h->want[0], NULL, 1);
    CHECK(strstr(out, h->want[1]) != NULL, "%s: the report lacks \"%s\":\n%s", h->name,
          h->want[1], out);
    int sites = count_(out, "test_cuda_sanitizer.cu:");
    CHECK(sites >= h->sites, "%s: the report names %d lines of this file, want %d:\n%s",
          h->name, sites, h->sites, out);
    char twin[96];
    snprintf(twin, sizeof twin, "%s (its correct twin)", h->name);
    expect_clean_(twin, h->good);
  }
  printf("%d hazards, each caught, each twin clean\n", n);
  return fox_check_done("test_cuda_sanitizer");
}
