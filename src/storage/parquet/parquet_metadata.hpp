// Parquet's footer and page headers (parquet.thrift), the fields the reader uses. Parsed
// from the thrift compact protocol (thrift_compact.hpp); unknown fields are skipped.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storage/parquet/parquet_format.hpp"

namespace tessera::parquet {

// The LogicalType union (field id of the member set, 0 when absent) and its parameters.
struct LogicalType {
  enum Kind : int16_t {
    None = 0, String = 1, Map = 2, List = 3, Enum = 4, Decimal = 5, Date = 6, Time = 7,
    Timestamp = 8, Integer = 10, Unknown = 11, Json = 12, Bson = 13, Uuid = 14, Float16 = 15,
  };
  int16_t kind = None;
  int32_t scale = 0, precision = 0;  // Decimal
  int8_t bit_width = 0;              // Integer
  bool is_signed = true;             // Integer
  // Timestamp, Time: the unit (1 millis, 2 micros, 3 nanos) and isAdjustedToUTC.
  int8_t time_unit = 0;
  bool adjusted_to_utc = false;
};

struct SchemaElement {
  std::optional<int32_t> type;  // PhysicalType; absent for groups
  int32_t type_length = 0;
  std::optional<int32_t> repetition;
  std::string name;
  int32_t num_children = 0;
  std::optional<int32_t> converted_type;
  int32_t scale = 0, precision = 0;
  LogicalType logical;
};

struct Statistics {
  std::optional<std::string> max, min;  // deprecated: signed comparison
  std::optional<int64_t> null_count;
  std::optional<std::string> max_value, min_value;
};

struct ColumnMetaData {
  int32_t type = 0;
  std::vector<int32_t> encodings;
  std::vector<std::string> path;
  int32_t codec = 0;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
};

struct ColumnChunkMeta {
  std::string file_path;  // set: the data lives in another file (not supported)
  bool has_meta = false;
  ColumnMetaData meta;
};

struct RowGroupMeta {
  std::vector<ColumnChunkMeta> columns;
  int64_t num_rows = 0;
};

struct FileMetaData {
  int32_t version = 0;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroupMeta> row_groups;
  std::string created_by;
  bool encrypted = false;
};

struct DataPageHeader {
  int32_t num_values = 0;
  int32_t encoding = 0;
  int32_t definition_level_encoding = 0;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  int32_t encoding = 0;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0, num_nulls = 0, num_rows = 0;
  int32_t encoding = 0;
  int32_t definition_levels_byte_length = 0, repetition_levels_byte_length = 0;
  bool is_compressed = true;
};

struct PageHeader {
  int32_t type = 0;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<DataPageHeader> data;
  std::optional<DictionaryPageHeader> dict;
  std::optional<DataPageHeaderV2> data_v2;
};

// Parse the footer / a page header; throw ThriftError on malformed input. ParsePageHeader
// sets `*header_len` to the bytes the header took.
FileMetaData ParseFileMetaData(const uint8_t* p, size_t n, unsigned threads = 1);
PageHeader ParsePageHeader(const uint8_t* p, size_t n, size_t* header_len);

}  // namespace tessera::parquet
