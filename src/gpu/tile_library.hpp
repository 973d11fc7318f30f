// The tile library: CUDA C++ source of the block-wide device functions generated kernels
// are built from (load, predicate, probe, build, reduce, compacted store). See
// tile_library.cpp.
#pragma once

namespace tessera::gpu {

// The library's device functions (with the scalar core in front), placed in front of every
// generated kernel.
const char* TileLibrarySource();
// The library module: the device functions plus the generic kernels that do not depend on a
// query (tsr_init_state, tsr_compact_groups, the top-N pre-selection, the device sort
// tsr_sort_* and tsr_gather_rows), compiled once per machine (KernelCache::Library) rather
// than into every pipeline's module.
const char* LibraryModuleSource();

}  // namespace tessera::gpu
