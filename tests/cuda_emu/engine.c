/* The CUDA emulation's engine: streams and events as CUDA orders them. An op given to a stream
 * runs after the stream's earlier ops, after what an awaited event stood for, and, by the
 * default streams' rules, after the legacy stream's earlier ops (a blocking stream's op) or
 * after every blocking stream's earlier ops (a legacy stream op); the per-thread default
 * stream is a blocking stream of its own for each host thread. Nothing else orders ops: with
 * FOX_CUDA_EMU_ASYNC=1 each stream's ops run on a worker thread of its own, after seeded random
 * delays (FOX_CUDA_EMU_SEED), so that repeated runs try other interleavings; otherwise the
 * calling thread runs each op when it is given (after what it waits for). Host calls that
 * wait (stream, event and device synchronisation, queries that succeed, blocking copies) tell
 * the sanitizer what the host now knows to be done. */
#define _GNU_SOURCE
#define CUDA_EMU_IMPL

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_emu.h"

static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t progress_ = PTHREAD_COND_INITIALIZER; /* an op finished */
static int running_; /* ops running outside the lock (a worker's or run_here_'s) */
static struct CUstream_st legacy_ = {.kind = EMU_STREAM_LEGACY,
                                     .label = "the legacy default stream"};
/* Every stream ever made but the legacy one, complemented (cuda_emu_hide): the default
 * streams' rules and device synchronisation visit them all. Destroyed ones stay (retired), as
 * the ops that waited for them may still look. */
static uintptr_t *all_;
static int n_all_, cap_all_, next_id_ = 1;
static struct CUstream_st **retired_; /* plain pointers: the program let go of these */
static int n_retired_, cap_retired_;
static _Thread_local struct CUstream_st *ptds_;
static _Thread_local int thread_no_;
static atomic_int threads_;
static pthread_key_t ptds_key_;
static pthread_once_t once_ = PTHREAD_ONCE_INIT;

static struct CUstream_st *unhide_(uintptr_t h) { return (struct CUstream_st *)~h; }

/* fork(): only the forking thread goes on in the child, so no worker serves a stream there; the
 * engine is forked unlocked, and the child starts workers again for what is queued (tests fork
 * to watch a misuse abort). */
/* A fork waits for the ops running to finish: the child inherits the queues, and an op half
 * run when the address space is copied would run again there, over what it half wrote. */
static void fork_prepare_(void) {
  pthread_mutex_lock(&lock_); /* the engine's lock first, as everywhere */
  while (running_)
    pthread_cond_wait(&progress_, &lock_);
  cuda_emu_memory_fork(0);
  cuda_emu_hostmem_fork(0);
  cuda_emu_profile_fork(0);
}
static void fork_parent_(void) {
  cuda_emu_profile_fork(1);
  cuda_emu_hostmem_fork(1);
  cuda_emu_memory_fork(1);
  pthread_mutex_unlock(&lock_);
}
static void enqueue_worker_(struct CUstream_st *s);
static void fork_child_(void) {
  cuda_emu_profile_fork(2);
  cuda_emu_hostmem_fork(2);
  cuda_emu_memory_fork(2);
  pthread_mutex_init(&lock_, NULL);
  pthread_cond_init(&progress_, NULL);
  running_ = 0;
  struct CUstream_st *streams[1] = {&legacy_};
  for (int i = -1; i < n_all_; i++) {
    struct CUstream_st *s = i < 0 ? streams[0] : unhide_(all_[i]);
    pthread_cond_init(&s->work, NULL);
    s->worker = 0;
    if (s->head)
      enqueue_worker_(s);
  }
}

__attribute__((constructor)) static void fork_handlers_(void) {
  pthread_atfork(fork_prepare_, fork_parent_, fork_child_);
}

void cuda_emu_lock(void) { pthread_mutex_lock(&lock_); }
void cuda_emu_unlock(void) { pthread_mutex_unlock(&lock_); }

static void *xrealloc_(void *p, size_t bytes) {
  void *q = realloc(p, bytes);
  if (!q)
    cuda_emu_die("out of host memory for the emulation's tables");
  return q;
}


static uint64_t mix_(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* A stream's fields (lock held). */
static void init_(struct CUstream_st *s, int kind, unsigned flags) {
  s->kind = kind;
  s->flags = flags;
  s->id = next_id_++;
  s->rng = mix_(cuda_emu_seed() ^ mix_((uint64_t)s->id));
  pthread_cond_init(&s->work, NULL);
  if (n_all_ == cap_all_) {
    cap_all_ = cap_all_ ? 2 * cap_all_ : 32;
    all_ = xrealloc_(all_, (size_t)cap_all_ * sizeof *all_);
  }
  all_[n_all_++] = cuda_emu_hide(s);
}

static void retire_(struct CUstream_st *s) {
  s->retired = 1;
  pthread_cond_signal(&s->work);
  if (n_retired_ == cap_retired_) {
    cap_retired_ = cap_retired_ ? 2 * cap_retired_ : 32;
    retired_ = xrealloc_(retired_, (size_t)cap_retired_ * sizeof *retired_);
  }
  retired_[n_retired_++] = s;
}

/* A host thread's end ends its per-thread stream: what it was given still runs. */
static void thread_end_(void *p) {
  pthread_mutex_lock(&lock_);
  retire_(p);
  pthread_mutex_unlock(&lock_);
}

static void once_init_(void) { pthread_key_create(&ptds_key_, thread_end_); }

static int thread_no_get_(void) {
  if (!thread_no_)
    thread_no_ = atomic_fetch_add(&threads_, 1) + 1;
  return thread_no_;
}

/* The calling thread's per-thread default stream, made on first use (lock held). */
static struct CUstream_st *ptds_get_(void) {
  if (ptds_)
    return ptds_;
  pthread_once(&once_, once_init_);
  struct CUstream_st *s = calloc(1, sizeof *s);
  if (!s)
    cuda_emu_die("out of host memory for a per-thread stream");
  init_(s, EMU_STREAM_PER_THREAD, cudaStreamDefault);
  snprintf(s->label, sizeof s->label, "the per-thread default stream of host thread %d",
           thread_no_get_());
  pthread_setspecific(ptds_key_, s);
  ptds_ = s;
  return s;
}

static int live_user_(const struct CUstream_st *s) {
  for (int i = 0; i < n_all_; i++)
    if (all_[i] == cuda_emu_hide(s))
      return s->kind == EMU_STREAM_USER && !s->retired;
  return 0;
}

static struct CUstream_st *resolve_(cudaStream_t h, int ptds) {
  if (h == NULL)
    return ptds ? ptds_get_() : &legacy_;
  if (h == cudaStreamLegacy)
    return &legacy_;
  if (h == cudaStreamPerThread)
    return ptds_get_();
  if (!live_user_(h)) {
    pthread_mutex_unlock(&lock_);
    cuda_emu_fail(NULL, "stream %p is not a live stream (destroyed, or never created)",
                  (void *)h);
  }
  return h;
}

struct CUstream_st *cuda_emu_stream(cudaStream_t stream, int ptds) {
  pthread_mutex_lock(&lock_);
  struct CUstream_st *s = resolve_(stream, ptds);
  pthread_mutex_unlock(&lock_);
  return s;
}

void cuda_emu_require_stream(cudaStream_t s) { cuda_emu_stream(s, 0); }

const char *cuda_emu_stream_label(const struct CUstream_st *s) { return s->label; }

/* ---- ops ---- */

struct emu_op *cuda_emu_op_new(int kind, const char *fmt, ...) {
  struct emu_op *op = calloc(1, sizeof *op);
  if (!op)
    cuda_emu_die("out of host memory for an op");
  op->kind = kind;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(op->name, sizeof op->name, fmt, ap);
  va_end(ap);
  op->file = cuda_emu_call_file();
  op->line = cuda_emu_call_line();
  return op;
}

void cuda_emu_op_access(struct emu_op *op, const void *p, size_t bytes, int write,
                        const char *arg) {
  struct emu_region r;
  if (!cuda_emu_region_of(p, 1, &r))
    return;
  uintptr_t lo = bytes ? (uintptr_t)p : (uintptr_t)r.base;
  uintptr_t hi = bytes ? lo + bytes : (uintptr_t)r.base + r.size;
  if (op->nacc == op->cap_acc) {
    op->cap_acc = op->cap_acc ? 2 * op->cap_acc : 8;
    op->acc = xrealloc_(op->acc, (size_t)op->cap_acc * sizeof *op->acc);
  }
  op->acc[op->nacc++] = (struct emu_access){lo, hi, r.serial, write, arg, NULL, NULL, 0};
}

void cuda_emu_op_free(struct emu_op *op) {
  if (!op)
    return;
  if (op->ctx) {
    if (op->drop)
      op->drop(op->ctx);
    else
      free(op->ctx);
  }
  free(op->acc);
  free(op->deps);
  vc_free(&op->join);
  free(op);
}

struct emu_op *cuda_emu_op_clone(const struct emu_op *op) {
  if (op->ctx && !op->clone)
    return NULL;
  struct emu_op *c = malloc(sizeof *c);
  if (!c)
    cuda_emu_die("out of host memory for a graph node");
  *c = *op;
  c->ctx = op->ctx ? op->clone(op->ctx) : NULL;
  c->acc = NULL, c->nacc = c->cap_acc = 0;
  for (int i = 0; i < op->nacc; i++) {
    if (c->nacc == c->cap_acc) {
      c->cap_acc = c->cap_acc ? 2 * c->cap_acc : 8;
      c->acc = xrealloc_(c->acc, (size_t)c->cap_acc * sizeof *c->acc);
    }
    c->acc[c->nacc++] = op->acc[i];
  }
  c->deps = NULL, c->ndeps = c->cap_deps = 0;
  c->join = (struct vclock){0};
  c->stream = NULL, c->next = NULL, c->seq = 0;
  return c;
}

static void dep_(struct emu_op *op, struct CUstream_st *s, uint64_t seq) {
  if (s->done >= seq)
    return;
  if (op->ndeps == op->cap_deps) {
    op->cap_deps = op->cap_deps ? 2 * op->cap_deps : 4;
    op->deps = xrealloc_(op->deps, (size_t)op->cap_deps * sizeof *op->deps);
  }
  op->deps[op->ndeps++] = (struct emu_dep){s, seq};
}

static int ready_(const struct emu_op *op) {
  for (int i = 0; i < op->ndeps; i++)
    if (op->deps[i].s->done < op->deps[i].seq)
      return 0;
  return 1;
}

/* Orders op on s by CUDA's rules, gives it its place and checks its accesses (lock held). */
static void place_(struct CUstream_st *s, struct emu_op *op) {
  vc_join(&s->vc, san_host());
  vc_join(&s->vc, &op->join);
  if (s->kind == EMU_STREAM_LEGACY) {
    cuda_emu_capture_legacy_guard();
    for (int i = 0; i < n_all_; i++) {
      struct CUstream_st *b = unhide_(all_[i]);
      if (b->flags & cudaStreamNonBlocking)
        continue;
      dep_(op, b, b->enqueued);
      vc_join(&s->vc, &b->vc);
    }
  } else if (!(s->flags & cudaStreamNonBlocking)) {
    dep_(op, &legacy_, legacy_.enqueued);
    vc_join(&s->vc, &legacy_.vc);
  }
  op->stream = s;
  op->seq = ++s->enqueued;
  vc_set(&s->vc, s->id, op->seq);
  if (op->nacc && cuda_emu_sanitize())
    san_check(op, s->id, op->seq, &s->vc, s->label);
  if (op->on_submit)
    op->on_submit(op);
}

static void finish_(struct CUstream_st *s, struct emu_op *op) {
  s->done = op->seq;
  pthread_cond_broadcast(&progress_);
}

static void run_(struct emu_op *op) {
  if (op->run)
    op->run(op);
  if (op->kernel)
    cuda_emu_profile_ran(op, 0);
}

/* The seeded delays a worker takes before an op: a yield now and then, a sleep of up to
 * 150 us more rarely, so that the streams' ops interleave differently from seed to seed. */
static void delay_(struct CUstream_st *s) {
  s->rng = mix_(s->rng);
  uint64_t r = s->rng;
  if ((r & 3) == 0)
    sched_yield();
  if ((r >> 2 & 15) == 1) {
    struct timespec ts = {0, (long)((r >> 8) % 150000)};
    nanosleep(&ts, NULL);
  }
}

static void *worker_(void *arg) {
  struct CUstream_st *s = arg;
  pthread_mutex_lock(&lock_);
  for (;;) {
    while (!s->head) {
      if (s->retired)
        goto out;
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_nsec += 200 * 1000 * 1000;
      if (until.tv_nsec >= 1000000000L)
        until.tv_sec++, until.tv_nsec -= 1000000000L;
      if (pthread_cond_timedwait(&s->work, &lock_, &until) == ETIMEDOUT && !s->head)
        goto out; /* idle: a new op starts another */
    }
    struct emu_op *op = s->head;
    while (!ready_(op))
      pthread_cond_wait(&progress_, &lock_);
    running_++;
    pthread_mutex_unlock(&lock_);
    delay_(s);
    run_(op);
    pthread_mutex_lock(&lock_);
    running_--;
    s->head = op->next;
    if (!s->head)
      s->tail = NULL;
    finish_(s, op);
    pthread_mutex_unlock(&lock_);
    cuda_emu_op_free(op);
    pthread_mutex_lock(&lock_);
  }
out:
  s->worker = 0;
  pthread_mutex_unlock(&lock_);
  return NULL;
}

/* Queues op (placed) for s's worker, starting one when none serves it (lock held). */
static void enqueue_(struct CUstream_st *s, struct emu_op *op) {
  op->next = NULL;
  if (s->tail)
    s->tail->next = op;
  else
    s->head = op;
  s->tail = op;
  enqueue_worker_(s);
}

/* A worker for s unless one serves it, and a nudge (lock held). */
static void enqueue_worker_(struct CUstream_st *s) {
  if (!s->worker) {
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, worker_, s) != 0)
      cuda_emu_die("cannot start a worker thread for %s", s->label);
    pthread_attr_destroy(&at);
    s->worker = 1;
  }
  pthread_cond_signal(&s->work);
}

/* Runs a placed op on the calling thread once its turn comes (lock held, and held again on
 * return): the synchronous mode. */
static void run_here_(struct CUstream_st *s, struct emu_op *op) {
  while (s->done + 1 != op->seq || !ready_(op))
    pthread_cond_wait(&progress_, &lock_);
  running_++;
  pthread_mutex_unlock(&lock_);
  run_(op);
  pthread_mutex_lock(&lock_);
  running_--;
  finish_(s, op);
}

static void wait_seq_(struct CUstream_st *s, uint64_t seq) {
  while (s->done < seq)
    pthread_cond_wait(&progress_, &lock_);
}

/* Places op and runs or queues it; returns the stream and, when `vc` is given, the stream's
 * clock at op (what waiting for op teaches the host). Lock held. */
static struct CUstream_st *give_(struct CUstream_st *s, struct emu_op *op, struct vclock *vc) {
  place_(s, op);
  if (vc)
    vc_copy(vc, &s->vc);
  if (cuda_emu_async()) {
    enqueue_(s, op);
  } else {
    run_here_(s, op);
    cuda_emu_op_free(op);
  }
  return s;
}

uint64_t cuda_emu_submit(cudaStream_t stream, int ptds, struct emu_op *op, int wait) {
  pthread_mutex_lock(&lock_);
  struct CUstream_st *s = resolve_(stream, ptds);
  if (s->cap) {
    pthread_mutex_unlock(&lock_);
    if (wait)
      cuda_emu_fail(NULL, "%s waits for the host on %s, which is being captured into a graph: "
                          "a graph cannot hold a host synchronisation "
                          "(cudaErrorStreamCaptureUnsupported on a device)", op->name, s->label);
    cuda_emu_capture_add(s->cap, s, op);
    return 0;
  }
  struct vclock vc = {0};
  uint64_t seq = s->enqueued + 1;
  give_(s, op, wait ? &vc : NULL);
  if (wait) {
    wait_seq_(s, seq);
    vc_join(san_host(), &vc);
    vc_free(&vc);
  }
  pthread_mutex_unlock(&lock_);
  return seq;
}

void cuda_emu_wait_op(struct CUstream_st *s, uint64_t seq) {
  pthread_mutex_lock(&lock_);
  wait_seq_(s, seq);
  pthread_mutex_unlock(&lock_);
}

/* ---- streams ---- */

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags) {
  cuda_emu_enter("cudaStreamCreateWithFlags");
  if (!stream || (flags & ~(unsigned)cudaStreamNonBlocking))
    return cuda_emu_error(cudaErrorInvalidValue);
  struct CUstream_st *s = calloc(1, sizeof *s);
  if (!s)
    return cuda_emu_error(cudaErrorMemoryAllocation);
  const char *file = cuda_emu_call_file();
  pthread_mutex_lock(&lock_);
  init_(s, EMU_STREAM_USER, flags);
  snprintf(s->label, sizeof s->label, "%sstream %p (created at %s:%d)",
           flags & cudaStreamNonBlocking ? "the non-blocking " : "", (void *)s,
           file ? file : "?", cuda_emu_call_line());
  pthread_mutex_unlock(&lock_);
  *stream = s;
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

/* As CUDA: a destroyed stream's work still runs, and its resources go after it. */
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  cuda_emu_enter("cudaStreamDestroy");
  if (stream == NULL || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
    return cuda_emu_error(cudaErrorInvalidResourceHandle);
  pthread_mutex_lock(&lock_);
  if (!live_user_(stream)) {
    pthread_mutex_unlock(&lock_);
    cuda_emu_fail(NULL, "stream %p is not a live stream (destroyed twice, or never created)",
                  (void *)stream);
  }
  if (stream->cap) {
    pthread_mutex_unlock(&lock_);
    cuda_emu_fail(NULL, "%s is being captured into a graph", stream->label);
  }
  retire_(stream);
  pthread_mutex_unlock(&lock_);
  return cudaSuccess;
}

void cuda_emu_sync_stream(struct CUstream_st *s) {
  pthread_mutex_lock(&lock_);
  struct vclock vc = {0};
  uint64_t seq;
  if (s->kind == EMU_STREAM_LEGACY) {
    /* The legacy stream's synchronisation waits for what its next op would wait for. */
    seq = s->enqueued + 1;
    give_(s, cuda_emu_op_new(EMU_OP_MARK, "synchronisation"), &vc);
  } else {
    seq = s->enqueued;
    vc_copy(&vc, &s->vc);
  }
  wait_seq_(s, seq);
  vc_join(san_host(), &vc);
  vc_free(&vc);
  pthread_mutex_unlock(&lock_);
}

static cudaError_t sync_(const char *api, cudaStream_t stream, int ptds) {
  cuda_emu_enter(api);
  struct CUstream_st *s = cuda_emu_stream(stream, ptds);
  if (s->cap)
    cuda_emu_fail(NULL, "%s of %s, which is being captured into a graph: the graph would not "
                        "hold this synchronisation (cudaErrorStreamCaptureUnsupported on a "
                        "device)", api, s->label);
  cuda_emu_capture_guard(api);
  cuda_emu_sync_stream(s);
  return cudaSuccess;
}

static cudaError_t query_(cudaStream_t stream, int ptds) {
  cuda_emu_enter("cudaStreamQuery");
  struct CUstream_st *s = cuda_emu_stream(stream, ptds);
  if (s->cap)
    cuda_emu_fail(NULL, "cudaStreamQuery of %s, which is being captured into a graph "
                        "(cudaErrorStreamCaptureUnsupported on a device)", s->label);
  pthread_mutex_lock(&lock_);
  int done = s->done == s->enqueued;
  if (done)
    vc_join(san_host(), &s->vc);
  pthread_mutex_unlock(&lock_);
  return done ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaDeviceSynchronize(void) {
  cuda_emu_enter("cudaDeviceSynchronize");
  cuda_emu_capture_guard("cudaDeviceSynchronize");
  pthread_mutex_lock(&lock_);
  int n = n_all_;
  wait_seq_(&legacy_, legacy_.enqueued);
  vc_join(san_host(), &legacy_.vc);
  for (int i = 0; i < n; i++) {
    struct CUstream_st *s = unhide_(all_[i]);
    struct vclock vc = {0};
    vc_copy(&vc, &s->vc);
    wait_seq_(s, s->enqueued);
    vc_join(san_host(), &vc);
    vc_free(&vc);
  }
  pthread_mutex_unlock(&lock_);
  return cudaSuccess;
}

/* ---- events ---- */

struct stamp_ {
  cudaEvent_t ev;
  uint64_t gen;
};

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void event_free_(cudaEvent_t ev) {
  vc_free(&ev->vc);
  cuda_emu_event_forget(ev);
  free(ev);
}

/* The record's marker: the time the stream got there; a destroyed event goes with its last. */
static void stamp_run_(struct emu_op *op) {
  struct stamp_ *st = op->ctx;
  double t = now_();
  pthread_mutex_lock(&lock_);
  cudaEvent_t ev = st->ev;
  if (st->gen == ev->gen) {
    ev->seconds = t;
    ev->stamped = 1;
  }
  int gone = --ev->pending == 0 && ev->destroyed;
  pthread_mutex_unlock(&lock_);
  if (gone)
    event_free_(ev);
}

static void *stamp_clone_(const void *ctx) {
  (void)ctx;
  return NULL; /* never: a record in a capture is the capture's (graph.c) */
}

static struct registry_ {
  uintptr_t *items;
  int n, cap;
} events_;

static int event_live_(cudaEvent_t ev) {
  for (int i = 0; i < events_.n; i++)
    if (events_.items[i] == cuda_emu_hide(ev))
      return 1;
  return 0;
}

static void require_event_(cudaEvent_t ev) {
  pthread_mutex_lock(&lock_);
  int ok = ev && event_live_(ev);
  pthread_mutex_unlock(&lock_);
  if (!ok)
    cuda_emu_fail(NULL, "event %p is not a live event (destroyed, or never created)", (void *)ev);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  cuda_emu_enter("cudaEventCreateWithFlags");
  if (!event || (flags & ~(unsigned)(cudaEventBlockingSync | cudaEventDisableTiming)))
    return cuda_emu_error(cudaErrorInvalidValue);
  struct CUevent_st *ev = calloc(1, sizeof *ev);
  if (!ev)
    return cuda_emu_error(cudaErrorMemoryAllocation);
  ev->flags = flags;
  pthread_mutex_lock(&lock_);
  if (events_.n == events_.cap) {
    events_.cap = events_.cap ? 2 * events_.cap : 16;
    events_.items = xrealloc_(events_.items, (size_t)events_.cap * sizeof *events_.items);
  }
  events_.items[events_.n++] = cuda_emu_hide(ev);
  pthread_mutex_unlock(&lock_);
  *event = ev;
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  cuda_emu_enter("cudaEventDestroy");
  pthread_mutex_lock(&lock_);
  int found = 0;
  for (int i = 0; event && i < events_.n; i++)
    if (events_.items[i] == cuda_emu_hide(event)) {
      events_.items[i] = events_.items[--events_.n];
      found = 1;
      break;
    }
  if (!found) {
    pthread_mutex_unlock(&lock_);
    cuda_emu_fail(NULL, "event %p is not a live event (destroyed twice, or never created)",
                  (void *)event);
  }
  /* As CUDA: a record still pending completes, then the event goes. */
  event->destroyed = 1;
  int now = event->pending == 0;
  pthread_mutex_unlock(&lock_);
  if (now)
    event_free_(event);
  return cudaSuccess;
}

static cudaError_t record_(cudaEvent_t event, cudaStream_t stream, int ptds) {
  cuda_emu_enter("cudaEventRecord");
  require_event_(event);
  struct CUstream_st *s = cuda_emu_stream(stream, ptds);
  if (cuda_emu_capture_record(event, s))
    return cudaSuccess;
  struct emu_op *op = cuda_emu_op_new(EMU_OP_MARK, "cudaEventRecord");
  struct stamp_ *st = malloc(sizeof *st);
  if (!st)
    cuda_emu_die("out of host memory for an event record");
  op->ctx = st;
  op->run = stamp_run_;
  op->clone = stamp_clone_;
  pthread_mutex_lock(&lock_);
  if (s->cap) { /* it began capturing meanwhile: the capture code's case after all */
    pthread_mutex_unlock(&lock_);
    cuda_emu_op_free(op);
    cuda_emu_capture_record(event, s);
    return cudaSuccess;
  }
  cuda_emu_event_forget(event);
  *st = (struct stamp_){event, ++event->gen};
  event->recorded = 1;
  event->stamped = 0;
  event->pending++;
  event->s = s;
  event->seq = s->enqueued + 1;
  give_(s, op, &event->vc);
  pthread_mutex_unlock(&lock_);
  return cudaSuccess;
}

static cudaError_t wait_event_(cudaStream_t stream, cudaEvent_t event, unsigned int flags,
                               int ptds) {
  cuda_emu_enter("cudaStreamWaitEvent");
  require_event_(event);
  if (flags != 0)
    return cuda_emu_error(cudaErrorInvalidValue);
  struct CUstream_st *s = cuda_emu_stream(stream, ptds);
  if (cuda_emu_capture_wait(s, event))
    return cudaSuccess;
  struct emu_op *op = cuda_emu_op_new(EMU_OP_MARK, "cudaStreamWaitEvent");
  pthread_mutex_lock(&lock_);
  if (event->recorded) { /* an event never recorded is no wait at all */
    dep_(op, event->s, event->seq);
    vc_copy(&op->join, &event->vc);
  }
  give_(s, op, NULL);
  pthread_mutex_unlock(&lock_);
  return cudaSuccess;
}

static void captured_event_(const char *api, cudaEvent_t event) {
  if (cuda_emu_event_captured(event))
    cuda_emu_fail(NULL, "%s of an event last recorded in a stream capture: it stands for graph "
                        "nodes, not for work (cudaErrorCapturedEvent on a device)", api);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  cuda_emu_enter("cudaEventSynchronize");
  require_event_(event);
  captured_event_("cudaEventSynchronize", event);
  cuda_emu_capture_guard("cudaEventSynchronize");
  pthread_mutex_lock(&lock_);
  if (event->recorded) {
    wait_seq_(event->s, event->seq);
    vc_join(san_host(), &event->vc);
  }
  pthread_mutex_unlock(&lock_);
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  cuda_emu_enter("cudaEventQuery");
  require_event_(event);
  captured_event_("cudaEventQuery", event);
  pthread_mutex_lock(&lock_);
  int done = !event->recorded || event->s->done >= event->seq;
  if (done && event->recorded)
    vc_join(san_host(), &event->vc);
  pthread_mutex_unlock(&lock_);
  return done ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  cuda_emu_enter("cudaEventElapsedTime");
  require_event_(start);
  require_event_(end);
  if (!ms)
    return cuda_emu_error(cudaErrorInvalidValue);
  pthread_mutex_lock(&lock_);
  int timing = !((start->flags | end->flags) & cudaEventDisableTiming);
  int recorded = start->recorded && end->recorded;
  int done = recorded && start->stamped && end->stamped;
  double t0 = start->seconds, t1 = end->seconds;
  pthread_mutex_unlock(&lock_);
  if (!timing || !recorded)
    return cuda_emu_error(cudaErrorInvalidResourceHandle);
  if (!done)
    return cuda_emu_error(cudaErrorNotReady);
  *ms = (float)((t1 - t0) * 1e3);
  return cudaSuccess;
}

/* ---- the NULL-stream twins ---- */

static cudaError_t sync_api_(cudaStream_t stream, int ptds) {
  return sync_("cudaStreamSynchronize", stream, ptds);
}
CUDA_EMU_TWINS(cudaError_t, cudaStreamSynchronize, sync_api_, (cudaStream_t stream), stream)
CUDA_EMU_TWINS(cudaError_t, cudaStreamQuery, query_, (cudaStream_t stream), stream)
CUDA_EMU_TWINS(cudaError_t, cudaEventRecord, record_, (cudaEvent_t event, cudaStream_t stream),
               event, stream)
CUDA_EMU_TWINS(cudaError_t, cudaStreamWaitEvent, wait_event_,
               (cudaStream_t stream, cudaEvent_t event, unsigned int flags), stream, event, flags)
