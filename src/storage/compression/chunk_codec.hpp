// The encoded form of one column chunk in a row-group file (storage format version 2): one
// blob holding the chunk's values (its validity bitmap stays a plain buffer beside it).
//
//   u8 kind | body
//   kind 0, fixed width (BOOLEAN, INTEGER, DATE, BIGINT, DECIMAL up to 18 digits, DOUBLE):
//        an integer stream (int_codec.hpp) of the values, width 1, 4 or 8
//   kind 1, VARCHAR plain:      a string list of the `count` values
//   kind 2, VARCHAR dictionary: an integer stream of the `count` u32 codes, then a string
//        list of the `dict_size` distinct strings (sorted, as in memory)
//   string list (k strings):
//        u8 form (0 raw, 1 FSST) | u64 decoded bytes | integer stream of k u32 stored
//        lengths (raw: the string's; FSST: its code bytes') | FSST only: the serialized
//        symbol table (fsst.hpp) | u64 stored bytes | the stored bytes, string after string
// DECIMAL(19..38) chunks are never encoded. A chunk is written encoded only when that is
// smaller than its plain buffers; otherwise in the plain layout of format version 1.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "storage/column_chunk.hpp"

namespace tessera::codec {

// A blob's first byte: its kind (the layout above).
enum ChunkKind : uint8_t { kFixedChunk = 0, kStringPlainChunk = 1, kStringDictionaryChunk = 2 };

// Appends the encoded form of `c` (buffers loaded) to `out` and returns true when it is
// smaller than the chunk's plain buffers; returns false (out unchanged) otherwise.
bool EncodeChunk(const ColumnChunk& c, std::string& out);

// Decodes the blob [p, p + len) into new buffers of `c`, whose type, count, validity,
// str_enc and dict_size are set: sets data, offsets, bytes and owner (the new buffers; the
// previous owner is kept alive by them too, for the validity bitmap). The values of NULL
// rows come out zero. Throws DecodeError (int_codec.hpp) when the blob is malformed.
// `memory`: Kept, memory kept with the table (storage/decoded_memory.hpp); Transient, a
// buffer of the TransientPool for a chunk decoded for one scan (storage/transient_pool.hpp).
enum class ChunkMemory { Kept, Transient };
void DecodeChunk(const uint8_t* p, size_t len, ColumnChunk& c, ChunkMemory memory = ChunkMemory::Kept);

// Decodes the values of a fixed-width chunk's blob (not VARCHAR) straight into `out`
// (c.count * c.type.width() bytes), leaving `c` as it is: for a consumer that copies the
// values anyway (the GPU column cache's upload). NULL rows' values are left as decoded.
// DecodeChunk decodes fixed-width values through it. Throws DecodeError.
void DecodeFixedInto(const uint8_t* p, size_t len, const ColumnChunk& c, void* out);

// The dictionary of a dictionary VARCHAR chunk's blob (kind 2) whose codes' stream ends at
// `at` (GpuStreamPlan::end_at), without decoding its codes (the GPU decodes them): its
// `dict_size` strings as offsets (dict_size + 1, from 0) and bytes (with room after them).
// Throws DecodeError when it is malformed.
void DecodeStringDictionary(const uint8_t* p, size_t len, size_t at, uint32_t dict_size, std::vector<uint32_t>& offsets,
                            std::string& bytes);

}  // namespace tessera::codec
