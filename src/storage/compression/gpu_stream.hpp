// Host side of the GPU's encoded uploads (gpu_stream_core.hpp has the layout): which stored
// chunks the device can decode, how many bytes their aligned form takes, and writing that
// form from the stored blob (into the upload's pinned staging buffer).
#pragma once
#include <cstddef>
#include <cstdint>

namespace tessera::codec {

struct GpuStreamPlan {
  unsigned kind = 0;          // gpustream::Kind
  unsigned width = 0, count = 0, dict_size = 0;  // dict_size: kind 3's number of runs
  size_t bytes = 0;           // of the aligned form, a multiple of 16
  // Where the parts are in the stored blob.
  size_t values_at = 0;       // kind 0: the values; kind 2: the dictionary's; kind 3: the runs'
  size_t ends_at = 0;         // kind 3: the run ends
  size_t descriptors_at = 0;  // kinds 1, 2
  uint32_t nwords = 0;
  size_t words_at = 0;
  size_t end_at = 0;          // where the stream ends in the blob
};

// Plans the aligned form of a fixed-width chunk's blob (chunk_codec.hpp: kind 0, an integer
// stream of `count` values of `width` bytes): bit-packed, dictionary, run-length, or plain
// (then the values are copied as they are). False for anything that does not parse as
// expected (the caller decodes it on the host, which reports a corrupt file properly).
// Reads only the headers. `string_codes`: the blob is a dictionary VARCHAR chunk's (kind 2:
// its u32 codes' stream, then the dictionary's strings, which end_at points to).
bool PlanGpuStream(const uint8_t* blob, size_t len, uint32_t count, int width, GpuStreamPlan* plan,
                   bool string_codes = false);

// Writes the planned form (plan.bytes bytes) to out (16-byte aligned), checking every
// miniblock's descriptor against the words and the run ends (throws DecodeError, byte_io.hpp,
// when a descriptor points outside the words or the ends do not increase to the count: the
// device never reads out of bounds). Dictionary codes are checked by the device.
void WriteGpuStream(const uint8_t* blob, const GpuStreamPlan& plan, uint8_t* out);

// Values of a written form, decoded on the host the way the device does (tests).
void DecodeGpuStream(const uint8_t* stream, void* out, bool* bad);

}  // namespace tessera::codec
