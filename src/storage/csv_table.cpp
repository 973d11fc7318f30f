// CSV files as tables (file_table.hpp). Placeholder until read_csv lands.
#include "storage/file_table.hpp"

namespace tessera {

std::shared_ptr<const TableEntry> OpenCsvTable(const std::vector<std::string>&, const FileOptionList&,
                                               SourcePos pos, unsigned) {
  throw UserError(ErrorKind::Unsupported, "reading CSV files in FROM is not supported yet (use COPY)", pos);
}

}  // namespace tessera
