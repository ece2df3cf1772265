/* FOX_LAUNCH(kernel, grid, block, shmem, stream, args...): every kernel launch in foxopt. Under
 * nvcc it is kernel<<<grid, block, shmem, stream>>>(args...); in the host emulation
 * (FOXOPT_CUDA_EMU, kernels/cuda_emu/) the same sources compile as C++ and it becomes a checked
 * loop over the grid. Like <<<...>>>, it is followed by cudaCheckLaunch. */
#ifndef FOX_LAUNCH_H
#define FOX_LAUNCH_H

#include <cuda_runtime.h>

#if defined(__CUDACC__)
#define FOX_LAUNCH(kernel, grid, block, shmem, stream, ...)                                     \
  kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)
#elif defined(FOX_CUDA_EMU)
#define FOX_LAUNCH(kernel, grid, block, shmem, stream, ...)                                     \
  cuda_emu::launcher(kernel, #kernel, __FILE__, __LINE__, (grid), (block), (shmem),             \
                     (stream))(__VA_ARGS__)
#else
#error "fox_launch.h: neither nvcc nor the CUDA emulation (kernels/cuda_emu) is compiling this"
#endif

#endif
