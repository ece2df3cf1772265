/* The CUDA emulation's runtime calls: the call in progress and CUDA's error bookkeeping, the
 * one device ("foxopt CUDA emulation"), copies and memsets as ops with CUDA's host-side
 * behaviour (runtime API's "API synchronization behavior": a synchronous copy from pageable
 * memory is staged, one to the host waits for its data, one within the device does not wait;
 * every "Async" copy may run later, so a pageable source is read when the stream gets there
 * and a pageable destination reads as garbage until then), and the launch's checks. */
#define _GNU_SOURCE
#define CUDA_EMU_IMPL

#include <execinfo.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_emu.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUDA_EMU_ASAN_ 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(CUDA_EMU_ASAN_)
void __sanitizer_print_stack_trace(void);
#define CUDA_EMU_HAS_ASAN_ 1
#endif

#define POISON_ 0xff

/* The call in progress on this thread, for messages. */
static _Thread_local const char *site_file_;
static _Thread_local int site_line_;
static _Thread_local struct {
  const char *api, *file;
  int line;
} call_;
static _Thread_local char launch_api_[192];
static _Thread_local cudaError_t last_error_ = cudaSuccess;
static _Thread_local int device_;
/* The last launch on this thread until a cudaGetLastError / cudaPeekAtLastError. */
static _Thread_local struct {
  const char *kernel, *file;
  int line;
} pending_;

/* ---- settings ---- */

static pthread_once_t once_ = PTHREAD_ONCE_INIT;
static int async_, sanitize_ = 1;
static uint64_t seed_ = 1;

static void settings_(void) {
  const char *a = getenv("FOX_CUDA_EMU_ASYNC"), *s = getenv("FOX_CUDA_EMU_SEED");
  const char *z = getenv("FOX_CUDA_EMU_SANITIZE");
  async_ = a && atoi(a) != 0;
  if (s && *s)
    seed_ = strtoull(s, NULL, 10);
  if (z && *z)
    sanitize_ = atoi(z) != 0;
}

int cuda_emu_async(void) {
  pthread_once(&once_, settings_);
  return async_;
}

uint64_t cuda_emu_seed(void) {
  pthread_once(&once_, settings_);
  return seed_;
}

int cuda_emu_sanitize(void) {
  pthread_once(&once_, settings_);
  return sanitize_;
}

void cuda_emu_fork_lock(pthread_mutex_t *m, int phase) {
  if (phase == 0)
    pthread_mutex_lock(m);
  else if (phase == 1)
    pthread_mutex_unlock(m);
  else
    pthread_mutex_init(m, NULL);
}

/* ---- calls and failures ---- */

void cuda_emu_site(const char *file, int line) {
  if (site_file_)
    return;
  site_file_ = file;
  site_line_ = line;
}

void cuda_emu_enter(const char *api) {
  call_.api = api;
  call_.file = site_file_;
  call_.line = site_line_;
  site_file_ = NULL;
  site_line_ = 0;
  if (pending_.kernel) {
    const char *k = pending_.kernel, *f = pending_.file;
    int l = pending_.line;
    pending_.kernel = NULL;
    cuda_emu_fail(NULL, "the launch of %s at %s:%d was not followed by a launch-error check "
                        "(cudaGetLastError or cudaPeekAtLastError: cudaCheckLaunch)", k, f, l);
  }
}

const char *cuda_emu_call_file(void) { return call_.file; }
int cuda_emu_call_line(void) { return call_.line; }
const char *cuda_emu_call_api(void) { return call_.api; }

cudaError_t cuda_emu_error(cudaError_t rc) {
  if (rc != cudaSuccess)
    last_error_ = rc;
  return rc;
}

static void stack_(void) {
#ifdef CUDA_EMU_HAS_ASAN_
  __sanitizer_print_stack_trace();
#else
  void *frames[48];
  int depth = backtrace(frames, 48);
  backtrace_symbols_fd(frames, depth, 2);
#endif
}

/* "cuda-emu: FILE:LINE: API: " */
static void where_(void) {
  if (call_.file)
    fprintf(stderr, "cuda-emu: %s:%d: %s: ", call_.file, call_.line,
            call_.api ? call_.api : "CUDA call");
  else
    fprintf(stderr, "cuda-emu: %s (call site unknown): ", call_.api ? call_.api : "CUDA call");
}

void cuda_emu_note(const char *fmt, ...) {
  where_();
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

void cuda_emu_fail(const void *ptr, const char *fmt, ...) {
  where_();
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  if (ptr) {
    char d[512];
    cuda_emu_describe(ptr, d, sizeof d);
    fprintf(stderr, "cuda-emu:   %s\n", d);
  }
  stack_();
  fflush(stderr);
  abort();
}

void cuda_emu_die(const char *fmt, ...) {
  fputs("cuda-emu: ", stderr);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  stack_();
  fflush(stderr);
  abort();
}

/* ---- errors ---- */

const char *cudaGetErrorName(cudaError_t error) {
  switch (error) {
#define N_(x)                                                                                   \
  case x:                                                                                       \
    return #x;
    N_(cudaSuccess)
    N_(cudaErrorInvalidValue)
    N_(cudaErrorMemoryAllocation)
    N_(cudaErrorInitializationError)
    N_(cudaErrorInvalidConfiguration)
    N_(cudaErrorInvalidDevicePointer)
    N_(cudaErrorInvalidMemcpyDirection)
    N_(cudaErrorInsufficientDriver)
    N_(cudaErrorInvalidDeviceFunction)
    N_(cudaErrorNoDevice)
    N_(cudaErrorInvalidDevice)
    N_(cudaErrorInvalidResourceHandle)
    N_(cudaErrorIllegalState)
    N_(cudaErrorNotReady)
    N_(cudaErrorLaunchFailure)
    N_(cudaErrorNotPermitted)
    N_(cudaErrorStreamCaptureUnsupported)
    N_(cudaErrorStreamCaptureInvalidated)
    N_(cudaErrorStreamCaptureUnjoined)
    N_(cudaErrorStreamCaptureIsolation)
    N_(cudaErrorStreamCaptureImplicit)
    N_(cudaErrorCapturedEvent)
    N_(cudaErrorStreamCaptureWrongThread)
#undef N_
  }
  return "cudaErrorUnknown";
}

/* The runtime's own wording. */
const char *cudaGetErrorString(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return "no error";
  case cudaErrorInvalidValue:
    return "invalid argument";
  case cudaErrorMemoryAllocation:
    return "out of memory";
  case cudaErrorInitializationError:
    return "initialization error";
  case cudaErrorInvalidConfiguration:
    return "invalid configuration argument";
  case cudaErrorInvalidDevicePointer:
    return "invalid device pointer";
  case cudaErrorInvalidMemcpyDirection:
    return "invalid copy direction for memcpy";
  case cudaErrorInsufficientDriver:
    return "CUDA driver version is insufficient for CUDA runtime version";
  case cudaErrorInvalidDeviceFunction:
    return "invalid device function";
  case cudaErrorNoDevice:
    return "no CUDA-capable device is detected";
  case cudaErrorInvalidDevice:
    return "invalid device ordinal";
  case cudaErrorInvalidResourceHandle:
    return "invalid resource handle";
  case cudaErrorIllegalState:
    return "the operation cannot be performed in the present state";
  case cudaErrorNotReady:
    return "device not ready";
  case cudaErrorLaunchFailure:
    return "unspecified launch failure";
  case cudaErrorNotPermitted:
    return "operation not permitted";
  case cudaErrorStreamCaptureUnsupported:
    return "operation not permitted when stream is capturing";
  case cudaErrorStreamCaptureInvalidated:
    return "operation failed due to a previous error during capture";
  case cudaErrorStreamCaptureUnjoined:
    return "capture was not joined";
  case cudaErrorStreamCaptureIsolation:
    return "operation would make the legacy stream depend on a capturing blocking stream";
  case cudaErrorStreamCaptureImplicit:
    return "operation would make the legacy stream depend on a capturing blocking stream";
  case cudaErrorCapturedEvent:
    return "operation not permitted on an event last recorded in a capturing stream";
  case cudaErrorStreamCaptureWrongThread:
    return "attempt to terminate a thread-local capture sequence from another thread";
  }
  return "unknown error";
}

cudaError_t cudaGetLastError(void) {
  cudaError_t rc = last_error_;
  last_error_ = cudaSuccess;
  pending_.kernel = NULL;
  return rc;
}

cudaError_t cudaPeekAtLastError(void) {
  pending_.kernel = NULL;
  return last_error_;
}

/* ---- the device ---- */

cudaError_t cudaGetDeviceCount(int *count) {
  cuda_emu_enter("cudaGetDeviceCount");
  if (!count)
    return cuda_emu_error(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  cuda_emu_enter("cudaSetDevice");
  if (device != 0)
    return cuda_emu_error(cudaErrorInvalidDevice);
  device_ = device;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
  cuda_emu_enter("cudaGetDevice");
  if (!device)
    return cuda_emu_error(cudaErrorInvalidValue);
  *device = device_;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
  cuda_emu_enter("cudaGetDeviceProperties");
  if (!prop)
    return cuda_emu_error(cudaErrorInvalidValue);
  if (device != 0)
    return cuda_emu_error(cudaErrorInvalidDevice);
  memset(prop, 0, sizeof *prop);
  snprintf(prop->name, sizeof prop->name, "foxopt CUDA emulation");
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  prop->totalGlobalMem = pages > 0 && size > 0 ? (size_t)pages * (size_t)size : (size_t)16 << 30;
  prop->sharedMemPerBlock = CUDA_EMU_MAX_SHARED;
  prop->sharedMemPerBlockOptin = CUDA_EMU_MAX_SHARED;
  prop->regsPerBlock = 65536;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = CUDA_EMU_MAX_THREADS;
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = CUDA_EMU_MAX_THREADS;
  prop->maxThreadsDim[2] = CUDA_EMU_MAX_BLOCK_Z;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
  prop->totalConstMem = 65536;
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = 1;
  prop->maxThreadsPerMultiProcessor = 2048;
  prop->concurrentKernels = 1;
  prop->unifiedAddressing = 1;
  return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
  cuda_emu_enter("cudaFuncGetAttributes");
  if (!attr)
    return cuda_emu_error(cudaErrorInvalidValue);
  if (!func)
    return cuda_emu_error(cudaErrorInvalidDeviceFunction);
  memset(attr, 0, sizeof *attr);
  attr->maxThreadsPerBlock = CUDA_EMU_MAX_THREADS;
  attr->ptxVersion = attr->binaryVersion = 90;
  attr->maxDynamicSharedSizeBytes = CUDA_EMU_MAX_SHARED;
  return cudaSuccess;
}

/* ---- copies and memsets ---- */

static const char *const kind_names_[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice",
                                          "cudaMemcpyDeviceToHost", "cudaMemcpyDeviceToDevice",
                                          "cudaMemcpyDefault"};

struct copy_ {
  char *dst;
  const char *src;
  size_t n;
  int value, set;      /* a memset of `value` */
  unsigned char *stage; /* a pageable source staged at the call */
  uint64_t sum;        /* a pageable source read later: its checksum at the call */
  int check_src, poisoned; /* ... and a pageable destination poisoned until the copy lands */
  int pending;             /* its host range is in pend_ */
  int dst_pinned, src_pinned;
  void *hold_dst, *hold_src;
};

/* The pageable ranges of copies not yet run. Stream order may legally pass one pageable buffer
 * through several copies (into it from the device, then out of it again); the checks at the
 * call (a source's checksum, a destination's poison) hold only while nothing queued before
 * touches the range, so a copy overlapping a pending one goes unchecked. */
static pthread_mutex_t pend_lock_ = PTHREAD_MUTEX_INITIALIZER;
static struct pend_ {
  uintptr_t lo, hi;
  const void *copy;
} *pend_;
static size_t n_pend_, cap_pend_;

/* Registers [p, p+n) for copy c; returns 1 when it overlaps a pending copy's range. */
static int pend_add_(const void *p, size_t n, const void *c) {
  uintptr_t lo = (uintptr_t)p, hi = lo + n;
  int overlap = 0;
  pthread_mutex_lock(&pend_lock_);
  for (size_t i = 0; i < n_pend_; i++)
    overlap |= pend_[i].lo < hi && lo < pend_[i].hi;
  if (n_pend_ == cap_pend_) {
    cap_pend_ = cap_pend_ ? 2 * cap_pend_ : 16;
    pend_ = realloc(pend_, cap_pend_ * sizeof *pend_);
    if (!pend_)
      cuda_emu_die("out of host memory for pending copies");
  }
  pend_[n_pend_++] = (struct pend_){lo, hi, c};
  pthread_mutex_unlock(&pend_lock_);
  return overlap;
}

static void pend_remove_(const void *c) {
  pthread_mutex_lock(&pend_lock_);
  for (size_t i = 0; i < n_pend_; i++)
    if (pend_[i].copy == c) {
      pend_[i] = pend_[--n_pend_];
      break;
    }
  pthread_mutex_unlock(&pend_lock_);
}

static uint64_t checksum_(const void *v, size_t n) {
  const unsigned char *p = v;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

static void copy_run_(struct emu_op *op) {
  struct copy_ *c = op->ctx;
  if (c->set) {
    memset(c->dst, c->value, c->n);
    return;
  }
  /* Page-locked memory is read and written through the emulation's alias: the program's view
   * may be guarded. */
  char *dst = c->dst_pinned ? cuda_emu_pinned_alias(c->dst) : c->dst;
  const char *src = c->stage        ? (const char *)c->stage
                    : c->src_pinned ? (const char *)cuda_emu_pinned_alias(c->src)
                                    : c->src;
  const char *kind = c->src_pinned || c->dst_pinned ? "page-locked" : "pageable";
  if (c->check_src && checksum_(src, c->n) != c->sum)
    cuda_emu_die("sanitizer: the host wrote into %p .. +%zu bytes, the %s source of %s "
                 "given at %s:%d, before the copy ran: an asynchronous copy may read its source "
                 "whenever its stream gets there; keep the source unchanged until the stream is "
                 "synchronised", (const void *)c->src, c->n, kind, op->name,
                 op->file ? op->file : "?", op->line);
  if (c->poisoned)
    for (size_t i = 0; i < c->n; i++)
      if ((unsigned char)dst[i] != POISON_)
        cuda_emu_die("sanitizer: the host wrote into %p .. +%zu bytes, the %s destination "
                     "of %s given at %s:%d, before the copy landed: synchronise with its "
                     "stream before the host touches that memory", (const void *)c->dst, c->n,
                     kind, op->name, op->file ? op->file : "?", op->line);
  memcpy(dst, src, c->n);
  if (c->pending)
    pend_remove_(c), c->pending = 0;
  cuda_emu_pinned_release(c->hold_dst);
  cuda_emu_pinned_release(c->hold_src);
  c->hold_dst = c->hold_src = NULL;
}

static void copy_drop_(void *ctx) {
  struct copy_ *c = ctx;
  if (c->pending)
    pend_remove_(c);
  cuda_emu_pinned_release(c->hold_dst);
  cuda_emu_pinned_release(c->hold_src);
  free(c->stage);
  free(c);
}

/* A graph node's copy: device memory or page-locked memory only (checked when captured). */
static void *copy_clone_(const void *ctx) {
  struct copy_ *c = malloc(sizeof *c);
  if (!c)
    cuda_emu_die("out of host memory for a graph node");
  *c = *(const struct copy_ *)ctx;
  c->stage = NULL;
  c->hold_dst = c->hold_src = NULL;
  c->pending = 0;
  return c;
}

static struct emu_op *copy_op_(const char *api, const char *what, struct copy_ *c) {
  struct emu_op *op = cuda_emu_op_new(c->set ? EMU_OP_SET : EMU_OP_COPY, "%s (%s)", api, what);
  op->ctx = c;
  op->run = copy_run_;
  op->drop = copy_drop_;
  op->clone = copy_clone_;
  return op;
}

/* Checks a copy's arguments; returns whether each side is device memory. */
static cudaError_t check_copy_(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                               int *dst_dev, int *src_dev) {
  if ((unsigned)kind > cudaMemcpyDefault)
    return cuda_emu_error(cudaErrorInvalidMemcpyDirection);
  static const int sides[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
  if (kind == cudaMemcpyDefault) { /* unified addressing: the table says which side is which */
    *dst_dev = cuda_emu_is_device(dst);
    *src_dev = cuda_emu_is_device(src);
  } else {
    *dst_dev = sides[kind][0];
    *src_dev = sides[kind][1];
  }
  if (count == 0)
    return cudaSuccess;
  char what[96];
  snprintf(what, sizeof what, "the destination of a %s copy", kind_names_[kind]);
  if (!dst)
    cuda_emu_fail(NULL, "%s is NULL", what);
  if (*dst_dev)
    cuda_emu_require_device(what, dst, count);
  else
    cuda_emu_require_host(what, dst);
  snprintf(what, sizeof what, "the source of a %s copy", kind_names_[kind]);
  if (!src)
    cuda_emu_fail(NULL, "%s is NULL", what);
  if (*src_dev)
    cuda_emu_require_device(what, src, count);
  else
    cuda_emu_require_host(what, src);
  uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
  if (d != s && d < s + count && s < d + count)
    cuda_emu_fail(dst, "the %zu-byte ranges at %p (destination) and %p (source) overlap", count,
                  dst, src);
  return cudaSuccess;
}

static cudaError_t memcpy_(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                           cudaStream_t stream, int async, int ptds) {
  const char *api = async ? "cudaMemcpyAsync" : "cudaMemcpy";
  cuda_emu_enter(api);
  if (!async)
    cuda_emu_capture_guard(api);
  int dst_dev, src_dev;
  cudaError_t rc = check_copy_(dst, src, count, kind, &dst_dev, &src_dev);
  if (rc != cudaSuccess || count == 0)
    return rc;
  if (async)
    cuda_emu_require_stream(stream);
  if (!dst_dev && !src_dev) { /* host to host: fully synchronous */
    if (dst != src)
      memcpy(dst, src, count);
    return cudaSuccess;
  }
  struct CUstream_st *s = cuda_emu_stream(stream, ptds);
  int dst_pinned = !dst_dev && cuda_emu_is_pinned(dst, count);
  int src_pinned = !src_dev && cuda_emu_is_pinned(src, count);
  int pageable = (!dst_dev && !dst_pinned) || (!src_dev && !src_pinned);
  if (s->cap && pageable)
    cuda_emu_fail(NULL, "%s with pageable host memory on %s, which is being captured into a "
                        "graph: a graph copies only device and page-locked memory", api,
                  s->label);
  struct copy_ *c = calloc(1, sizeof *c);
  if (!c)
    cuda_emu_die("out of host memory for a copy");
  c->dst = dst, c->src = src, c->n = count;
  c->dst_pinned = dst_pinned, c->src_pinned = src_pinned;
  const char *what = dst_dev && src_dev ? "device to device"
                     : dst_dev          ? "host to device"
                                        : "device to host";
  struct emu_op *op = copy_op_(api, what, c);
  cuda_emu_op_access(op, dst, count, 1, "the destination");
  cuda_emu_op_access(op, src, count, 0, "the source");
  int wait = 0;
  if (!s->cap && !async) {
    if (!dst_dev || src_pinned) {
      wait = 1; /* to the host, or from page-locked memory: returns once the copy is done */
    } else if (!src_dev) {
      /* From pageable memory: the stream is synchronised, the source staged, and the call
       * returns before the data lands. */
      cuda_emu_sync_stream(s);
      c->stage = malloc(count);
      if (!c->stage)
        cuda_emu_die("out of host memory to stage a copy");
      memcpy(c->stage, src, count);
    } /* within the device: no wait at all */
  } else if (!s->cap) {
    /* The host side, pageable or page-locked: a source's checksum and a destination's
     * poison catch the host's writes before the copy runs, and a pending destination reads as
     * garbage (the page guard below also catches what it covers). */
    const void *host = !src_dev ? src : !dst_dev ? dst : NULL;
    int unchecked = host && pend_add_(host, count, c); /* stream order decides then */
    c->pending = host != NULL;
    if (!host) {
      /* within the device: nothing of the host's to watch */
    } else if (!unchecked && host == src) {
      c->check_src = 1;
      c->sum = checksum_(src_pinned ? cuda_emu_pinned_alias(src) : src, count);
    } else if (!unchecked) {
      memset(dst_pinned ? cuda_emu_pinned_alias(dst) : dst, POISON_, count);
      c->poisoned = 1;
    }
    if (src_pinned)
      c->hold_src = cuda_emu_pinned_hold(src, count, 0, op->name, op->file, op->line);
    if (dst_pinned)
      c->hold_dst = cuda_emu_pinned_hold(dst, count, 1, op->name, op->file, op->line);
  }
  cuda_emu_submit(stream, ptds, op, wait);
  return cudaSuccess;
}

static cudaError_t memset_(void *ptr, int value, size_t count, cudaStream_t stream, int async,
                           int ptds) {
  const char *api = async ? "cudaMemsetAsync" : "cudaMemset";
  cuda_emu_enter(api);
  if (!async)
    cuda_emu_capture_guard(api);
  if (count == 0)
    return cudaSuccess;
  cuda_emu_require_device("the destination", ptr, count);
  if (async)
    cuda_emu_require_stream(stream);
  struct copy_ *c = calloc(1, sizeof *c);
  if (!c)
    cuda_emu_die("out of host memory for a memset");
  c->dst = ptr, c->n = count, c->value = value, c->set = 1;
  struct emu_op *op = copy_op_(api, "device", c);
  cuda_emu_op_access(op, ptr, count, 1, "the destination");
  cuda_emu_submit(stream, ptds, op, 0);
  return cudaSuccess;
}

CUDA_EMU_TWINS(cudaError_t, cudaMemcpy, memcpy_,
       (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind), dst, src, count,
       kind, NULL, 0)
CUDA_EMU_TWINS(cudaError_t, cudaMemcpyAsync, memcpy_,
       (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
        cudaStream_t stream), dst, src, count, kind, stream, 1)
CUDA_EMU_TWINS(cudaError_t, cudaMemset, memset_, (void *ptr, int value, size_t count), ptr, value, count,
       NULL, 0)
CUDA_EMU_TWINS(cudaError_t, cudaMemsetAsync, memset_,
       (void *ptr, int value, size_t count, cudaStream_t stream), ptr, value, count, stream, 1)

/* ---- launches (cuda_emu_launch.h builds and gives the op) ---- */

int cuda_emu_launch_begin(const char *kernel, const char *file, int line, dim3 grid, dim3 block,
                          size_t shmem, cudaStream_t stream) {
  snprintf(launch_api_, sizeof launch_api_, "launch of %s", kernel);
  cuda_emu_site(file, line);
  cuda_emu_enter(launch_api_);
  cuda_emu_require_stream(stream);
  pending_.kernel = kernel;
  pending_.file = file;
  pending_.line = line;
  char why[160] = "";
  unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
  if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z)
    snprintf(why, sizeof why, "grid (%u, %u, %u) or block (%u, %u, %u) has a zero dimension",
             grid.x, grid.y, grid.z, block.x, block.y, block.z);
  else if (block.x > CUDA_EMU_MAX_THREADS || block.y > CUDA_EMU_MAX_THREADS ||
           block.z > CUDA_EMU_MAX_BLOCK_Z)
    snprintf(why, sizeof why, "block (%u, %u, %u) exceeds (%d, %d, %d)", block.x, block.y,
             block.z, CUDA_EMU_MAX_THREADS, CUDA_EMU_MAX_THREADS, CUDA_EMU_MAX_BLOCK_Z);
  else if (threads > CUDA_EMU_MAX_THREADS)
    snprintf(why, sizeof why, "a block of %llu threads exceeds %d", threads,
             CUDA_EMU_MAX_THREADS);
  else if (grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535)
    snprintf(why, sizeof why, "grid (%u, %u, %u) exceeds (2147483647, 65535, 65535)", grid.x,
             grid.y, grid.z);
  else if (shmem > CUDA_EMU_MAX_SHARED)
    snprintf(why, sizeof why, "%zu bytes of dynamic shared memory exceed %d", shmem,
             CUDA_EMU_MAX_SHARED);
  if (!why[0])
    return 0;
  cuda_emu_note("refused: %s (cudaErrorInvalidConfiguration)", why);
  last_error_ = cudaErrorInvalidConfiguration;
  return 1;
}

void cuda_emu_launch_arg(const char *kernel, const char *file, int line, int index,
                         const void *ptr) {
  if (!ptr || cuda_emu_is_device(ptr))
    return;
  cuda_emu_fail(ptr, "argument %d (%p) is not device memory: a host pointer, or freed", index + 1,
                ptr);
}

/* What the next launch of this thread declares it reaches besides its arguments (a table's
 * arrays: cuda_emu_launch_touch), taken by that launch; grown on the heap as needed (a
 * thread-local array would be zeroed for every thread, FOX_LAUNCH_SYNC's block threads
 * included). */
struct touch_ {
  const void *p;
  int write;
  const char *what;
};
static _Thread_local struct touch_ *touch_;
static _Thread_local int ntouch_, cap_touch_;
static pthread_key_t touch_key_; /* frees a thread's list when it ends */
static pthread_once_t touch_once_ = PTHREAD_ONCE_INIT;

static void touch_key_make_(void) {
  if (pthread_key_create(&touch_key_, free) != 0)
    cuda_emu_die("pthread_key_create failed");
}

void cuda_emu_launch_touch(const void *p, int write, const char *what) {
  if (!p)
    return;
  if (ntouch_ == cap_touch_) {
    int cap = cap_touch_ ? 2 * cap_touch_ : 256;
    struct touch_ *grown = realloc(touch_, (size_t)cap * sizeof *grown);
    if (!grown)
      cuda_emu_die("out of host memory for a launch's %d declared arrays", cap);
    touch_ = grown, cap_touch_ = cap;
    pthread_once(&touch_once_, touch_key_make_);
    pthread_setspecific(touch_key_, grown);
  }
  touch_[ntouch_++] = (struct touch_){p, write, what};
}

void cuda_emu_launch_touches(struct emu_op *op) {
  int n = ntouch_;
  ntouch_ = 0;
  for (int i = 0; i < n; i++) {
    if (!cuda_emu_is_device(touch_[i].p))
      cuda_emu_fail(touch_[i].p, "%s (%p), which the launch declares it %s, is not device "
                                 "memory: freed, or never the device's",
                    touch_[i].what, touch_[i].p, touch_[i].write ? "writes" : "reads");
    if (op)
      cuda_emu_op_access(op, touch_[i].p, 0, touch_[i].write, touch_[i].what);
  }
}

static atomic_uint_fast64_t launches_;

uint64_t cuda_emu_launch_draw(void) {
  uint64_t x = atomic_fetch_add(&launches_, 1) + cuda_emu_seed() * 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
