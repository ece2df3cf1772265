/* The stream sanitizer (after PyTorch's CUDA Stream Sanitizer, written for this emulation):
 * every op's accesses are ranges of a region (a device allocation, or page-locked host memory),
 * reads or writes: a kernel's const pointer arguments are reads, its other pointers (and any
 * device address inside a struct argument) writes of their whole allocation; a copy reads its
 * source range and writes its destination range, a memset writes its range. Streams carry
 * vector clocks: an op's clock is its stream's after everything it waits for (its stream's
 * earlier ops, awaited events, the default streams' implicit waits, and whatever the host has
 * seen finish before it was given). When an op is given, each earlier access to an overlapping
 * range that its clock does not cover, with a write on either side, is a race: the report names
 * both ops (kernel or API, call site, stream) and the memory. A free of memory that an op not
 * known to have finished still uses is reported the same way. Everything here runs under the
 * engine's lock. */
#define _POSIX_C_SOURCE 200809L
#define CUDA_EMU_IMPL

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_emu.h"

/* ---- vector clocks ---- */

uint64_t vc_get(const struct vclock *a, int id) { return id < a->n ? a->t[id] : 0; }

static void grow_(struct vclock *a, int n) {
  if (n <= a->n)
    return;
  int cap = a->n ? a->n : 8;
  while (cap < n)
    cap *= 2;
  uint64_t *t = realloc(a->t, (size_t)cap * sizeof *t);
  if (!t)
    cuda_emu_die("out of host memory for a vector clock");
  memset(t + a->n, 0, (size_t)(cap - a->n) * sizeof *t);
  a->t = t;
  a->n = cap;
}

void vc_set(struct vclock *a, int id, uint64_t v) {
  grow_(a, id + 1);
  a->t[id] = v;
}

void vc_join(struct vclock *a, const struct vclock *b) {
  int n = b->n;
  while (n > 0 && b->t[n - 1] == 0)
    n--;
  grow_(a, n);
  for (int i = 0; i < n; i++)
    if (b->t[i] > a->t[i])
      a->t[i] = b->t[i];
}

void vc_copy(struct vclock *dst, const struct vclock *src) {
  if (dst->n)
    memset(dst->t, 0, (size_t)dst->n * sizeof *dst->t);
  vc_join(dst, src);
}

void vc_free(struct vclock *a) {
  free(a->t);
  a->t = NULL;
  a->n = 0;
}

static struct vclock host_;

struct vclock *san_host(void) { return &host_; }

/* ---- access records ---- */

struct rec_ {
  int sid;
  uint64_t seq;
  int write;
  uintptr_t lo, hi;
  char op[128], stream[128];
  const char *file, *arg, *node, *node_file;
  int line, node_line;
};

struct region_ {
  struct region_ *next;
  uintptr_t base;
  struct rec_ *recs;
  int n, cap;
};

#define BUCKETS_ 4096
static struct region_ *buckets_[BUCKETS_];

static size_t bucket_(uintptr_t base) { return (base >> 8 ^ base >> 20) % BUCKETS_; }

static struct region_ *region_(uintptr_t base, int make) {
  struct region_ **b = &buckets_[bucket_(base)];
  for (struct region_ *r = *b; r; r = r->next)
    if (r->base == base)
      return r;
  if (!make)
    return NULL;
  struct region_ *r = calloc(1, sizeof *r);
  if (!r)
    cuda_emu_die("out of host memory for the sanitizer's records");
  r->base = base;
  r->next = *b;
  *b = r;
  return r;
}

static void forget_region_(uintptr_t base) {
  for (struct region_ **pp = &buckets_[bucket_(base)]; *pp; pp = &(*pp)->next)
    if ((*pp)->base == base) {
      struct region_ *r = *pp;
      *pp = r->next;
      free(r->recs);
      free(r);
      return;
    }
}

/* Records of ops the host has seen finish can never race again. */
static void prune_(struct region_ *r) {
  int k = 0;
  for (int i = 0; i < r->n; i++)
    if (vc_get(&host_, r->recs[i].sid) < r->recs[i].seq)
      r->recs[k++] = r->recs[i];
  r->n = k;
}

/* "write by kernel fill_kernel (argument 1) at f.cu:12 on stream ..." */
static void say_(char *buf, size_t n, const struct rec_ *x) {
  int k = snprintf(buf, n, "%s by %s%s%s%s at %s:%d", x->write ? "write" : "read", x->op,
                   x->arg ? " (" : "", x->arg ? x->arg : "", x->arg ? ")" : "",
                   x->file ? x->file : "?", x->line);
  if (x->node && k > 0 && (size_t)k < n)
    k += snprintf(buf + k, n - (size_t)k, ", its node %s given at %s:%d", x->node,
                  x->node_file ? x->node_file : "?", x->node_line);
  if (k > 0 && (size_t)k < n)
    snprintf(buf + k, n - (size_t)k, ", on %s", x->stream);
}

static void where_(char *buf, size_t n, const struct emu_region *g, uintptr_t lo, uintptr_t hi) {
  snprintf(buf, n, "%s %p .. +%zu bytes, inside the %s %p of %zu bytes (%s at %s:%d)",
           g->pinned ? "page-locked host memory" : "device memory", (void *)lo,
           (size_t)(hi - lo), g->pinned ? "page-locked allocation" : "allocation",
           (void *)g->base, g->size, g->pinned ? "cudaMallocHost" : "cudaMalloc", g->file,
           g->line);
}

static void race_(const struct rec_ *old, const struct rec_ *now, const struct emu_region *g) {
  char a[512], b[512], w[320];
  say_(a, sizeof a, old);
  say_(b, sizeof b, now);
  uintptr_t lo = old->lo > now->lo ? old->lo : now->lo, hi = old->hi < now->hi ? old->hi : now->hi;
  where_(w, sizeof w, g, lo, hi);
  cuda_emu_unlock(); /* the report's stack trace needs no lock, and aborts */
  cuda_emu_die("sanitizer: a race on %s\n"
               "cuda-emu:   first:  %s\n"
               "cuda-emu:   second: %s\n"
               "cuda-emu:   nothing orders the first before the second: make the second's stream "
               "wait for an event recorded after the first (cudaStreamWaitEvent), or synchronise "
               "the host with the first before giving the second",
               w, a, b);
}

static struct rec_ rec_of_(const struct emu_op *op, const struct emu_access *x, int sid,
                           uint64_t seq, const char *label) {
  struct rec_ r = {sid, seq, x->write, x->lo, x->hi, "", "", op->file, x->arg, x->node,
                   x->node_file, op->line, x->node_line};
  snprintf(r.op, sizeof r.op, "%s", op->name);
  snprintf(r.stream, sizeof r.stream, "%s", label);
  return r;
}

void san_check(const struct emu_op *op, int sid, uint64_t seq, const struct vclock *vc,
               const char *stream_label) {
  for (int i = 0; i < op->nacc; i++) {
    const struct emu_access *x = &op->acc[i];
    struct emu_region g;
    if (!cuda_emu_region_of((const void *)x->lo, 1, &g))
      continue; /* freed since: the launch or copy check says so */
    struct region_ *r = region_((uintptr_t)g.base, 1);
    prune_(r);
    struct rec_ now = rec_of_(op, x, sid, seq, stream_label);
    int k = 0;
    for (int j = 0; j < r->n; j++) {
      struct rec_ *old = &r->recs[j];
      int overlap = old->lo < x->hi && x->lo < old->hi;
      int ordered = vc_get(vc, old->sid) >= old->seq;
      if (overlap && !ordered && (old->write || x->write))
        race_(old, &now, &g);
      /* What this write covers and follows, later accesses meet in it instead; a read
       * replaces its own stream's earlier read of the same range. */
      int superseded = ordered && (x->write ? old->lo >= x->lo && old->hi <= x->hi
                                            : !old->write && old->sid == sid &&
                                                  old->lo == x->lo && old->hi == x->hi);
      if (!superseded)
        r->recs[k++] = *old;
    }
    r->n = k;
    if (r->n == r->cap) {
      r->cap = r->cap ? 2 * r->cap : 4;
      struct rec_ *grown = realloc(r->recs, (size_t)r->cap * sizeof *grown);
      if (!grown)
        cuda_emu_die("out of host memory for the sanitizer's records");
      r->recs = grown;
    }
    r->recs[r->n++] = now;
  }
}

void san_free(const char *base, size_t size, const char *api, const char *file, int line) {
  if (!cuda_emu_sanitize())
    return;
  cuda_emu_lock();
  struct region_ *r = region_((uintptr_t)base, 0);
  if (r)
    prune_(r);
  if (r && r->n) {
    char a[512];
    say_(a, sizeof a, &r->recs[0]);
    cuda_emu_unlock();
    cuda_emu_die("sanitizer: %s at %s:%d of %p (%zu bytes) while an op that uses it is not "
                 "known to have finished:\n"
                 "cuda-emu:   pending: %s\n"
                 "cuda-emu:   the free waits for nothing: synchronise with that op's stream (or "
                 "an event recorded after it) before freeing",
                 api, file ? file : "?", line, (const void *)base, size, a);
  }
  if (r)
    forget_region_((uintptr_t)base);
  cuda_emu_unlock();
}
