/* What the CUDA emulation's parts lend each other: the call in progress and the loud failure
 * (runtime.c), the memory tables (memory.c: device allocations; hostmem.c: page-locked host
 * memory), the work a stream is given (an op) and the engine that runs it (engine.c), the
 * stream sanitizer's clocks and records (sanitizer.c), stream capture and graphs (graph.c) and
 * the per-kernel profile (profile.c). cuBLAS (cublas.c) and NCCL (nccl.c) are built on these. */
#ifndef FOX_CUDA_EMU_H
#define FOX_CUDA_EMU_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The emulation's tables keep addresses complemented, so that LeakSanitizer does not take them
 * for references: device memory or a handle that the program never frees is then a leak report
 * with its cudaMalloc (or create) stack, as forgotten host memory is. */
static inline uintptr_t cuda_emu_hide(const void *p) { return ~(uintptr_t)p; }

/* ---- runtime.c: calls, errors, failures ---- */

/* Starts an API call on this thread: takes the call site recorded by the header's macro and
 * aborts when the thread's last kernel launch went unchecked (STYLE.md: every launch is
 * followed by cudaCheckLaunch). */
void cuda_emu_enter(const char *api);
/* The call in progress on this thread (for an op's site and for messages). */
const char *cuda_emu_call_file(void);
int cuda_emu_call_line(void);
const char *cuda_emu_call_api(void);
/* Prints "cuda-emu: FILE:LINE: API: message" and, when ptr is not NULL, the allocation nearest
 * to it, to stderr; then abort(). */
void cuda_emu_fail(const void *ptr, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));
/* Prints "cuda-emu: FILE:LINE: API: message" to stderr and goes on: for calls that fail the
 * way the real library's do (a status or error code) and deserve their reason in the log. */
void cuda_emu_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "cuda-emu: " and the lines given, then a stack trace where one can be had, then abort():
 * for failures found away from the call that caused them (a worker thread, a signal). */
void cuda_emu_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Records a launch or API error for cudaGetLastError on this thread. */
cudaError_t cuda_emu_error(cudaError_t rc);
/* FOX_CUDA_EMU_ASYNC (0: the calling thread runs each op at once), FOX_CUDA_EMU_SEED,
 * FOX_CUDA_EMU_SANITIZE (0: off), read once. */
int cuda_emu_async(void);
uint64_t cuda_emu_seed(void);
int cuda_emu_sanitize(void);

/* An API that names the NULL stream, defined three times: the plain name (ptds 0: the legacy
 * stream) and its _ptds and _ptsz twins (ptds 1: the calling thread's own), impl(args, ptds). */
#define CUDA_EMU_TWINS(ret, name, impl, params, ...)                                          \
  ret name params { return impl(__VA_ARGS__, 0); }                                            \
  ret name##_ptds params { return impl(__VA_ARGS__, 1); }                                     \
  ret name##_ptsz params { return impl(__VA_ARGS__, 1); }
/* A table's lock around fork() (phase 0: before, 1: after in the parent, 2: in the child). */
void cuda_emu_fork_lock(pthread_mutex_t *m, int phase);

/* ---- memory.c: device allocations ---- */

struct emu_region {
  char *base;
  size_t size;
  const char *file; /* the allocating call's site */
  int line;
  int pinned;      /* page-locked host memory (hostmem.c), else device memory */
  uint64_t serial; /* which allocation: an address freed and reused is another */
};

/* A new allocation's serial (memory.c and hostmem.c draw from one count). */
uint64_t cuda_emu_serial(void);

/* 1 when p lies inside a live device allocation (or, with pinned, page-locked host memory too)
 * and then its region in *r (r may be NULL). */
int cuda_emu_region_of(const void *p, int pinned, struct emu_region *r);
/* 1 when p lies inside a live device allocation. */
int cuda_emu_is_device(const void *p);
/* Abort unless [p, p + bytes) lies inside one live device allocation; `what` names the
 * argument in the message. */
void cuda_emu_require_device(const char *what, const void *p, size_t bytes);
/* Abort when p lies inside device memory (a host array was expected). */
void cuda_emu_require_host(const char *what, const void *p);
/* Where p lies relative to device memory, in words. */
void cuda_emu_describe(const void *p, char *buf, size_t n);

/* The tables' locks around fork() (0: before, 1: after in the parent, 2: in the child), called
 * by the engine's handler in its lock order. */
void cuda_emu_memory_fork(int phase);
void cuda_emu_hostmem_fork(int phase);
void cuda_emu_profile_fork(int phase);

/* ---- hostmem.c: page-locked host memory ---- */

/* 1 when [p, p + bytes) lies inside one page-locked allocation. */
int cuda_emu_is_pinned(const void *p, size_t bytes);
/* 1 when p lies inside page-locked host memory, and then its region in *r. */
int cuda_emu_pinned_region(const void *p, struct emu_region *r);
/* The address the emulation's own copies use for pinned p: the same bytes through a second
 * mapping that the host guard never protects. */
void *cuda_emu_pinned_alias(const void *p);
/* While a copy is pending, the host may not touch [p, p + bytes) (write: 1, the copy's
 * destination) or may only read it (write: 0, its source): the pages are protected and a host
 * access in the range aborts naming the copy. The hold's token releases it. */
void *cuda_emu_pinned_hold(const void *p, size_t bytes, int write, const char *op_name,
                           const char *file, int line);
void cuda_emu_pinned_release(void *token);

/* ---- engine.c: ops and streams ---- */

/* A vector clock: entry k is how far stream k's ops are known to have come. */
struct vclock {
  uint64_t *t;
  int n;
};

enum { EMU_OP_KERNEL, EMU_OP_COPY, EMU_OP_SET, EMU_OP_BLAS, EMU_OP_COLL, EMU_OP_MARK,
       EMU_OP_GRAPH };

/* One access of an op: [lo, hi) inside one region (device memory or pinned host memory). */
struct emu_access {
  uintptr_t lo, hi;
  uint64_t serial; /* the region's (emu_region.serial) when the access was made */
  int write;
  const char *arg; /* what it is to the op ("argument 2", "the destination") */
  const char *node, *node_file; /* a graph launch's: the node that made it */
  int node_line;
};

/* Work given to a stream: a kernel, a copy, a memset, a cuBLAS call, a marker (events). The
 * engine runs it after everything CUDA orders before it; the sanitizer checks its accesses
 * when it is given. */
struct emu_op {
  int kind;
  char name[128];   /* "kernel fill_kernel", "cudaMemcpyAsync (device to host)" */
  const char *file; /* the call site */
  int line;
  void (*run)(struct emu_op *op); /* NULL: nothing to do (a marker) */
  void (*drop)(void *ctx);        /* frees ctx; NULL: free() */
  void *(*clone)(const void *ctx); /* a graph node's copy; NULL: cannot be captured */
  void *ctx;
  struct emu_access *acc;
  int nacc, cap_acc;
  /* What the profile counts of it (profile.c). */
  const char *kernel; /* a kernel's (or cuBLAS routine's) name, NULL for copies and markers */
  uint64_t threads;
  double flops, bytes;
  /* More to wait for, set by the giver: the clock of what it must follow (an event's, a graph's
   * last launch) and a hook run when the op takes its place (under the engine's lock). */
  struct vclock join;
  void (*on_submit)(struct emu_op *op);
  /* The engine's. */
  struct CUstream_st *stream;
  uint64_t seq;
  struct emu_dep {
    struct CUstream_st *s;
    uint64_t seq;
  } *deps;
  int ndeps, cap_deps;
  struct emu_op *next;
};

enum { EMU_STREAM_LEGACY, EMU_STREAM_PER_THREAD, EMU_STREAM_USER };

/* A stream: its queue, how far it has run, its clock, the capture it takes part in. */
struct CUstream_st {
  int id;         /* the sanitizer's index (0: the legacy stream) */
  int kind;       /* EMU_STREAM_* */
  unsigned flags; /* cudaStreamNonBlocking */
  char label[128];
  uint64_t enqueued, done; /* ops given, ops finished (in order) */
  struct emu_op *head, *tail;
  int worker;  /* a worker thread serves it (asynchronous mode) */
  int retired; /* destroyed by the program (or its thread ended): it only drains */
  pthread_cond_t work;
  struct vclock vc;
  struct emu_capture *cap; /* the capture it takes part in, or NULL */
  int cap_index;           /* its index among that capture's streams */
  uint64_t rng;            /* the seeded delays of its worker */
};

/* An event: where it was last recorded (complete once that stream got there), the clock it
 * carries, and, recorded in a capture, the graph nodes it stands for. */
struct CUevent_st {
  unsigned flags;
  int recorded;
  struct CUstream_st *s;
  uint64_t seq;
  struct vclock vc;
  uint64_t gen;   /* which record the timestamp belongs to */
  double seconds; /* when the stream reached the record */
  int stamped;
  int pending;   /* records not yet reached */
  int destroyed; /* by the program: freed when the last pending record is reached */
  struct emu_capture *cap;
  int *frontier, nfrontier;
  struct vclock cvc;
};

/* A new op of `kind` named `name`, at the call in progress's site. */
struct emu_op *cuda_emu_op_new(int kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The op reads (write 0) or writes [p, p + bytes) of the region that holds p; bytes 0: the
 * whole region from its start (a kernel's pointer argument: where it reads is its own
 * business). p outside every region is ignored (a host array). */
void cuda_emu_op_access(struct emu_op *op, const void *p, size_t bytes, int write,
                        const char *arg);
void cuda_emu_op_free(struct emu_op *op);
/* A graph node's copy of op (its ctx cloned); NULL when op cannot be captured. */
struct emu_op *cuda_emu_op_clone(const struct emu_op *op);

/* Gives op to `stream` (NULL means the legacy stream, or with ptds the calling thread's): it
 * runs after everything CUDA orders before it, or joins the stream's capture; the engine owns
 * it from here. wait: the host waits for it and learns that it is done (a synchronous copy).
 * Aborts on a dead stream and on what a capture forbids. Returns the op's place in its stream
 * (0 when captured). */
uint64_t cuda_emu_submit(cudaStream_t stream, int ptds, struct emu_op *op, int wait);
/* The stream a handle means for the calling thread (ptds: NULL is the thread's own). */
struct CUstream_st *cuda_emu_stream(cudaStream_t stream, int ptds);
/* The host waits for everything given to s so far, and learns that it is done. */
void cuda_emu_sync_stream(struct CUstream_st *s);
/* The host waits until op (given, not waited for) has run, without learning anything else:
 * what an API that blocks for its own reasons does (the emulated NCCL). */
void cuda_emu_wait_op(struct CUstream_st *s, uint64_t seq);
/* Words for a stream: "stream 0x... (created at FILE:LINE)", "the legacy default stream". */
const char *cuda_emu_stream_label(const struct CUstream_st *s);
/* Aborts unless s is NULL, cudaStreamLegacy, cudaStreamPerThread or a live stream. */
void cuda_emu_require_stream(cudaStream_t s);
/* The engine's lock: the sanitizer and the capture code run under it. */
void cuda_emu_lock(void);
void cuda_emu_unlock(void);

/* ---- sanitizer.c: vector clocks and access records (all under the engine's lock) ---- */

uint64_t vc_get(const struct vclock *a, int id);
void vc_set(struct vclock *a, int id, uint64_t v);
void vc_join(struct vclock *a, const struct vclock *b);
void vc_copy(struct vclock *dst, const struct vclock *src);
void vc_free(struct vclock *a);
/* What the host has seen finish (synchronisations, successful queries): every op given after
 * it is ordered after all of that. */
struct vclock *san_host(void);
/* Checks op's accesses, given on the stream with sanitizer index `sid` at `seq` whose clock is
 * now `vc`, against the earlier accesses to the same memory; a conflict that nothing orders
 * aborts naming both. Then records them. */
void san_check(const struct emu_op *op, int sid, uint64_t seq, const struct vclock *vc,
               const char *stream_label);
/* cudaFree / cudaFreeHost of [base, base + size): aborts when an access to it is not known to
 * have finished; then forgets its records. */
void san_free(const char *base, size_t size, const char *api, const char *file, int line);

/* ---- graph.c: stream capture ---- */

struct emu_capture;
/* op given to stream s, which takes part in capture c: a node of its graph (owned now). */
void cuda_emu_capture_add(struct emu_capture *c, struct CUstream_st *s, struct emu_op *op);
/* Aborts when the calling thread may not make a potentially unsafe call (`api`) now: its own
 * capture is on (not relaxed), or another thread's global one while this thread's mode is
 * global. */
void cuda_emu_capture_guard(const char *api);
/* Aborts when an op on the legacy stream would wait for a capturing stream. */
void cuda_emu_capture_legacy_guard(void);
/* cudaEventRecord, cudaStreamWaitEvent on capturing streams: 1 when handled here. */
int cuda_emu_capture_record(cudaEvent_t ev, struct CUstream_st *s);
int cuda_emu_capture_wait(struct CUstream_st *s, cudaEvent_t ev);
/* An event last recorded in a capture: 1 (its queries and waits are errors outside it). */
int cuda_emu_event_captured(cudaEvent_t ev);
void cuda_emu_event_forget(cudaEvent_t ev);

/* ---- profile.c: what each kernel cost ---- */

/* An op ran (in_graph: as a node of a graph launch). */
void cuda_emu_profile_ran(const struct emu_op *op, int in_graph);

#ifdef __cplusplus
}
#endif

#endif
