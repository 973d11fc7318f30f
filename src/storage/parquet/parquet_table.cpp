// Parquet files as tables (file_table.hpp). Placeholder until the reader lands.
#include "storage/file_table.hpp"

namespace tessera {

std::shared_ptr<const TableEntry> OpenParquetTable(const std::vector<std::string>&, const FileOptionList&,
                                                   SourcePos pos, unsigned) {
  throw UserError(ErrorKind::Unsupported, "reading Parquet files is not supported yet", pos);
}

}  // namespace tessera
