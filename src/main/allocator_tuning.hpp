// Process-wide allocator settings for an analytical workload (see the .cpp for why).
#pragma once

namespace tessera {

// Called when a database opens; does its work once per process.
void TuneAllocatorOnce();

}  // namespace tessera
