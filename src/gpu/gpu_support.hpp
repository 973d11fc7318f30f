// The GPU support check: which IR pipelines the code generator can express, decided before
// any code is generated, so every pipeline left on the CPU has one clear reason. What only
// the data can tell (a column with NULLs, a key range too wide to pack, a table too large)
// and expressions the generator cannot write yet are found while generating and reported
// the same way (NotOnGpu).
#pragma once
#include <string>

#include "pipeline_ir/pipeline_ir.hpp"

namespace tessera::gpu {

struct Support {
  bool ok = true;
  std::string reason;  // why not, when !ok
};

Support GpuSupport(const ir::Pipeline& p);

// "type T is not supported on the GPU yet": the one wording of that reason.
std::string UnsupportedType(const Type& t);

}  // namespace tessera::gpu
