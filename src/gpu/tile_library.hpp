// The tile library: CUDA C++ source of the block-wide device functions generated kernels
// are built from (load, predicate, probe, build, reduce, compacted store). See
// tile_library.cpp.
#pragma once
#include <string>
#include <vector>

namespace tessera::gpu {

// The library's device functions (with the scalar core in front), whole.
const char* TileLibrarySource();
// The part of it a generated kernel body needs, placed in front of the body: the library's
// declarations the body names, and those they name in turn (a dependency table computed once
// from the library's text), in library order. NVRTC parses only these (tile_library.cpp).
std::string TileLibrarySourceFor(const std::string& kernel_body);
// Every name the library declares at namespace scope (tests: each compiles with what it needs).
std::vector<std::string> TileLibraryNames();
// The library module: the device functions plus the generic kernels that do not depend on a
// query (tsr_init_state, tsr_compact_groups, the top-N pre-selection, the device sort
// tsr_sort_* and tsr_gather_rows), compiled once per machine (KernelCache::Library) rather
// than into every pipeline's module.
const char* LibraryModuleSource();

}  // namespace tessera::gpu
