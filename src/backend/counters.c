/* Thread-local counts (no contention between the trials of a device) and an atomic peak. */
#include "backend/counters.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static _Thread_local struct backend_counts mine_;
static _Thread_local struct counters_graph capture_;
static _Thread_local int capturing_;
static atomic_uint_fast64_t in_use_, peak_;

/* Captured, a launch is still a host call (the capture costs the host what launching would),
 * but the device runs nothing until the graph is launched. */
void counters_launch(void) {
  mine_.launches++;
  if (capturing_)
    capture_.kernels++;
  else
    mine_.nodes++;
}

void counters_copy(void) {
  mine_.copies++;
  if (capturing_)
    capture_.copies++;
}

void counters_capture_begin(void) {
  capturing_ = 1;
  capture_ = (struct counters_graph){0, 0};
}

struct counters_graph counters_capture_end(void) {
  capturing_ = 0;
  return capture_;
}

void counters_graph_launch(const struct counters_graph *g) {
  mine_.graph_launches++;
  mine_.nodes += g->kernels;
}
void counters_sync(void) { mine_.syncs++; }
void counters_h2d(size_t bytes) { mine_.h2d_bytes += bytes; }
void counters_d2h(size_t bytes) { mine_.d2h_bytes += bytes; }

void counters_alloc(size_t bytes) {
  uint_fast64_t now = atomic_fetch_add(&in_use_, bytes) + bytes;
  uint_fast64_t peak = atomic_load(&peak_);
  while (now > peak && !atomic_compare_exchange_weak(&peak_, &peak, now))
    ;
}

void counters_release(size_t bytes) { atomic_fetch_sub(&in_use_, bytes); }

/* Live allocations: an open-addressing table of (pointer, size) with tombstones, rebuilt at
 * half full counting tombstones, to a size set by the live entries alone (so that a process
 * that allocates and frees forever keeps a small table). */
static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;
static struct slot_ {
  const void *p;
  size_t bytes;
} *slots_;
static size_t cap_, live_, filled_; /* filled_: live entries and tombstones */
#define GONE_ ((const void *)1)

/* The pointer's bits mixed (allocations are aligned: their low bits carry nothing). */
static size_t hash_(const void *p, size_t cap) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return (size_t)(x ^ (x >> 31)) & (cap - 1);
}

static int rebuild_(void) {
  size_t cap = 1024;
  while (cap < 4 * (live_ + 1))
    cap *= 2;
  struct slot_ *s = calloc(cap, sizeof *s);
  if (!s)
    return -1;
  for (size_t i = 0; i < cap_; i++)
    if (slots_[i].p && slots_[i].p != GONE_) {
      size_t k = hash_(slots_[i].p, cap);
      while (s[k].p)
        k = (k + 1) & (cap - 1);
      s[k] = slots_[i];
    }
  free(slots_);
  slots_ = s;
  cap_ = cap;
  filled_ = live_;
  return 0;
}

void counters_alloc_ptr(const void *p, size_t bytes) {
  pthread_mutex_lock(&lock_);
  if (p && (2 * (filled_ + 1) <= cap_ || rebuild_() == 0)) {
    size_t k = hash_(p, cap_);
    while (slots_[k].p && slots_[k].p != GONE_)
      k = (k + 1) & (cap_ - 1);
    if (!slots_[k].p)
      filled_++;
    slots_[k] = (struct slot_){p, bytes};
    live_++;
    counters_alloc(bytes);
  }
  pthread_mutex_unlock(&lock_);
}

void counters_release_ptr(const void *p) {
  pthread_mutex_lock(&lock_);
  /* An empty slot ends the probe: tombstones keep the chains whole. */
  for (size_t k = cap_ ? hash_(p, cap_) : 0, n = 0; cap_ && slots_[k].p && n < cap_;
       k = (k + 1) & (cap_ - 1), n++)
    if (slots_[k].p == p) {
      counters_release(slots_[k].bytes);
      slots_[k].p = GONE_;
      live_--;
      break;
    }
  pthread_mutex_unlock(&lock_);
}

struct backend_counts counters_take(void) {
  struct backend_counts c = mine_;
  mine_ = (struct backend_counts){0};
  return c;
}

void counters_add(struct backend_counts *sum, const struct backend_counts *c) {
  sum->launches += c->launches;
  sum->graph_launches += c->graph_launches;
  sum->copies += c->copies;
  sum->nodes += c->nodes;
  sum->syncs += c->syncs;
  sum->h2d_bytes += c->h2d_bytes;
  sum->d2h_bytes += c->d2h_bytes;
}

static uint64_t share_(uint64_t x, int i, int k) {
  return x / (uint64_t)k + ((uint64_t)i < x % (uint64_t)k);
}

struct backend_counts counters_share(const struct backend_counts *c, int i, int k) {
  return (struct backend_counts){share_(c->launches, i, k),  share_(c->graph_launches, i, k),
                                 share_(c->copies, i, k),    share_(c->nodes, i, k),
                                 share_(c->syncs, i, k),     share_(c->h2d_bytes, i, k),
                                 share_(c->d2h_bytes, i, k)};
}

uint64_t counters_peak_bytes(void) { return atomic_load(&peak_); }

void counters_peak_reset(void) { atomic_store(&peak_, atomic_load(&in_use_)); }
