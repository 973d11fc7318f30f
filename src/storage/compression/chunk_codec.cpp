#include "storage/compression/chunk_codec.hpp"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "storage/compression/fsst.hpp"
#include "storage/decoded_memory.hpp"
#include "storage/transient_pool.hpp"
#include "storage/compression/int_codec.hpp"

namespace tessera::codec {

namespace {

enum Form : uint8_t { kRaw = 0, kFsst = 1 };

// Strings below this many bytes stay raw: a symbol table would not pay for itself.
constexpr uint64_t kFsstMinBytes = 4096;
// FSST is kept when it saves at least this fraction of the raw bytes (decoding costs time).
constexpr double kFsstMaxRatio = 0.85;
constexpr size_t kFsstSample = 16 * 1024;
// Room after the decoded strings: the FSST decoder stores 8 bytes at a time.
constexpr size_t kStringPad = 16;

bool Encodable(const Type& t) {
  const PhysType p = t.physical();
  return p == PhysType::Bool || p == PhysType::I32 || p == PhysType::I64 || p == PhysType::F64 ||
         p == PhysType::Str;
}

// The k strings [offsets[i], offsets[i+1]) of bytes.
void EncodeStringList(const uint32_t* offsets, const char* bytes, uint32_t k, std::string& out) {
  const uint64_t total = k ? (uint64_t)offsets[k] - offsets[0] : 0;
  auto str = [&](uint32_t i) { return std::string_view(bytes + offsets[i], offsets[i + 1] - offsets[i]); };
  std::vector<uint32_t> lengths(k);
  if (total >= kFsstMinBytes) {
    std::vector<std::string_view> sample;
    const uint32_t stride = std::max<uint32_t>(1, (uint32_t)((uint64_t)k * kFsstSample / (total + 1)));
    size_t got = 0;
    // Evenly spread strings (from the start when every string fits in the sample).
    for (uint32_t i = 0; i < k && got < kFsstSample; i += stride) {
      sample.push_back(str(i));
      got += sample.back().size();
    }
    const fsst::SymbolTable table = fsst::Train(sample);
    std::string codes;
    codes.reserve(total);
    for (uint32_t i = 0; i < k; i++) {
      const size_t before = codes.size();
      fsst::CompressString(table, str(i), codes);
      lengths[i] = (uint32_t)(codes.size() - before);
    }
    std::string serialized;
    fsst::Serialize(table, serialized);
    if ((double)(codes.size() + serialized.size()) < kFsstMaxRatio * (double)total) {
      out.push_back((char)kFsst);
      Put<uint64_t>(out, total);
      EncodeInts(lengths.data(), k, 4, false, nullptr, out);
      out += serialized;
      Put<uint64_t>(out, codes.size());
      out += codes;
      return;
    }
  }
  for (uint32_t i = 0; i < k; i++) lengths[i] = offsets[i + 1] - offsets[i];
  out.push_back((char)kRaw);
  Put<uint64_t>(out, total);
  EncodeInts(lengths.data(), k, 4, false, nullptr, out);
  Put<uint64_t>(out, total);
  if (total) out.append(bytes + offsets[0], total);
}

// The blob's reader, which also decodes integer streams in place.
class Cursor : public ByteReader {
 public:
  using ByteReader::ByteReader;
  void Ints(uint32_t n, int width, void* out) { Take(DecodeInts(at(), left(), n, width, out)); }
};

// A string list parsed from the blob, before its strings are materialized.
struct ParsedStrings {
  uint8_t form = kRaw;
  uint64_t total = 0;
  std::vector<uint32_t> lengths;
  fsst::SymbolTable table;
  const uint8_t* stored = nullptr;
  uint64_t stored_bytes = 0;
};

void ParseStringList(Cursor& c, uint32_t k, ParsedStrings& s) {
  s.form = c.Get<uint8_t>();
  if (s.form != kRaw && s.form != kFsst) throw DecodeError("column chunk has an unknown string form");
  s.total = c.Get<uint64_t>();
  if (s.total > UINT32_MAX) throw DecodeError("column chunk's strings are too large");
  s.lengths.resize(k);
  c.Ints(k, 4, s.lengths.data());
  if (s.form == kFsst) {
    size_t used = fsst::Deserialize(c.at(), c.left(), s.table);
    if (!used) throw DecodeError("column chunk has a malformed symbol table");
    c.Take(used);
  }
  s.stored_bytes = c.Get<uint64_t>();
  s.stored = c.Take(s.stored_bytes);
  uint64_t sum = 0;
  for (uint32_t len : s.lengths) sum += len;
  if (sum != s.stored_bytes || (s.form == kRaw && sum != s.total))
    throw DecodeError("column chunk's string lengths do not add up");
}

// Writes the strings as offsets[0..k] (from 0) and bytes (capacity total + kStringPad).
void MaterializeStrings(const ParsedStrings& s, uint32_t k, uint32_t* offsets, char* bytes) {
  offsets[0] = 0;
  if (s.form == kRaw) {
    if (s.total) std::memcpy(bytes, s.stored, s.total);
    uint32_t at = 0;
    for (uint32_t i = 0; i < k; i++) offsets[i + 1] = at += s.lengths[i];
    return;
  }
  const uint8_t* in = s.stored;
  uint64_t pos = 0;
  for (uint32_t i = 0; i < k; i++) {
    size_t n = fsst::DecompressString(s.table, in, s.lengths[i], bytes + pos, s.total + kStringPad - pos);
    if (n == SIZE_MAX || pos + n > s.total) throw DecodeError("column chunk has malformed compressed strings");
    in += s.lengths[i];
    pos += n;
    offsets[i + 1] = (uint32_t)pos;
  }
  if (pos != s.total) throw DecodeError("column chunk's strings decode to the wrong size");
}

// One 64-byte-aligned allocation holding every buffer of a decoded chunk.
struct Block {
  std::shared_ptr<uint8_t> mem;
  size_t size = 0;
  size_t Add(size_t n) {
    size_t at = size;
    size = (size + n + 63) & ~(size_t)63;
    return at;
  }
  void Allocate(std::shared_ptr<const void> keep, ChunkMemory memory) {
    // The owner also holds the chunk's previous owner (the file mapping of its validity bitmap).
    struct Held {
      std::shared_ptr<uint8_t> block;
      std::shared_ptr<const void> keep;
    };
    std::shared_ptr<uint8_t> block =
        memory == ChunkMemory::Kept ? storage::AllocateDecoded(size) : TakeTransientBuffer(size ? size : 64);
    uint8_t* p = block.get();
    mem = std::shared_ptr<uint8_t>(std::make_shared<Held>(Held{std::move(block), std::move(keep)}), p);
  }
};

void ZeroNullRows(const ColumnChunk& c, uint8_t* data, int width) {
  if (!c.validity) return;
  for (uint32_t i = 0; i < c.count; i++)
    if (!c.IsValid(i)) std::memset(data + (size_t)i * width, 0, width);
}

}  // namespace

bool EncodeChunk(const ColumnChunk& c, std::string& out) {
  if (!Encodable(c.type) || c.count == 0) return false;
  std::string blob;
  size_t plain = 0;
  if (c.type.physical() != PhysType::Str) {
    const int width = c.type.width();
    plain = (size_t)c.count * width;
    blob.push_back((char)kFixedChunk);
    EncodeInts(c.data, c.count, width, c.type.physical() != PhysType::Bool, c.validity, blob);
  } else if (c.str_enc == StringEncoding::Dictionary) {
    plain = (size_t)c.count * 4 + ((size_t)c.dict_size + 1) * 4 + (c.offsets[c.dict_size] - c.offsets[0]);
    blob.push_back((char)kStringDictionaryChunk);
    EncodeInts(c.data, c.count, 4, false, nullptr, blob);
    EncodeStringList(c.offsets, c.bytes, c.dict_size, blob);
  } else {
    plain = ((size_t)c.count + 1) * 4 + (c.offsets[c.count] - c.offsets[0]);
    blob.push_back((char)kStringPlainChunk);
    EncodeStringList(c.offsets, c.bytes, c.count, blob);
  }
  if (blob.size() >= plain) return false;
  out += blob;
  return true;
}

void DecodeFixedInto(const uint8_t* p, size_t len, const ColumnChunk& c, void* out) {
  Cursor cur(p, len);
  if (!Encodable(c.type) || c.type.physical() == PhysType::Str || cur.Get<uint8_t>() != kFixedChunk)
    throw DecodeError("column chunk's encoding does not match its column");
  cur.Ints(c.count, c.type.width(), out);
  if (!cur.AtEnd()) throw DecodeError("column chunk has trailing bytes");
}

void DecodeChunk(const uint8_t* p, size_t len, ColumnChunk& c, ChunkMemory memory) {
  const bool str = c.type.physical() == PhysType::Str;
  Block block;
  if (!str) {
    const int width = c.type.width();
    const size_t data_at = block.Add((size_t)c.count * width);
    block.Allocate(c.owner, memory);
    uint8_t* data = block.mem.get() + data_at;
    DecodeFixedInto(p, len, c, data);
    ZeroNullRows(c, data, width);
    c.data = data;
    c.owner = std::shared_ptr<const void>(block.mem, block.mem.get());
    return;
  }
  Cursor cur(p, len);
  const uint8_t kind = cur.Get<uint8_t>();
  const bool dict = c.str_enc == StringEncoding::Dictionary;
  if (!Encodable(c.type) || kind != (dict ? kStringDictionaryChunk : kStringPlainChunk))
    throw DecodeError("column chunk's encoding does not match its column");
  const uint32_t k = dict ? c.dict_size : c.count;
  std::vector<uint32_t> codes;
  if (dict) {
    codes.resize(c.count);
    cur.Ints(c.count, 4, codes.data());
    for (uint32_t code : codes)
      if (code >= c.dict_size) throw DecodeError("column chunk has a dictionary code out of range");
  }
  ParsedStrings s;
  ParseStringList(cur, k, s);
  const size_t data_at = dict ? block.Add((size_t)c.count * 4) : 0;
  const size_t offsets_at = block.Add(((size_t)k + 1) * 4);
  const size_t bytes_at = block.Add(s.total + kStringPad);
  block.Allocate(c.owner, memory);
  uint8_t* base = block.mem.get();
  auto* offsets = reinterpret_cast<uint32_t*>(base + offsets_at);
  char* bytes = reinterpret_cast<char*>(base + bytes_at);
  MaterializeStrings(s, k, offsets, bytes);
  if (dict) {
    std::memcpy(base + data_at, codes.data(), (size_t)c.count * 4);
    c.data = base + data_at;
  } else {
    c.data = nullptr;
  }
  c.offsets = offsets;
  c.bytes = bytes;
  if (!cur.AtEnd()) throw DecodeError("column chunk has trailing bytes");
  c.owner = std::shared_ptr<const void>(block.mem, block.mem.get());
}

void DecodeStringDictionary(const uint8_t* p, size_t len, size_t at, uint32_t dict_size, std::vector<uint32_t>& offsets,
                            std::string& bytes) {
  if (at > len) throw DecodeError("column chunk's codes overrun it");
  Cursor cur(p + at, len - at);
  ParsedStrings s;
  ParseStringList(cur, dict_size, s);
  if (!cur.AtEnd()) throw DecodeError("column chunk has trailing bytes");
  offsets.resize((size_t)dict_size + 1);
  bytes.resize(s.total + kStringPad);
  MaterializeStrings(s, dict_size, offsets.data(), bytes.data());
}

}  // namespace tessera::codec
