#include "storage/compression/gpu_stream.hpp"

#include <cstring>

#include "storage/compression/byte_io.hpp"
#include "storage/compression/chunk_codec.hpp"
#include "storage/compression/gpu_stream_core.hpp"
#include "storage/compression/int_codec.hpp"

namespace tessera::codec {

namespace {

// Parses a stored stream's header: its codec, checked against width and count.
bool StreamHeader(ByteReader& r, uint32_t count, int width, IntCodec* codec) {
  *codec = (IntCodec)r.Get<uint8_t>();
  return r.Get<uint8_t>() == width && r.Get<uint16_t>() == 0 && r.Get<uint32_t>() == count;
}

// A BitPack body's parts (descriptors, words); false when the block count is wrong.
bool BitPackParts(ByteReader& r, const uint8_t* base, uint32_t count, GpuStreamPlan* plan) {
  const uint32_t nb = r.Get<uint32_t>();
  if (nb != (count + kMiniblockValues - 1) / kMiniblockValues) return false;
  plan->descriptors_at = (size_t)(r.at() - base);
  r.Take((size_t)nb * bitpack::kDescriptorBytes);
  plan->nwords = r.Get<uint32_t>();
  plan->words_at = (size_t)(r.at() - base);
  r.Take((size_t)plan->nwords * 4);
  return plan->nwords >= bitpack::kPadWords;
}

}  // namespace

bool PlanGpuStream(const uint8_t* blob, size_t len, uint32_t count, int width, GpuStreamPlan* plan,
                   bool string_codes) {
  if (width != 1 && width != 2 && width != 4 && width != 8) return false;
  if (string_codes && width != 4) return false;
  try {
    ByteReader r(blob, len);
    if (r.Get<uint8_t>() != (string_codes ? kStringDictionaryChunk : kFixedChunk)) return false;
    IntCodec codec;
    if (!StreamHeader(r, count, width, &codec)) return false;
    *plan = GpuStreamPlan{};
    plan->width = (unsigned)width;
    plan->count = count;
    switch (codec) {
      case IntCodec::Plain:
        plan->kind = gpustream::kValues;
        plan->values_at = (size_t)(r.at() - blob);
        r.Take((size_t)count * width);
        plan->bytes = gpustream::Pad16(gpustream::kHeaderBytes + (size_t)count * width);
        break;
      case IntCodec::BitPack:
        plan->kind = gpustream::kBitPack;
        if (!BitPackParts(r, blob, count, plan)) return false;
        break;
      case IntCodec::Dictionary: {
        plan->kind = gpustream::kDictionary;
        plan->dict_size = r.Get<uint32_t>();
        if (plan->dict_size > count || (plan->dict_size == 0 && count > 0)) return false;
        plan->values_at = (size_t)(r.at() - blob);
        r.Take((size_t)plan->dict_size * width);
        IntCodec codes;
        if (!StreamHeader(r, count, 4, &codes) || codes != IntCodec::BitPack) return false;
        if (!BitPackParts(r, blob, count, plan)) return false;
        break;
      }
      case IntCodec::Rle: {
        plan->kind = gpustream::kRle;
        plan->dict_size = r.Get<uint32_t>();
        if (plan->dict_size > count || (plan->dict_size == 0 && count > 0) || count == 0) return false;
        plan->values_at = (size_t)(r.at() - blob);
        r.Take((size_t)plan->dict_size * width);
        plan->ends_at = (size_t)(r.at() - blob);
        r.Take((size_t)plan->dict_size * 4);
        plan->bytes = gpustream::RunEndsAt(plan->width, plan->dict_size) + gpustream::Pad16((size_t)plan->dict_size * 4);
        break;
      }
      default: return false;
    }
    plan->end_at = (size_t)(r.at() - blob);
    if (!string_codes && !r.AtEnd()) return false;
    if (plan->kind == gpustream::kBitPack || plan->kind == gpustream::kDictionary)
      plan->bytes = gpustream::Pad16(gpustream::WordsAt(plan->kind, plan->width, count, plan->dict_size) +
                                     (size_t)plan->nwords * 4);
    return true;
  } catch (const DecodeError&) {
    return false;
  }
}

void WriteGpuStream(const uint8_t* blob, const GpuStreamPlan& plan, uint8_t* out) {
  const uint32_t header[4] = {plan.kind, plan.width, plan.count, plan.dict_size};
  std::memcpy(out, header, sizeof header);
  size_t end;
  if (plan.kind == gpustream::kValues) {
    const size_t n = (size_t)plan.count * plan.width;
    std::memcpy(out + gpustream::kHeaderBytes, blob + plan.values_at, n);
    end = gpustream::kHeaderBytes + n;
  } else if (plan.kind == gpustream::kRle) {
    const uint32_t nruns = plan.dict_size;
    const size_t n = (size_t)nruns * plan.width, at = gpustream::RunEndsAt(plan.width, nruns);
    std::memcpy(out + gpustream::kHeaderBytes, blob + plan.values_at, n);
    std::memset(out + gpustream::kHeaderBytes + n, 0, at - gpustream::kHeaderBytes - n);
    uint32_t* ends = reinterpret_cast<uint32_t*>(out + at);
    std::memcpy(ends, blob + plan.ends_at, (size_t)nruns * 4);
    uint32_t prev = 0;
    for (uint32_t k = 0; k < nruns; k++) {
      if (ends[k] <= prev || ends[k] > plan.count) throw DecodeError("run-length stream has a bad run end");
      prev = ends[k];
    }
    if (prev != plan.count) throw DecodeError("run-length stream ends early");
    end = at + (size_t)nruns * 4;
  } else {
    if (plan.kind == gpustream::kDictionary) {
      const size_t n = (size_t)plan.dict_size * plan.width;
      std::memcpy(out + gpustream::kHeaderBytes, blob + plan.values_at, n);
      std::memset(out + gpustream::kHeaderBytes + n, 0, gpustream::DescriptorsAt(plan.kind, plan.width, plan.dict_size) - gpustream::kHeaderBytes - n);
    }
    const uint32_t nb = (plan.count + kMiniblockValues - 1) / kMiniblockValues;
    uint8_t* desc = out + gpustream::DescriptorsAt(plan.kind, plan.width, plan.dict_size);
    std::memcpy(desc, blob + plan.descriptors_at, (size_t)nb * bitpack::kDescriptorBytes);
    for (uint32_t b = 0; b < nb; b++) {
      const bitpack::Descriptor d = bitpack::ReadDescriptor(reinterpret_cast<const unsigned*>(desc) + (size_t)b * 4);
      if (d.bits > 64 || (uint64_t)d.word_offset + 4ull * d.bits + bitpack::kPadWords > plan.nwords)
        throw DecodeError("bit-packed stream has a bad miniblock");
    }
    const size_t words = gpustream::WordsAt(plan.kind, plan.width, plan.count, plan.dict_size);
    std::memcpy(out + words, blob + plan.words_at, (size_t)plan.nwords * 4);
    end = words + (size_t)plan.nwords * 4;
  }
  std::memset(out + end, 0, plan.bytes - end);
}

void DecodeGpuStream(const uint8_t* stream, void* out, bool* bad) {
  const uint32_t* h = reinterpret_cast<const uint32_t*>(stream);
  const unsigned width = h[1], count = h[2];
  uint8_t* o = static_cast<uint8_t*>(out);
  for (unsigned i = 0; i < count; i++) {
    const unsigned long long v = gpustream::Value(stream, i, bad);
    std::memcpy(o + (size_t)i * width, &v, width);  // little-endian: the low `width` bytes
  }
}

}  // namespace tessera::codec
