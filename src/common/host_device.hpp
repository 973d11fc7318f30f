// TESSERA_HD marks functions compiled for both the host and the device: plain inline
// functions in the binary, __host__ __device__ under nvcc and NVRTC. Include-free, so the
// headers built on it can be embedded in the NVRTC source (src/function/embed_core.cmake).
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TESSERA_HD __host__ __device__
#else
#define TESSERA_HD
#endif
