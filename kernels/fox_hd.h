/* FOX_HD marks the per-bar step functions that both the CPU loop and the CUDA kernels call. */
#ifndef FOX_HD_H
#define FOX_HD_H

#ifdef __CUDACC__
#define FOX_HD __host__ __device__
#else
#define FOX_HD
#endif

#endif
