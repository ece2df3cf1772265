/* Stream capture and graphs for the CUDA emulation. Between cudaStreamBeginCapture and
 * cudaStreamEndCapture an op given to a capturing stream becomes a graph node instead of
 * running, after the nodes its stream last added (its frontier); an event recorded there
 * stands for that frontier, and a stream that waits for it joins the capture (fork) until the
 * origin waits for an event of its own (join). Nodes carry capture clocks, so that two nodes
 * of forked streams that touch the same memory without an edge between them are a race, found
 * when the capture ends. A graph launch is one op on its stream: it runs the nodes in a random
 * order that respects the edges, after the previous launch of the same graph. While a capture
 * is on, what would not be in the graph (a synchronisation, an allocation, a free: the
 * "potentially unsafe" calls) is refused by the capture mode's rules, and an op on the legacy
 * stream that would wait for a capturing stream aborts; so does a wait for an event recorded
 * outside the capture (the graph would not hold it). */
#define _POSIX_C_SOURCE 200809L
#define CUDA_EMU_IMPL

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_emu.h"

struct node_ {
  struct emu_op *op;
  int *preds, npreds;
  int cs;            /* the capture stream that added it */
  uint64_t cseq;     /* its place there */
  struct vclock cvc; /* the capture clock it carries */
};

struct CUgraph_st {
  struct node_ *nodes;
  int n, cap;
  const char *file; /* where its capture began */
  int line;
};

struct cstream_ {
  struct CUstream_st *s;
  int *frontier, nf;
  struct vclock cvc;
  uint64_t seq;
};

struct emu_capture {
  int ended; /* kept after its end: events recorded in it still point here */
  struct CUgraph_st *g;
  enum cudaStreamCaptureMode mode;
  pthread_t owner;
  const char *file;
  int line;
  struct cstream_ *ss;
  int nss;
};

struct CUgraphExec_st {
  struct node_ *nodes;
  int n;
  struct emu_access *acc;
  int nacc;
  int refs, destroyed;
  struct CUstream_st *last_s; /* the previous launch: the next one follows it */
  uint64_t last_seq;
  struct vclock last_vc;
  const char *file;
  int line;
  uint64_t rng;
};

static struct emu_capture *active_[64];
static int n_active_;
static struct emu_capture **ended_;
static int n_ended_;
static _Thread_local enum cudaStreamCaptureMode thread_mode_ = cudaStreamCaptureModeGlobal;
/* An executable graph's references: its launches (queued or captured) and the program's
 * handle. Their own lock: a launch's op may be freed under the engine's. */
static pthread_mutex_t refs_lock_ = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t execs_[4096]; /* cuda_emu_hide(exec) of the live ones */
static int n_execs_;
static uintptr_t graphs_[4096];
static int n_graphs_;

static void *xmalloc_(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p)
    cuda_emu_die("out of host memory for a graph");
  return p;
}

static int *copy_ints_(const int *a, int n) {
  int *b = xmalloc_((size_t)n * sizeof *b);
  if (n)
    memcpy(b, a, (size_t)n * sizeof *b);
  return b;
}

static int registered_(uintptr_t *tab, int n, const void *p) {
  for (int i = 0; i < n; i++)
    if (tab[i] == cuda_emu_hide(p))
      return 1;
  return 0;
}

static void unregister_(uintptr_t *tab, int *n, const void *p) {
  for (int i = 0; i < *n; i++)
    if (tab[i] == cuda_emu_hide(p)) {
      tab[i] = tab[--*n];
      return;
    }
}

/* ---- the capture mode's rules ---- */

void cuda_emu_capture_guard(const char *api) {
  if (thread_mode_ == cudaStreamCaptureModeRelaxed)
    return;
  cuda_emu_lock();
  const struct emu_capture *bad = NULL;
  for (int i = 0; i < n_active_ && !bad; i++) {
    const struct emu_capture *c = active_[i];
    int mine = pthread_equal(c->owner, pthread_self());
    if ((mine && c->mode != cudaStreamCaptureModeRelaxed) ||
        (!mine && c->mode == cudaStreamCaptureModeGlobal &&
         thread_mode_ == cudaStreamCaptureModeGlobal))
      bad = c;
  }
  if (!bad) {
    cuda_emu_unlock();
    return;
  }
  char what[160];
  snprintf(what, sizeof what, "%s", bad->ss[0].s->label);
  const char *file = bad->file;
  int line = bad->line, mine = pthread_equal(bad->owner, pthread_self());
  const char *mode = bad->mode == cudaStreamCaptureModeGlobal ? "global" : "thread-local";
  cuda_emu_unlock();
  cuda_emu_fail(NULL, "%s during the stream capture of %s begun at %s:%d (mode %s%s): a "
                      "potentially unsafe call, which the graph would not hold "
                      "(cudaErrorStreamCaptureUnsupported on a device, and the capture is "
                      "invalidated)", api, what, file ? file : "?", line, mode,
                mine ? "" : ", in another thread");
}

void cuda_emu_capture_legacy_guard(void) {
  for (int i = 0; i < n_active_; i++)
    for (int k = 0; k < active_[i]->nss; k++) {
      const struct CUstream_st *s = active_[i]->ss[k].s;
      if (!(s->flags & cudaStreamNonBlocking)) {
        char what[160];
        snprintf(what, sizeof what, "%s", s->label);
        cuda_emu_unlock();
        cuda_emu_fail(NULL, "an op on the legacy default stream would wait for %s, which is "
                            "being captured into a graph (cudaErrorStreamCaptureImplicit on a "
                            "device)", what);
      }
    }
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode) {
  cuda_emu_enter("cudaThreadExchangeStreamCaptureMode");
  if (!mode || (unsigned)*mode > cudaStreamCaptureModeRelaxed)
    return cuda_emu_error(cudaErrorInvalidValue);
  enum cudaStreamCaptureMode old = thread_mode_;
  thread_mode_ = *mode;
  *mode = old;
  return cudaSuccess;
}

/* ---- capturing ---- */

static struct cstream_ *cstream_(struct emu_capture *c, struct CUstream_st *s) {
  return &c->ss[s->cap_index];
}

static int join_stream_(struct emu_capture *c, struct CUstream_st *s) {
  struct cstream_ *grown = realloc(c->ss, (size_t)(c->nss + 1) * sizeof *grown);
  if (!grown)
    cuda_emu_die("out of host memory for a capture");
  c->ss = grown;
  c->ss[c->nss] = (struct cstream_){s, NULL, 0, {0}, 0};
  s->cap = c;
  s->cap_index = c->nss;
  return c->nss++;
}

static cudaError_t begin_(cudaStream_t stream, enum cudaStreamCaptureMode mode, int ptds) {
  cuda_emu_enter("cudaStreamBeginCapture");
  if ((unsigned)mode > cudaStreamCaptureModeRelaxed)
    return cuda_emu_error(cudaErrorInvalidValue);
  struct CUstream_st *s = cuda_emu_stream(stream, ptds);
  if (s->kind == EMU_STREAM_LEGACY) {
    cuda_emu_note("the legacy default stream cannot be captured");
    return cuda_emu_error(cudaErrorStreamCaptureUnsupported);
  }
  struct emu_capture *c = calloc(1, sizeof *c);
  struct CUgraph_st *g = calloc(1, sizeof *g);
  if (!c || !g)
    cuda_emu_die("out of host memory for a capture");
  c->g = g;
  c->mode = mode;
  c->owner = pthread_self();
  c->file = g->file = cuda_emu_call_file();
  c->line = g->line = cuda_emu_call_line();
  cuda_emu_lock();
  if (s->cap || n_active_ == (int)(sizeof active_ / sizeof *active_)) {
    int busy = s->cap != NULL;
    cuda_emu_unlock();
    free(c), free(g);
    if (busy)
      cuda_emu_note("%s is being captured already", s->label);
    return cuda_emu_error(busy ? cudaErrorIllegalState : cudaErrorMemoryAllocation);
  }
  join_stream_(c, s);
  active_[n_active_++] = c;
  cuda_emu_unlock();
  return cudaSuccess;
}

void cuda_emu_capture_add(struct emu_capture *c, struct CUstream_st *s, struct emu_op *op) {
  if (op->ctx && !op->clone)
    cuda_emu_fail(NULL, "%s cannot be captured into a graph", op->name);
  cuda_emu_lock();
  struct CUgraph_st *g = c->g;
  struct cstream_ *cs = cstream_(c, s);
  if (g->n == g->cap) {
    g->cap = g->cap ? 2 * g->cap : 64;
    struct node_ *grown = realloc(g->nodes, (size_t)g->cap * sizeof *grown);
    if (!grown)
      cuda_emu_die("out of host memory for a graph");
    g->nodes = grown;
  }
  struct node_ *nd = &g->nodes[g->n];
  *nd = (struct node_){op, copy_ints_(cs->frontier, cs->nf), cs->nf, s->cap_index, ++cs->seq,
                       {0}};
  vc_set(&cs->cvc, s->cap_index, cs->seq);
  vc_copy(&nd->cvc, &cs->cvc);
  free(cs->frontier);
  cs->frontier = copy_ints_(&g->n, 1);
  cs->nf = 1;
  g->n++;
  cuda_emu_unlock();
}

int cuda_emu_capture_record(cudaEvent_t ev, struct CUstream_st *s) {
  cuda_emu_lock();
  struct emu_capture *c = s->cap;
  if (c) {
    struct cstream_ *cs = cstream_(c, s);
    cuda_emu_event_forget(ev);
    ev->cap = c;
    ev->frontier = copy_ints_(cs->frontier, cs->nf);
    ev->nfrontier = cs->nf;
    vc_copy(&ev->cvc, &cs->cvc);
  }
  cuda_emu_unlock();
  return c != NULL;
}

int cuda_emu_capture_wait(struct CUstream_st *s, cudaEvent_t ev) {
  cuda_emu_lock();
  struct emu_capture *c = ev->cap;
  if (!c) {
    int outside = s->cap && ev->recorded;
    char what[160];
    snprintf(what, sizeof what, "%s", s->label);
    cuda_emu_unlock();
    if (outside)
      cuda_emu_fail(NULL, "%s, being captured, waits for an event recorded outside the capture: "
                          "the graph would not hold that dependency "
                          "(cudaErrorStreamCaptureIsolation on a device)", what);
    return s->cap != NULL; /* a capturing stream's wait for nothing is nothing */
  }
  if (c->ended || (s->cap && s->cap != c)) {
    char what[160];
    snprintf(what, sizeof what, "%s", s->label);
    cuda_emu_unlock();
    cuda_emu_fail(NULL, "%s waits for an event recorded in %s: it stands for graph nodes, not "
                        "for work", what, c->ended ? "a capture that has ended"
                                                   : "another capture (captures cannot merge)");
  }
  if (!s->cap)
    join_stream_(c, s); /* a fork: s now adds its nodes to c's graph */
  struct cstream_ *cs = cstream_(c, s);
  int *merged = xmalloc_((size_t)(cs->nf + ev->nfrontier) * sizeof *merged), n = 0;
  for (int i = 0; i < cs->nf; i++)
    merged[n++] = cs->frontier[i];
  for (int i = 0; i < ev->nfrontier; i++) {
    int dup = 0;
    for (int j = 0; j < cs->nf; j++)
      dup |= cs->frontier[j] == ev->frontier[i];
    if (!dup)
      merged[n++] = ev->frontier[i];
  }
  free(cs->frontier);
  cs->frontier = merged;
  cs->nf = n;
  vc_join(&cs->cvc, &ev->cvc);
  cuda_emu_unlock();
  return 1;
}

int cuda_emu_event_captured(cudaEvent_t ev) { return ev->cap != NULL; }

void cuda_emu_event_forget(cudaEvent_t ev) {
  ev->cap = NULL;
  free(ev->frontier);
  ev->frontier = NULL;
  ev->nfrontier = 0;
  vc_free(&ev->cvc);
}

/* Two nodes of different capture streams that touch overlapping memory, one writing, with no
 * path between them: a race inside the graph (lock held). */
static void graph_races_(const struct emu_capture *c) {
  const struct CUgraph_st *g = c->g;
  if (c->nss < 2)
    return;
  for (int a = 0; a < g->n; a++)
    for (int b = a + 1; b < g->n; b++) {
      const struct node_ *x = &g->nodes[a], *y = &g->nodes[b];
      if (x->cs == y->cs || vc_get(&y->cvc, x->cs) >= x->cseq ||
          vc_get(&x->cvc, y->cs) >= y->cseq)
        continue;
      for (int i = 0; i < x->op->nacc; i++)
        for (int j = 0; j < y->op->nacc; j++) {
          const struct emu_access *p = &x->op->acc[i], *q = &y->op->acc[j];
          if (p->lo < q->hi && q->lo < p->hi && (p->write || q->write)) {
            cuda_emu_unlock();
            cuda_emu_fail(NULL, "sanitizer: a race inside the graph captured from %s:%d: %s %s "
                                "(given at %s:%d on %s) and %s %s (given at %s:%d on %s) touch "
                                "%p .. +%zu bytes with no edge between them: make one stream "
                                "wait for an event recorded after the other's node",
                          g->file ? g->file : "?", g->line, p->write ? "write by" : "read by",
                          x->op->name, x->op->file ? x->op->file : "?", x->op->line,
                          c->ss[x->cs].s->label, q->write ? "write by" : "read by",
                          y->op->name, y->op->file ? y->op->file : "?", y->op->line,
                          c->ss[y->cs].s->label, (void *)(p->lo > q->lo ? p->lo : q->lo),
                          (size_t)((p->hi < q->hi ? p->hi : q->hi) -
                                   (p->lo > q->lo ? p->lo : q->lo)));
          }
        }
    }
}

/* The streams go back to running what they are given (lock held). */
static void capture_end_(struct emu_capture *c) {
  for (int i = 0; i < c->nss; i++) {
    c->ss[i].s->cap = NULL;
    free(c->ss[i].frontier);
    vc_free(&c->ss[i].cvc);
  }
  free(c->ss);
  c->ss = NULL;
  c->nss = 0;
  c->ended = 1;
  struct emu_capture **grown = realloc(ended_, (size_t)(n_ended_ + 1) * sizeof *grown);
  if (!grown)
    cuda_emu_die("out of host memory for a capture");
  ended_ = grown;
  ended_[n_ended_++] = c;
}

static cudaError_t end_(cudaStream_t stream, cudaGraph_t *graph, int ptds) {
  cuda_emu_enter("cudaStreamEndCapture");
  if (!graph)
    return cuda_emu_error(cudaErrorInvalidValue);
  struct CUstream_st *s = cuda_emu_stream(stream, ptds);
  cuda_emu_lock();
  struct emu_capture *c = s->cap;
  if (!c || c->ss[0].s != s) {
    cuda_emu_unlock();
    cuda_emu_note("%s is not the origin of a capture", s->label);
    return cuda_emu_error(cudaErrorIllegalState);
  }
  if (c->mode != cudaStreamCaptureModeRelaxed && !pthread_equal(c->owner, pthread_self())) {
    cuda_emu_unlock();
    cuda_emu_note("the capture began in another thread (mode not relaxed)");
    return cuda_emu_error(cudaErrorStreamCaptureWrongThread);
  }
  for (int i = 1; i < c->nss; i++)
    if (vc_get(&c->ss[0].cvc, i) < c->ss[i].seq) {
      char what[160];
      snprintf(what, sizeof what, "%s", c->ss[i].s->label);
      cuda_emu_unlock();
      cuda_emu_fail(NULL, "the capture of %s ends while %s, which joined it, has nodes the "
                          "origin never waited for (cudaErrorStreamCaptureUnjoined on a device): "
                          "record an event on it and make the origin wait for that",
                    s->label, what);
    }
  graph_races_(c);
  for (int i = 0; i < n_active_; i++)
    if (active_[i] == c) {
      active_[i] = active_[--n_active_];
      break;
    }
  *graph = c->g;
  if (n_graphs_ < (int)(sizeof graphs_ / sizeof *graphs_))
    graphs_[n_graphs_++] = cuda_emu_hide(c->g);
  capture_end_(c);
  cuda_emu_unlock();
  return cudaSuccess;
}

static cudaError_t is_capturing_(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                 int ptds) {
  cuda_emu_enter("cudaStreamIsCapturing");
  if (!status)
    return cuda_emu_error(cudaErrorInvalidValue);
  struct CUstream_st *s = cuda_emu_stream(stream, ptds);
  *status = s->cap ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

static void nodes_free_(struct node_ *nodes, int n) {
  for (int i = 0; i < n; i++) {
    cuda_emu_op_free(nodes[i].op);
    free(nodes[i].preds);
    vc_free(&nodes[i].cvc);
  }
  free(nodes);
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  cuda_emu_enter("cudaGraphDestroy");
  cuda_emu_lock();
  int live = graph && registered_(graphs_, n_graphs_, graph);
  if (live)
    unregister_(graphs_, &n_graphs_, graph);
  cuda_emu_unlock();
  if (!live)
    cuda_emu_fail(NULL, "%p is not a live graph (destroyed, or never made)", (void *)graph);
  nodes_free_(graph->nodes, graph->n);
  free(graph);
  return cudaSuccess;
}

/* ---- executable graphs ---- */

/* The accesses of all nodes, one per (range, kind) met first, for the launch's check. */
static void union_(struct CUgraphExec_st *x) {
  int cap = 0;
  for (int i = 0; i < x->n; i++)
    for (int k = 0; k < x->nodes[i].op->nacc; k++) {
      const struct emu_op *op = x->nodes[i].op;
      const struct emu_access *a = &op->acc[k];
      int j = 0;
      for (; j < x->nacc; j++)
        if (x->acc[j].lo == a->lo && x->acc[j].hi == a->hi && x->acc[j].write >= a->write)
          break;
      if (j < x->nacc)
        continue;
      if (x->nacc == cap) {
        cap = cap ? 2 * cap : 16;
        struct emu_access *grown = realloc(x->acc, (size_t)cap * sizeof *grown);
        if (!grown)
          cuda_emu_die("out of host memory for a graph");
        x->acc = grown;
      }
      x->acc[x->nacc] = *a;
      x->acc[x->nacc].node = op->name;
      x->acc[x->nacc].node_file = op->file;
      x->acc[x->nacc].node_line = op->line;
      x->nacc++;
    }
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                 unsigned long long flags) {
  cuda_emu_enter("cudaGraphInstantiate");
  if (!exec || flags != 0)
    return cuda_emu_error(cudaErrorInvalidValue);
  cuda_emu_lock();
  int live = graph && registered_(graphs_, n_graphs_, graph);
  cuda_emu_unlock();
  if (!live)
    cuda_emu_fail(NULL, "%p is not a live graph (destroyed, or never made)", (void *)graph);
  struct CUgraphExec_st *x = calloc(1, sizeof *x);
  if (!x)
    return cuda_emu_error(cudaErrorMemoryAllocation);
  x->n = graph->n;
  x->nodes = xmalloc_((size_t)graph->n * sizeof *x->nodes);
  for (int i = 0; i < graph->n; i++) {
    const struct node_ *g = &graph->nodes[i];
    x->nodes[i] = (struct node_){cuda_emu_op_clone(g->op), copy_ints_(g->preds, g->npreds),
                                 g->npreds, g->cs, g->cseq, {0}};
  }
  x->file = graph->file;
  x->line = graph->line;
  x->rng = cuda_emu_seed() ^ (uintptr_t)x;
  union_(x);
  cuda_emu_lock();
  if (n_execs_ == (int)(sizeof execs_ / sizeof *execs_)) {
    cuda_emu_unlock();
    nodes_free_(x->nodes, x->n);
    free(x->acc);
    free(x);
    return cuda_emu_error(cudaErrorMemoryAllocation);
  }
  execs_[n_execs_++] = cuda_emu_hide(x);
  cuda_emu_unlock();
  *exec = x;
  return cudaSuccess;
}

static void exec_free_(struct CUgraphExec_st *x) {
  nodes_free_(x->nodes, x->n);
  free(x->acc);
  vc_free(&x->last_vc);
  free(x);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  cuda_emu_enter("cudaGraphExecDestroy");
  cuda_emu_lock();
  int live = exec && registered_(execs_, n_execs_, exec);
  if (live)
    unregister_(execs_, &n_execs_, exec);
  cuda_emu_unlock();
  int now = 0;
  if (live) {
    pthread_mutex_lock(&refs_lock_);
    exec->destroyed = 1;
    now = exec->refs == 0;
    pthread_mutex_unlock(&refs_lock_);
  }
  if (!live)
    cuda_emu_fail(NULL, "%p is not a live executable graph (destroyed, or never made)",
                  (void *)exec);
  if (now) /* as CUDA: a launch in flight finishes first */
    exec_free_(exec);
  return cudaSuccess;
}

static uint64_t next_(uint64_t *s) {
  uint64_t x = (*s += 0x9e3779b97f4a7c15ULL);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* The nodes in a random order that keeps every edge: a device runs unordered nodes as it
 * likes. Runs on the launch's stream. */
static void launch_run_(struct emu_op *op) {
  struct CUgraphExec_st *x = op->ctx;
  int n = x->n, *left = xmalloc_((size_t)n * sizeof *left), *ready = xmalloc_((size_t)n * sizeof *ready);
  int nready = 0;
  for (int i = 0; i < n; i++) {
    left[i] = x->nodes[i].npreds;
    if (!left[i])
      ready[nready++] = i;
  }
  for (int done = 0; done < n; done++) {
    int k = (int)(next_(&x->rng) % (uint64_t)nready), i = ready[k];
    ready[k] = ready[--nready];
    struct emu_op *node = x->nodes[i].op;
    if (node->run)
      node->run(node);
    if (node->kernel)
      cuda_emu_profile_ran(node, 1);
    for (int j = i + 1; j < n; j++) /* nodes only ever follow earlier ones */
      for (int p = 0; p < x->nodes[j].npreds; p++)
        if (x->nodes[j].preds[p] == i && --left[j] == 0)
          ready[nready++] = j;
  }
  free(left);
  free(ready);
}

static void launch_drop_(void *ctx) {
  struct CUgraphExec_st *x = ctx;
  pthread_mutex_lock(&refs_lock_);
  int gone = --x->refs == 0 && x->destroyed;
  pthread_mutex_unlock(&refs_lock_);
  if (gone)
    exec_free_(x);
}

static void *launch_clone_(const void *ctx) {
  struct CUgraphExec_st *x = (struct CUgraphExec_st *)ctx;
  pthread_mutex_lock(&refs_lock_);
  x->refs++;
  pthread_mutex_unlock(&refs_lock_);
  return x;
}

static void launch_placed_(struct emu_op *op) {
  struct CUgraphExec_st *x = op->ctx;
  x->last_s = op->stream;
  x->last_seq = op->seq;
  vc_copy(&x->last_vc, &op->stream->vc);
}

/* A node's memory must be the allocation it was captured with: freed since (or freed and its
 * address given to another allocation), a replay would write where nothing of the graph's
 * lives. */
static void still_there_(const struct CUgraphExec_st *x) {
  for (int i = 0; i < x->nacc; i++) {
    const struct emu_access *a = &x->acc[i];
    struct emu_region r;
    if (cuda_emu_region_of((const void *)a->lo, 1, &r) && r.serial == a->serial &&
        a->hi <= (uintptr_t)r.base + r.size)
      continue;
    cuda_emu_fail((const void *)a->lo, "the graph captured at %s:%d: its node %s given at %s:%d "
                                       "uses memory (%s) freed since the capture: a replay "
                                       "would %s memory that is no longer the graph's",
                  x->file ? x->file : "?", x->line, a->node, a->node_file ? a->node_file : "?",
                  a->node_line, a->arg ? a->arg : "an argument", a->write ? "write" : "read");
  }
}

static cudaError_t launch_(cudaGraphExec_t exec, cudaStream_t stream, int ptds) {
  cuda_emu_enter("cudaGraphLaunch");
  cuda_emu_lock();
  int live = exec && registered_(execs_, n_execs_, exec);
  cuda_emu_unlock();
  if (!live)
    cuda_emu_fail(NULL, "%p is not a live executable graph (destroyed, or never made)",
                  (void *)exec);
  still_there_(exec);
  struct emu_op *op = cuda_emu_op_new(EMU_OP_GRAPH, "the graph captured at %s:%d (%d nodes)",
                                      exec->file ? exec->file : "?", exec->line, exec->n);
  op->ctx = launch_clone_(exec);
  op->run = launch_run_;
  op->drop = launch_drop_;
  op->clone = launch_clone_;
  op->on_submit = launch_placed_;
  op->acc = xmalloc_((size_t)exec->nacc * sizeof *op->acc);
  if (exec->nacc)
    memcpy(op->acc, exec->acc, (size_t)exec->nacc * sizeof *op->acc);
  op->nacc = op->cap_acc = exec->nacc;
  cuda_emu_lock();
  if (exec->last_s) { /* each launch follows the previous one, whatever its stream */
    op->deps = xmalloc_(sizeof *op->deps);
    op->deps[0] = (struct emu_dep){exec->last_s, exec->last_seq};
    op->ndeps = op->cap_deps = 1;
    vc_copy(&op->join, &exec->last_vc);
  }
  cuda_emu_unlock();
  cuda_emu_submit(stream, ptds, op, 0);
  return cudaSuccess;
}

CUDA_EMU_TWINS(cudaError_t, cudaStreamBeginCapture, begin_,
       (cudaStream_t stream, enum cudaStreamCaptureMode mode), stream, mode)
CUDA_EMU_TWINS(cudaError_t, cudaStreamEndCapture, end_, (cudaStream_t stream, cudaGraph_t *graph),
       stream, graph)
CUDA_EMU_TWINS(cudaError_t, cudaStreamIsCapturing, is_capturing_,
       (cudaStream_t stream, enum cudaStreamCaptureStatus *status), stream, status)
CUDA_EMU_TWINS(cudaError_t, cudaGraphLaunch, launch_, (cudaGraphExec_t exec, cudaStream_t stream), exec,
       stream)
