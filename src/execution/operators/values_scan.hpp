// The rows of a VALUES list as a source: its expressions (constant: they refer to no
// column) are evaluated when the pipeline starts, into chunks of up to kVectorSize rows.
#pragma once
#include "execution/physical_operator.hpp"

namespace tessera {

class PhysicalValues : public PhysicalOperator {
 public:
  PhysicalValues(std::vector<Type> t, std::vector<std::vector<BoundExprPtr>> rows)
      : PhysicalOperator(PhysKind::Values, std::move(t)), rows(std::move(rows)) {}
  std::string Name() const override { return "VALUES"; }
  std::string Details() const override { return std::to_string(rows.size()) + " rows"; }
  std::unique_ptr<GlobalSourceState> InitSource() override;
  bool GetChunk(GlobalSourceState& gs, LocalState&, DataChunk& out) override;
  uint64_t SourceMorsels() const override { return (rows.size() + kVectorSize - 1) / kVectorSize; }

  std::vector<std::vector<BoundExprPtr>> rows;
};

}  // namespace tessera
