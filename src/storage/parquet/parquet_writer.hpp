// COPY ... TO 'f.parquet': a query result written as a Parquet file (apache/parquet-format),
// readable by DuckDB, pyarrow and Spark.
//
// Layout: "PAR1", per row group (ParquetWriteOptions::row_group_size rows, 122880 by
// default as in DuckDB) one column chunk per column, the footer (FileMetaData, thrift
// compact protocol: thrift_writer.hpp), its length, "PAR1". Every column is OPTIONAL in a
// flat schema. A column chunk is data pages v1 of about 1 MiB each: the definition levels
// (RLE/bit-packed hybrid, bit width 1: runs of 8 or more equal levels RLE, the rest
// bit-packed), then the non-NULL values PLAIN-encoded (VARCHAR chunks with few distinct
// strings as dictionary indices, RLE_DICTIONARY), the page compressed with the codec
// (SNAPPY by default, GZIP, UNCOMPRESSED; ZSTD when built with libzstd). Each column chunk
// carries statistics: min_value, max_value (PLAIN bytes; left out for strings longer than
// 4 KiB and for all-NULL chunks) and null_count.
//
// Types (physical / converted type / logical type):
//   BOOLEAN  BOOLEAN          INTEGER  INT32 INT_32 INTEGER(32)   BIGINT INT64 INT_64 INTEGER(64)
//   DOUBLE   DOUBLE           DATE     INT32 DATE DATE            VARCHAR BYTE_ARRAY UTF8 STRING
//   DECIMAL(p,s): INT32 (p <= 9), INT64 (p <= 18), FIXED_LEN_BYTE_ARRAY(16) big-endian
//   (p > 18), DECIMAL with scale and precision, both as converted and logical type.
//   TIMESTAMP INT64 TIMESTAMP_MICROS TIMESTAMP(micros, not adjusted to UTC)
//   TIME      INT64 TIME_MICROS      TIME(micros, not adjusted to UTC)
//   BLOB      BYTE_ARRAY (no annotation); INTERVAL columns are refused (not supported yet)
//   A column of NULL type: INT32 without annotation, every value NULL.
// Repeated column names are made unique as DuckDB does (storage/column_names.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/types.hpp"
#include "common/vector.hpp"
#include "storage/csv_options.hpp"

namespace tessera {

// Writes the rows to `path` through a temporary file renamed into place (output_file.hpp),
// so a failure leaves nothing; the column chunks are encoded and compressed by `threads`
// workers (0: all hardware threads). Returns the number of rows written. Throws
// UserError(IO) naming the file, UserError(Unsupported) for zstd without libzstd.
uint64_t WriteParquetFile(const std::string& path, const std::vector<std::string>& names,
                          const std::vector<Type>& types, const std::vector<DataChunk>& chunks,
                          const ParquetWriteOptions& opt, unsigned threads);

}  // namespace tessera
