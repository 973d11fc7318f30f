// The tile library: CUDA C++ source of the block-wide device functions generated kernels
// are built from (load, predicate, probe, build, reduce, compacted store). See
// tile_library.cpp.
#pragma once

namespace tessera::gpu {

// The library's source text, placed in front of every generated kernel.
const char* TileLibrarySource();
// The device sort (tsr_sort_*, tsr_gather_rows), placed after the library in the kernels of
// order/top-N sinks only.
const char* SortLibrarySource();

}  // namespace tessera::gpu
