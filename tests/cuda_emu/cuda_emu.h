/* What the CUDA emulation's runtime (runtime.c) lends its cuBLAS (cublas.c) and NCCL (nccl.c)
 * halves: entering an API call, the allocation table's checks and the loud failure. */
#ifndef FOX_CUDA_EMU_H
#define FOX_CUDA_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_runtime.h"

/* The emulation's tables keep addresses complemented, so that LeakSanitizer does not take them
 * for references: device memory or a handle that the program never frees is then a leak report
 * with its cudaMalloc (or create) stack, as forgotten host memory is. */
static inline uintptr_t cuda_emu_hide(const void *p) { return ~(uintptr_t)p; }

/* Starts an API call on this thread: takes the call site recorded by the header's macro and
 * aborts when the thread's last kernel launch went unchecked (STYLE.md: every launch is
 * followed by cudaCheckLaunch). */
void cuda_emu_enter(const char *api);
/* Prints "cuda-emu: FILE:LINE: API: message" and, when ptr is not NULL, the allocation nearest
 * to it, to stderr; then abort(). */
void cuda_emu_fail(const void *ptr, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));
/* Prints "cuda-emu: FILE:LINE: API: message" to stderr and goes on: for calls that fail the
 * way the real library's do (a status or error code) and deserve their reason in the log. */
void cuda_emu_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1 when p lies inside a live device allocation. */
int cuda_emu_is_device(const void *p);
/* Abort unless [p, p + bytes) lies inside one live device allocation; `what` names the
 * argument in the message. */
void cuda_emu_require_device(const char *what, const void *p, size_t bytes);
/* Abort when p lies inside device memory (a host array was expected). */
void cuda_emu_require_host(const char *what, const void *p);
/* Abort unless s is NULL, cudaStreamLegacy, cudaStreamPerThread or a live stream. */
void cuda_emu_require_stream(cudaStream_t s);

#endif
