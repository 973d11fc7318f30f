// TESSERA_HD marks functions compiled for both the host and the device: plain inline
// functions in the binary, __host__ __device__ under nvcc and NVRTC. Include-free, so the
// headers built on it can be embedded in the NVRTC source (src/function/embed_core.cmake).
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TESSERA_HD __host__ __device__
// A rarely taken or heavy helper (128-bit conversions) called, not inlined, in the
// generated kernels: its code is generated once a kernel instead of once per item a thread
// and call site, which is most of NVVM's and ptxas's time for such kernels. Inline on the host.
#define TESSERA_HD_OUTLINE __host__ __device__ __noinline__
#else
#define TESSERA_HD
#define TESSERA_HD_OUTLINE
#endif
