/* The CUDA emulation's device memory: host heap behind an allocation table (sorted by base) that
 * every copy, memset, launch argument, cuBLAS operand and NCCL buffer is checked against, and
 * a ring of the latest frees so that a message can say "already freed". Fresh and freed device
 * memory reads as all-ones bytes (NaN as a float or double), so that a kernel reading what
 * nobody wrote gives itself away instead of finding zeros. */
#define _POSIX_C_SOURCE 200809L
#define CUDA_EMU_IMPL

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_emu.h"

#define GARBAGE_ 0xff
#define FREED_ 256

struct alloc_ {
  uintptr_t hidden; /* cuda_emu_hide(base) */
  size_t size;
  uint64_t serial;
  const char *file, *free_file;
  int line, free_line;
};

static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;

void cuda_emu_memory_fork(int phase) { cuda_emu_fork_lock(&lock_, phase); }
static struct alloc_ *live_; /* sorted by base */
static size_t n_live_, cap_live_, used_bytes_;
static struct alloc_ freed_[FREED_]; /* the most recent frees, a ring */
static size_t n_freed_;

static char *base_(const struct alloc_ *a) { return (char *)~a->hidden; }

static atomic_uint_fast64_t serials_;

uint64_t cuda_emu_serial(void) { return atomic_fetch_add(&serials_, 1) + 1; }

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

static void describe_locked_(const void *p, char *buf, size_t n) {
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

void cuda_emu_describe(const void *p, char *buf, size_t n) {
  pthread_mutex_lock(&lock_);
  describe_locked_(p, buf, n);
  pthread_mutex_unlock(&lock_);
}

static int device_region_(const void *p, struct emu_region *r) {
  pthread_mutex_lock(&lock_);
  long i = find_(p);
  int yes = i >= 0 && inside_(&live_[i], p);
  if (yes && r)
    *r = (struct emu_region){base_(&live_[i]), live_[i].size, live_[i].file, live_[i].line, 0,
                             live_[i].serial};
  pthread_mutex_unlock(&lock_);
  return yes;
}

int cuda_emu_is_device(const void *p) { return p && device_region_(p, NULL); }

void cuda_emu_require_device(const char *what, const void *p, size_t bytes) {
  if (!p)
    cuda_emu_fail(NULL, "%s is NULL, where device memory is expected", what);
  struct emu_region r;
  if (!device_region_(p, &r))
    cuda_emu_fail(p, "%s %p is not device memory (a host pointer, or freed)", what, p);
  size_t room = r.size - (size_t)((const char *)p - r.base);
  if (bytes > room)
    cuda_emu_fail(p, "%s %p: %zu bytes run %zu bytes past the end of its device allocation", what,
                  p, bytes, bytes - room);
}

void cuda_emu_require_host(const char *what, const void *p) {
  if (p && cuda_emu_is_device(p))
    cuda_emu_fail(p, "%s %p is device memory, where host memory is expected", what, p);
}

static size_t host_memory_(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? (size_t)pages * (size_t)size : (size_t)16 << 30;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
  cuda_emu_enter("cudaMemGetInfo");
  if (!free_bytes || !total_bytes)
    return cuda_emu_error(cudaErrorInvalidValue);
  size_t total = host_memory_();
  pthread_mutex_lock(&lock_);
  size_t used = used_bytes_;
  pthread_mutex_unlock(&lock_);
  *total_bytes = total;
  *free_bytes = used < total ? total - used : 0;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void **ptr, size_t size) {
  cuda_emu_enter("cudaMalloc");
  cuda_emu_capture_guard("cudaMalloc");
  if (!ptr)
    return cuda_emu_error(cudaErrorInvalidValue);
  if (size == 0) {
    *ptr = NULL;
    return cudaSuccess;
  }
  void *p = NULL;
  if (posix_memalign(&p, 256, size) != 0)
    return cuda_emu_error(cudaErrorMemoryAllocation);
  memset(p, GARBAGE_, size);
  const char *file = cuda_emu_call_file();
  struct alloc_ a = {cuda_emu_hide(p),      size, cuda_emu_serial(), file ? file : "?", NULL,
                     cuda_emu_call_line(), 0};
  pthread_mutex_lock(&lock_);
  if (n_live_ == cap_live_) {
    size_t cap = cap_live_ ? 2 * cap_live_ : 64;
    struct alloc_ *grown = realloc(live_, cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&lock_);
      free(p);
      return cuda_emu_error(cudaErrorMemoryAllocation);
    }
    live_ = grown;
    cap_live_ = cap;
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
  cuda_emu_capture_guard("cudaFree");
  struct emu_region r;
  if (!device_region_(ptr, &r) || r.base != ptr) {
    if (device_region_(ptr, NULL))
      cuda_emu_fail(ptr, "%p lies inside a device allocation, not at its start", ptr);
    cuda_emu_fail(ptr, "%p is not a live device allocation (a host pointer, or freed twice)", ptr);
  }
  /* cudaFree waits for nothing the program may count on: work that still uses the memory is
   * the program's bug (the sanitizer's report), not a wait. */
  san_free(r.base, r.size, "cudaFree", cuda_emu_call_file(), cuda_emu_call_line());
  pthread_mutex_lock(&lock_);
  long i = find_(ptr);
  struct alloc_ a = live_[i];
  const char *file = cuda_emu_call_file();
  a.free_file = file ? file : "?";
  a.free_line = cuda_emu_call_line();
  memmove(&live_[i], &live_[i + 1], (n_live_ - (size_t)i - 1) * sizeof *live_);
  n_live_--;
  used_bytes_ -= a.size;
  freed_[n_freed_++ % FREED_] = a;
  pthread_mutex_unlock(&lock_);
  memset(ptr, GARBAGE_, a.size);
  free(ptr);
  return cudaSuccess;
}

int cuda_emu_region_of(const void *p, int pinned, struct emu_region *r) {
  if (!p)
    return 0;
  if (device_region_(p, r))
    return 1;
  if (!pinned || !cuda_emu_is_pinned(p, 1))
    return 0;
  return r ? cuda_emu_pinned_region(p, r) : 1;
}
