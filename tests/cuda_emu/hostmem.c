/* Page-locked host memory for the CUDA emulation (cudaMallocHost, cudaHostAlloc,
 * cudaFreeHost) and the host guard: a copy to or from such memory is truly asynchronous, so
 * while it is pending the host must not touch its destination, nor write its source. Each
 * allocation is a memfd mapped twice: the program's view, whose pages are protected while a
 * copy holds them (PROT_NONE under a pending destination, PROT_READ under a pending source),
 * and the emulation's own alias, never protected, through which the copy itself runs. A host
 * access to a protected page lands in the SIGSEGV handler below, which names the pending copy
 * and aborts. A page is protected only when its every byte of the allocation lies under holds
 * (PROT_NONE when each byte is some pending copy's destination, PROT_READ otherwise), so a
 * fault is always a hazard and the host's legal accesses (and system calls such as read(2))
 * to the rest of a page never fault: a copy of a whole small buffer is guarded, a copy of part
 * of a page that the host also uses is not. */
#define _GNU_SOURCE
#define CUDA_EMU_IMPL

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "cuda_emu.h"

struct hold_ {
  struct hold_ *next;
  uintptr_t lo, hi;
  int write;
  char name[128];
  const char *file;
  int line;
};

struct pinned_ {
  char *user, *alias;
  size_t size, mapped;
  uint64_t serial;
  const char *file;
  int line;
  struct hold_ *holds;
  unsigned char *prot; /* per page: its protection now (PROT_ bits) */
};

static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;

void cuda_emu_hostmem_fork(int phase) { cuda_emu_fork_lock(&lock_, phase); }
static struct pinned_ *table_[1024];
static int n_table_;
static struct sigaction old_segv_;
static int installed_;

static size_t page_(void) {
  static size_t p;
  if (!p)
    p = (size_t)sysconf(_SC_PAGESIZE);
  return p;
}

static struct pinned_ *find_(const void *p) {
  for (int i = 0; i < n_table_; i++) {
    struct pinned_ *a = table_[i];
    if ((uintptr_t)p >= (uintptr_t)a->user && (uintptr_t)p < (uintptr_t)a->user + a->size)
      return a;
  }
  return NULL;
}

/* Whether holds (only write holds, with writes) cover [lo, hi) without a gap (lock held). */
static int covered_(const struct pinned_ *a, uintptr_t lo, uintptr_t hi, int writes) {
  while (lo < hi) {
    uintptr_t reach = lo;
    for (const struct hold_ *h = a->holds; h; h = h->next)
      if ((h->write || !writes) && h->lo <= lo && lo < h->hi && h->hi > reach)
        reach = h->hi;
    if (reach == lo)
      return 0;
    lo = reach;
  }
  return 1;
}

/* Each page's protection from the holds on it (lock held): the allocation's bytes on the page
 * all held, or none of the page guarded. */
static void protect_(struct pinned_ *a) {
  size_t pg = page_(), pages = a->mapped / pg;
  uintptr_t end = (uintptr_t)a->user + a->size;
  for (size_t k = 0; k < pages; k++) {
    uintptr_t lo = (uintptr_t)a->user + k * pg, hi = lo + pg < end ? lo + pg : end;
    int prot = PROT_READ | PROT_WRITE;
    if (lo < end && a->holds && covered_(a, lo, hi, 0))
      prot = covered_(a, lo, hi, 1) ? PROT_NONE : PROT_READ;
    if (prot != a->prot[k] && mprotect((void *)lo, pg, prot) == 0)
      a->prot[k] = (unsigned char)prot;
  }
}

/* The source line of the faulting instruction, by addr2line on the object that holds it (a
 * build with debug information names FILE:LINE; otherwise the stack below is all there is). */
static void access_site_(const void *pc) {
  Dl_info info;
  if (!pc || !dladdr(pc, &info) || !info.dli_fname)
    return;
  char off[32];
  snprintf(off, sizeof off, "%#lx", (unsigned long)((const char *)pc - (const char *)info.dli_fbase));
  /* posix_spawn, not fork: no fork handlers run (the engine's would wait for its locks). */
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  char *argv[] = {"addr2line", "-f", "-C", "-i", "-e", (char *)info.dli_fname, off, NULL};
  pid_t pid;
  if (posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ) == 0)
    waitpid(pid, NULL, 0);
  posix_spawn_file_actions_destroy(&fa);
}

static void report_(const struct pinned_ *a, const struct hold_ *h, const void *addr,
                    int wrote, const void *pc) {
  char msg[1024];
  int n = snprintf(msg, sizeof msg,
                   "cuda-emu: sanitizer: the host %s %p, inside page-locked memory %p of %zu "
                   "bytes (cudaMallocHost at %s:%d) at offset %zu, while %s given at %s:%d "
                   "%s it and has not finished: synchronise with its stream (or an event "
                   "recorded after it) before the host touches that memory\n"
                   "cuda-emu:   the host's access (its function and line, then its stack):\n",
                   wrote < 0 ? "touches" : wrote ? "writes" : "reads", addr, (void *)a->user,
                   a->size, a->file, a->line, (size_t)((const char *)addr - a->user), h->name,
                   h->file ? h->file : "?", h->line, h->write ? "writes" : "reads");
  if (n > 0 && write(2, msg, (size_t)n) < 0)
    _exit(134);
  access_site_(pc);
  void *frames[32];
  int depth = backtrace(frames, 32);
  backtrace_symbols_fd(frames, depth, 2);
  signal(SIGABRT, SIG_DFL);
  abort();
}

static void chain_(int sig, siginfo_t *info, void *uc) {
  if (old_segv_.sa_flags & SA_SIGINFO && old_segv_.sa_sigaction) {
    old_segv_.sa_sigaction(sig, info, uc);
    return;
  }
  if (old_segv_.sa_handler != SIG_DFL && old_segv_.sa_handler != SIG_IGN &&
      old_segv_.sa_handler) {
    old_segv_.sa_handler(sig);
    return;
  }
  signal(SIGSEGV, SIG_DFL); /* the access faults again, and the process ends as it would */
}

static void on_segv_(int sig, siginfo_t *info, void *uc) {
  void *addr = info->si_addr;
  int locked = pthread_mutex_trylock(&lock_) == 0; /* a dying process may go without it */
  struct pinned_ *a = find_(addr);
  if (!a) {
    if (locked)
      pthread_mutex_unlock(&lock_);
    chain_(sig, info, uc);
    return;
  }
  int wrote = -1;
  const void *pc = NULL;
#if defined(__x86_64__) && defined(REG_ERR)
  wrote = (((ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
  pc = (const void *)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#endif
  for (struct hold_ *h = a->holds; h; h = h->next)
    if ((uintptr_t)addr >= h->lo && (uintptr_t)addr < h->hi && (h->write || wrote != 0)) {
      if (locked)
        pthread_mutex_unlock(&lock_); /* the report ends the process; nothing else changes */
      report_(a, h, addr, wrote, pc);
    }
  /* No hold names the access: a release changed the page before the lock was ours (the
   * access, repeated, now goes through). The page's protection is brought up to date and
   * opened if it still stands, so that a fault never loops. */
  size_t k = (size_t)((char *)addr - a->user) / page_();
  if (locked)
    protect_(a);
  if (a->prot[k] != (PROT_READ | PROT_WRITE) &&
      mprotect(a->user + k * page_(), page_(), PROT_READ | PROT_WRITE) == 0)
    a->prot[k] = PROT_READ | PROT_WRITE;
  if (locked)
    pthread_mutex_unlock(&lock_);
}

static void install_(void) {
  if (installed_)
    return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv_;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &old_segv_);
  installed_ = 1;
}

static cudaError_t alloc_(void **ptr, size_t size) {
  if (!ptr)
    return cuda_emu_error(cudaErrorInvalidValue);
  if (size == 0) {
    *ptr = NULL;
    return cudaSuccess;
  }
  size_t pg = page_(), mapped = (size + pg - 1) / pg * pg;
  int fd = memfd_create("cuda-emu-pinned", MFD_CLOEXEC);
  if (fd < 0)
    return cuda_emu_error(cudaErrorMemoryAllocation);
  struct pinned_ *a = calloc(1, sizeof *a);
  void *user = MAP_FAILED, *alias = MAP_FAILED;
  if (a && ftruncate(fd, (off_t)mapped) == 0) {
    user = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    alias = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  close(fd);
  if (a && (a->prot = malloc(mapped / pg)))
    memset(a->prot, PROT_READ | PROT_WRITE, mapped / pg);
  pthread_mutex_lock(&lock_);
  int room = n_table_ < (int)(sizeof table_ / sizeof *table_);
  if (!a || !a->prot || user == MAP_FAILED || alias == MAP_FAILED || !room) {
    pthread_mutex_unlock(&lock_);
    if (user != MAP_FAILED)
      munmap(user, mapped);
    if (alias != MAP_FAILED)
      munmap(alias, mapped);
    if (a)
      free(a->prot);
    free(a);
    if (!room)
      cuda_emu_note("more than %d page-locked allocations live at once are not emulated",
                    (int)(sizeof table_ / sizeof *table_));
    return cuda_emu_error(cudaErrorMemoryAllocation);
  }
  const char *file = cuda_emu_call_file();
  a->user = user, a->alias = alias, a->size = size, a->mapped = mapped;
  a->serial = cuda_emu_serial();
  a->file = file ? file : "?", a->line = cuda_emu_call_line();
  table_[n_table_++] = a;
  install_();
  pthread_mutex_unlock(&lock_);
  *ptr = user;
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size) {
  cuda_emu_enter("cudaMallocHost");
  cuda_emu_capture_guard("cudaMallocHost");
  return alloc_(ptr, size);
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags) {
  cuda_emu_enter("cudaHostAlloc");
  cuda_emu_capture_guard("cudaHostAlloc");
  if (flags & ~(unsigned)cudaHostAllocPortable) {
    cuda_emu_note("flags %#x: only cudaHostAllocDefault and cudaHostAllocPortable are emulated",
                  flags);
    return cuda_emu_error(cudaErrorInvalidValue);
  }
  return alloc_(ptr, size);
}

cudaError_t cudaFreeHost(void *ptr) {
  cuda_emu_enter("cudaFreeHost");
  if (!ptr)
    return cudaSuccess;
  cuda_emu_capture_guard("cudaFreeHost");
  pthread_mutex_lock(&lock_);
  struct pinned_ *a = find_(ptr);
  int at_start = a && a->user == ptr;
  pthread_mutex_unlock(&lock_);
  if (!at_start)
    cuda_emu_fail(NULL, "%p is not page-locked memory from cudaMallocHost or cudaHostAlloc%s",
                  ptr, a ? " (it lies inside one, not at its start)" : "");
  san_free(a->user, a->size, "cudaFreeHost", cuda_emu_call_file(), cuda_emu_call_line());
  pthread_mutex_lock(&lock_);
  for (int i = 0; i < n_table_; i++)
    if (table_[i] == a) {
      table_[i] = table_[--n_table_];
      break;
    }
  pthread_mutex_unlock(&lock_);
  /* Holds still pending (only without the sanitizer, which refuses the free) belong to their
   * copies, which release them. */
  munmap(a->user, a->mapped);
  munmap(a->alias, a->mapped);
  free(a->prot);
  free(a);
  return cudaSuccess;
}

int cuda_emu_is_pinned(const void *p, size_t bytes) {
  pthread_mutex_lock(&lock_);
  struct pinned_ *a = find_(p);
  int yes = a && (uintptr_t)p + bytes <= (uintptr_t)a->user + a->size;
  pthread_mutex_unlock(&lock_);
  return yes;
}

int cuda_emu_pinned_region(const void *p, struct emu_region *r) {
  pthread_mutex_lock(&lock_);
  struct pinned_ *a = find_(p);
  if (a)
    *r = (struct emu_region){a->user, a->size, a->file, a->line, 1, a->serial};
  pthread_mutex_unlock(&lock_);
  return a != NULL;
}

void *cuda_emu_pinned_alias(const void *p) {
  pthread_mutex_lock(&lock_);
  struct pinned_ *a = find_(p);
  void *q = a ? a->alias + ((const char *)p - a->user) : NULL;
  pthread_mutex_unlock(&lock_);
  return q;
}

void *cuda_emu_pinned_hold(const void *p, size_t bytes, int write, const char *op_name,
                           const char *file, int line) {
  struct hold_ *h = calloc(1, sizeof *h);
  if (!h)
    return NULL; /* no guard: the copy itself goes on */
  h->lo = (uintptr_t)p, h->hi = (uintptr_t)p + bytes, h->write = write;
  snprintf(h->name, sizeof h->name, "%s", op_name);
  h->file = file, h->line = line;
  pthread_mutex_lock(&lock_);
  struct pinned_ *a = find_(p);
  if (!a) {
    pthread_mutex_unlock(&lock_);
    free(h);
    return NULL;
  }
  h->next = a->holds;
  a->holds = h;
  protect_(a);
  pthread_mutex_unlock(&lock_);
  return h;
}

void cuda_emu_pinned_release(void *token) {
  struct hold_ *h = token;
  if (!h)
    return;
  pthread_mutex_lock(&lock_);
  struct pinned_ *a = find_((const void *)h->lo);
  if (a) {
    for (struct hold_ **pp = &a->holds; *pp; pp = &(*pp)->next)
      if (*pp == h) {
        *pp = h->next;
        break;
      }
    protect_(a);
  }
  pthread_mutex_unlock(&lock_);
  free(h);
}
