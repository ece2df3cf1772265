/* What the CUDA emulation saw each kernel cost (FOXOPT_CUDA_EMU builds only): the count behind
 * the device-time model (tests/bench/bench_device_model.c). Each kernel, and each cuBLAS
 * routine, by name: how often it ran on its own (a launch) and as a node of a graph launch, the
 * threads it ran, and, for cuBLAS, the floating-point operations and the bytes its operands
 * span (a GEMM's 2 m n k, and its A, B and C once each). Copies and memsets are not kernels. */
#ifndef FOX_CUDA_EMU_PROFILE_H
#define FOX_CUDA_EMU_PROFILE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cuda_emu_kernel_stat {
  char name[64];
  uint64_t launches, nodes, threads;
  double flops, bytes;
};

/* Up to `max` kernels' counts since the last take (or the start), then they start again from
 * 0; returns how many kernels ran (which may exceed max). */
int cuda_emu_profile_take(struct cuda_emu_kernel_stat *out, int max);

#ifdef __cplusplus
}
#endif

#endif
