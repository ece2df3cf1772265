/* The CUDA emulation's runtime: device memory from the host heap behind an allocation table
 * that every copy, memset and launch argument is checked against, one device named "foxopt CUDA
 * emulation", streams and events that run in order at once, and CUDA's error bookkeeping. */
#define _POSIX_C_SOURCE 200809L
#define CUDA_EMU_IMPL

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_emu.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUDA_EMU_ASAN_ 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(CUDA_EMU_ASAN_)
void __sanitizer_print_stack_trace(void);
#define STACK_() __sanitizer_print_stack_trace()
#else
#define STACK_() ((void)0)
#endif

/* Fresh and freed device memory reads as all-ones bytes (NaN as a float or double), so that a
 * kernel reading what nobody wrote gives itself away instead of finding zeros. */
#define GARBAGE_ 0xff
#define FREED_ 256

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

struct alloc_ {
  uintptr_t hidden; /* cuda_emu_hide(base) */
  size_t size;
  const char *file, *free_file;
  int line, free_line;
};

/* Handles of streams and events: created, checked on every use, destroyed once. */
struct registry_ {
  uintptr_t *items; /* cuda_emu_hide(handle) */
  size_t n, cap;
};

struct CUstream_st {
  unsigned flags;
};

struct CUevent_st {
  unsigned flags;
  int recorded;
  double seconds;
};

static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;
static struct alloc_ *live_; /* sorted by base */
static size_t n_live_, cap_live_, used_bytes_;
static struct alloc_ freed_[FREED_]; /* the most recent frees, a ring */
static size_t n_freed_;
static struct registry_ streams_, events_;

static cudaError_t error_(cudaError_t rc) {
  if (rc != cudaSuccess)
    last_error_ = rc;
  return rc;
}

static char *base_(const struct alloc_ *a) { return (char *)~a->hidden; }

static void *xrealloc_(void *p, size_t bytes) {
  void *q = realloc(p, bytes);
  if (!q) {
    fprintf(stderr, "cuda-emu: out of host memory for the emulation's tables\n");
    abort();
  }
  return q;
}

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

/* Index of the live allocation with the largest base <= p, or -1 (lock held). */
static long find_(const void *p) {
  size_t lo = 0, hi = n_live_;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if ((uintptr_t)base_(&live_[mid]) <= (uintptr_t)p)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (long)lo - 1;
}

static int inside_(const struct alloc_ *a, const void *p) {
  return (uintptr_t)p >= (uintptr_t)base_(a) && (uintptr_t)p < (uintptr_t)base_(a) + a->size;
}

/* Where p lies relative to device memory, for a message (lock held). */
static void describe_(const void *p, char *buf, size_t n) {
  long i = find_(p);
  if (i >= 0 && inside_(&live_[i], p)) {
    const struct alloc_ *a = &live_[i];
    snprintf(buf, n, "%p lies inside the device allocation %p of %zu bytes (cudaMalloc at "
             "%s:%d), at offset %zu", p, (void *)base_(a), a->size, a->file, a->line,
             (size_t)((const char *)p - base_(a)));
    return;
  }
  for (size_t k = 0; k < FREED_ && k < n_freed_; k++) {
    const struct alloc_ *a = &freed_[(n_freed_ - 1 - k) % FREED_];
    if (inside_(a, p)) {
      snprintf(buf, n, "%p lies inside device memory already freed: %p of %zu bytes "
               "(cudaMalloc at %s:%d, cudaFree at %s:%d)", p, (void *)base_(a), a->size,
               a->file, a->line, a->free_file, a->free_line);
      return;
    }
  }
  const struct alloc_ *before = i >= 0 ? &live_[i] : NULL;
  const struct alloc_ *after = (size_t)(i + 1) < n_live_ ? &live_[i + 1] : NULL;
  uintptr_t q = (uintptr_t)p;
  uintptr_t gap_before = before ? q - ((uintptr_t)base_(before) + before->size) : UINTPTR_MAX;
  uintptr_t gap_after = after ? (uintptr_t)base_(after) - q : UINTPTR_MAX;
  if (!before && !after)
    snprintf(buf, n, "no device memory is allocated");
  else if (gap_before <= gap_after)
    snprintf(buf, n, "the device allocation nearest to %p is %p of %zu bytes (cudaMalloc at "
             "%s:%d), ending %zu bytes below it", p, (void *)base_(before), before->size,
             before->file, before->line, (size_t)gap_before);
  else
    snprintf(buf, n, "the device allocation nearest to %p is %p of %zu bytes (cudaMalloc at "
             "%s:%d), starting %zu bytes above it", p, (void *)base_(after), after->size,
             after->file, after->line, (size_t)gap_after);
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
    pthread_mutex_lock(&lock_); /* no check fails while holding it */
    describe_(ptr, d, sizeof d);
    pthread_mutex_unlock(&lock_);
    fprintf(stderr, "cuda-emu:   %s\n", d);
  }
  STACK_();
  fflush(stderr);
  abort();
}

int cuda_emu_is_device(const void *p) {
  pthread_mutex_lock(&lock_);
  long i = find_(p);
  int yes = i >= 0 && inside_(&live_[i], p);
  pthread_mutex_unlock(&lock_);
  return yes;
}

void cuda_emu_require_device(const char *what, const void *p, size_t bytes) {
  if (!p)
    cuda_emu_fail(NULL, "%s is NULL, where device memory is expected", what);
  pthread_mutex_lock(&lock_);
  long i = find_(p);
  int in = i >= 0 && inside_(&live_[i], p);
  size_t room = in ? live_[i].size - (size_t)((const char *)p - base_(&live_[i])) : 0;
  pthread_mutex_unlock(&lock_);
  if (!in)
    cuda_emu_fail(p, "%s %p is not device memory (a host pointer, or freed)", what, p);
  if (bytes > room)
    cuda_emu_fail(p, "%s %p: %zu bytes run %zu bytes past the end of its device allocation", what,
                  p, bytes, bytes - room);
}

void cuda_emu_require_host(const char *what, const void *p) {
  if (p && cuda_emu_is_device(p))
    cuda_emu_fail(p, "%s %p is device memory, where host memory is expected", what, p);
}

static int registry_has_(struct registry_ *r, const void *h) {
  for (size_t i = 0; i < r->n; i++)
    if (r->items[i] == cuda_emu_hide(h))
      return 1;
  return 0;
}

static void registry_add_(struct registry_ *r, void *h) {
  pthread_mutex_lock(&lock_);
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 16;
    r->items = xrealloc_(r->items, r->cap * sizeof *r->items);
  }
  r->items[r->n++] = cuda_emu_hide(h);
  pthread_mutex_unlock(&lock_);
}

/* 0 when h was not registered. */
static int registry_remove_(struct registry_ *r, const void *h) {
  int found = 0;
  pthread_mutex_lock(&lock_);
  for (size_t i = 0; i < r->n; i++)
    if (r->items[i] == cuda_emu_hide(h)) {
      r->items[i] = r->items[--r->n];
      found = 1;
      break;
    }
  pthread_mutex_unlock(&lock_);
  return found;
}

void cuda_emu_require_stream(cudaStream_t s) {
  if (s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread)
    return;
  pthread_mutex_lock(&lock_);
  int ok = registry_has_(&streams_, s);
  pthread_mutex_unlock(&lock_);
  if (!ok)
    cuda_emu_fail(NULL, "stream %p is not a live stream (destroyed, or never created)", (void *)s);
}

static void require_event_(cudaEvent_t ev) {
  pthread_mutex_lock(&lock_);
  int ok = ev && registry_has_(&events_, ev);
  pthread_mutex_unlock(&lock_);
  if (!ok)
    cuda_emu_fail(NULL, "event %p is not a live event (destroyed, or never created)", (void *)ev);
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
    N_(cudaErrorNotReady)
    N_(cudaErrorLaunchFailure)
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
  case cudaErrorNotReady:
    return "device not ready";
  case cudaErrorLaunchFailure:
    return "unspecified launch failure";
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
    return error_(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  cuda_emu_enter("cudaSetDevice");
  if (device != 0)
    return error_(cudaErrorInvalidDevice);
  device_ = device;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
  cuda_emu_enter("cudaGetDevice");
  if (!device)
    return error_(cudaErrorInvalidValue);
  *device = device_;
  return cudaSuccess;
}

static size_t host_memory_(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? (size_t)pages * (size_t)size : (size_t)16 << 30;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
  cuda_emu_enter("cudaGetDeviceProperties");
  if (!prop)
    return error_(cudaErrorInvalidValue);
  if (device != 0)
    return error_(cudaErrorInvalidDevice);
  memset(prop, 0, sizeof *prop);
  snprintf(prop->name, sizeof prop->name, "foxopt CUDA emulation");
  prop->totalGlobalMem = host_memory_();
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

cudaError_t cudaDeviceSynchronize(void) {
  cuda_emu_enter("cudaDeviceSynchronize");
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
  cuda_emu_enter("cudaMemGetInfo");
  if (!free_bytes || !total_bytes)
    return error_(cudaErrorInvalidValue);
  size_t total = host_memory_();
  pthread_mutex_lock(&lock_);
  size_t used = used_bytes_;
  pthread_mutex_unlock(&lock_);
  *total_bytes = total;
  *free_bytes = used < total ? total - used : 0;
  return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
  cuda_emu_enter("cudaFuncGetAttributes");
  if (!attr)
    return error_(cudaErrorInvalidValue);
  if (!func)
    return error_(cudaErrorInvalidDeviceFunction);
  memset(attr, 0, sizeof *attr);
  attr->maxThreadsPerBlock = CUDA_EMU_MAX_THREADS;
  attr->ptxVersion = attr->binaryVersion = 90;
  attr->maxDynamicSharedSizeBytes = CUDA_EMU_MAX_SHARED;
  return cudaSuccess;
}

/* ---- memory ---- */

cudaError_t cudaMalloc(void **ptr, size_t size) {
  cuda_emu_enter("cudaMalloc");
  if (!ptr)
    return error_(cudaErrorInvalidValue);
  if (size == 0) {
    *ptr = NULL;
    return cudaSuccess;
  }
  void *p = NULL;
  if (posix_memalign(&p, 256, size) != 0)
    return error_(cudaErrorMemoryAllocation);
  memset(p, GARBAGE_, size);
  struct alloc_ a = {cuda_emu_hide(p), size, call_.file ? call_.file : "?", NULL, call_.line, 0};
  pthread_mutex_lock(&lock_);
  if (n_live_ == cap_live_) {
    cap_live_ = cap_live_ ? 2 * cap_live_ : 64;
    live_ = xrealloc_(live_, cap_live_ * sizeof *live_);
  }
  size_t at = (size_t)(find_(p) + 1);
  memmove(&live_[at + 1], &live_[at], (n_live_ - at) * sizeof *live_);
  live_[at] = a;
  n_live_++;
  used_bytes_ += size;
  pthread_mutex_unlock(&lock_);
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void *ptr) {
  cuda_emu_enter("cudaFree");
  if (!ptr)
    return cudaSuccess;
  pthread_mutex_lock(&lock_);
  long i = find_(ptr);
  if (i < 0 || base_(&live_[i]) != ptr) {
    int in = i >= 0 && inside_(&live_[i], ptr);
    pthread_mutex_unlock(&lock_);
    if (in)
      cuda_emu_fail(ptr, "%p lies inside a device allocation, not at its start", ptr);
    cuda_emu_fail(ptr, "%p is not a live device allocation (a host pointer, or freed twice)", ptr);
  }
  struct alloc_ a = live_[i];
  a.free_file = call_.file ? call_.file : "?";
  a.free_line = call_.line;
  memmove(&live_[i], &live_[i + 1], (n_live_ - (size_t)i - 1) * sizeof *live_);
  n_live_--;
  used_bytes_ -= a.size;
  freed_[n_freed_++ % FREED_] = a;
  pthread_mutex_unlock(&lock_);
  memset(ptr, GARBAGE_, a.size);
  free(ptr);
  return cudaSuccess;
}

static const char *const kind_names_[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice",
                                          "cudaMemcpyDeviceToHost", "cudaMemcpyDeviceToDevice",
                                          "cudaMemcpyDefault"};

static cudaError_t copy_(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
  if ((unsigned)kind > cudaMemcpyDefault)
    return error_(cudaErrorInvalidMemcpyDirection);
  if (count == 0)
    return cudaSuccess;
  int dst_dev, src_dev;
  switch (kind) {
  case cudaMemcpyHostToHost:
    dst_dev = 0, src_dev = 0;
    break;
  case cudaMemcpyHostToDevice:
    dst_dev = 1, src_dev = 0;
    break;
  case cudaMemcpyDeviceToHost:
    dst_dev = 0, src_dev = 1;
    break;
  case cudaMemcpyDeviceToDevice:
    dst_dev = 1, src_dev = 1;
    break;
  default: /* unified addressing: the table says which side each is on */
    dst_dev = cuda_emu_is_device(dst), src_dev = cuda_emu_is_device(src);
    break;
  }
  char what[96];
  snprintf(what, sizeof what, "the destination of a %s copy", kind_names_[kind]);
  if (!dst)
    cuda_emu_fail(NULL, "%s is NULL", what);
  if (dst_dev)
    cuda_emu_require_device(what, dst, count);
  else
    cuda_emu_require_host(what, dst);
  snprintf(what, sizeof what, "the source of a %s copy", kind_names_[kind]);
  if (!src)
    cuda_emu_fail(NULL, "%s is NULL", what);
  if (src_dev)
    cuda_emu_require_device(what, src, count);
  else
    cuda_emu_require_host(what, src);
  uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
  if (d != s && d < s + count && s < d + count)
    cuda_emu_fail(dst, "the %zu-byte ranges at %p (destination) and %p (source) overlap", count,
                  dst, src);
  if (d != s)
    memcpy(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
  cuda_emu_enter("cudaMemcpy");
  return copy_(dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  cuda_emu_enter("cudaMemcpyAsync");
  cuda_emu_require_stream(stream);
  return copy_(dst, src, count, kind);
}

static cudaError_t set_(void *ptr, int value, size_t count) {
  if (count == 0)
    return cudaSuccess;
  cuda_emu_require_device("the destination", ptr, count);
  memset(ptr, value, count);
  return cudaSuccess;
}

cudaError_t cudaMemset(void *ptr, int value, size_t count) {
  cuda_emu_enter("cudaMemset");
  return set_(ptr, value, count);
}

cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream) {
  cuda_emu_enter("cudaMemsetAsync");
  cuda_emu_require_stream(stream);
  return set_(ptr, value, count);
}

/* ---- streams and events: all work is done when its call returns ---- */

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags) {
  cuda_emu_enter("cudaStreamCreateWithFlags");
  if (!stream || (flags & ~(unsigned)cudaStreamNonBlocking))
    return error_(cudaErrorInvalidValue);
  struct CUstream_st *s = xrealloc_(NULL, sizeof *s);
  s->flags = flags;
  registry_add_(&streams_, s);
  *stream = s;
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  cuda_emu_enter("cudaStreamDestroy");
  if (stream == NULL || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
    return error_(cudaErrorInvalidResourceHandle);
  if (!registry_remove_(&streams_, stream))
    cuda_emu_fail(NULL, "stream %p is not a live stream (destroyed twice, or never created)",
                  (void *)stream);
  free(stream);
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  cuda_emu_enter("cudaStreamSynchronize");
  cuda_emu_require_stream(stream);
  return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  cuda_emu_enter("cudaStreamQuery");
  cuda_emu_require_stream(stream);
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  cuda_emu_enter("cudaStreamWaitEvent");
  cuda_emu_require_stream(stream);
  require_event_(event);
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  cuda_emu_enter("cudaEventCreateWithFlags");
  if (!event || (flags & ~(unsigned)(cudaEventBlockingSync | cudaEventDisableTiming)))
    return error_(cudaErrorInvalidValue);
  struct CUevent_st *ev = xrealloc_(NULL, sizeof *ev);
  ev->flags = flags;
  ev->recorded = 0;
  ev->seconds = 0.0;
  registry_add_(&events_, ev);
  *event = ev;
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  cuda_emu_enter("cudaEventDestroy");
  if (!registry_remove_(&events_, event))
    cuda_emu_fail(NULL, "event %p is not a live event (destroyed twice, or never created)",
                  (void *)event);
  free(event);
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  cuda_emu_enter("cudaEventRecord");
  require_event_(event);
  cuda_emu_require_stream(stream);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  event->seconds = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  event->recorded = 1;
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  cuda_emu_enter("cudaEventSynchronize");
  require_event_(event);
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  cuda_emu_enter("cudaEventQuery");
  require_event_(event);
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  cuda_emu_enter("cudaEventElapsedTime");
  require_event_(start);
  require_event_(end);
  if (!ms)
    return error_(cudaErrorInvalidValue);
  if (!start->recorded || !end->recorded ||
      ((start->flags | end->flags) & cudaEventDisableTiming))
    return error_(cudaErrorInvalidResourceHandle);
  *ms = (float)((end->seconds - start->seconds) * 1e3);
  return cudaSuccess;
}

/* ---- launches (cuda_emu_launch.h runs the grid) ---- */

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
