#include "gpu/gpu_support.hpp"

#include "gpu/column_cache.hpp"
#include "function/function_registry.hpp"

namespace tessera::gpu {

namespace {

// The integer key types a join table is built on (direct-mapped or open addressing).
bool JoinKeyType(const Type& t) {
  return t.id == TypeId::Integer || t.id == TypeId::BigInt || t.id == TypeId::Date;
}

// Integer-valued types held in one 64-bit word (sums in 128 bits).
bool IntLike(const Type& t) {
  return t.id == TypeId::Integer || t.id == TypeId::BigInt || t.id == TypeId::Date ||
         (t.id == TypeId::Decimal && t.precision <= 18);
}

Support No(std::string why) { return {false, std::move(why)}; }

// Inner and left joins, and semi, anti and mark joins (a build of keys only, duplicates
// allowed), on up to four integer keys (several are packed into one by their value ranges)
// or none; a residual predicate only on semi and anti joins (a chained table). A
// null-aware mark join (NOT IN) needs no NULL handling here: GPU columns are never NULL; a
// left join's build columns are, and the generator lets them be counted only.
Support Join(const ir::JoinSpec& j) {
  const LJoinType type = j.type;
  const auto& keys = j.keys;
  // NULL keys equal (INTERSECT, EXCEPT, the DISTINCT rewrite's join back, a generally
  // decorrelated subquery) is plain equality here: no key the GPU reads is ever NULL
  // (columns holding NULLs stay on the CPU, `ColumnCache`; a left join's NULL build columns
  // are never read as values, `Generator::Need`; an aggregate over no rows fails over to
  // the CPU at run time; no generated expression yields NULL).
  if (j.counted) return No("INTERSECT ALL and EXCEPT ALL (joins counting matches) do not run on the GPU yet");
  if (type == LJoinType::Full) return No("FULL OUTER joins do not run on the GPU yet");
  // Planned only for the CPU (optimizer/semi_join_side.cpp); refused should one get here.
  if (type == LJoinType::Right) return No("right outer joins (built on the preserved side) do not run on the GPU yet");
  if (ReturnsRightOnly(type)) return No("right semi and anti joins (built on the returned side) do not run on the GPU yet");
  if (!keys.empty() && type != LJoinType::Inner && type != LJoinType::Semi && type != LJoinType::Anti &&
      type != LJoinType::Mark && type != LJoinType::Left)
    return No("cross joins on keys do not run on the GPU yet");
  // A residual predicate: semi and anti joins test it against every build row of the key
  // (a chained table); inner, left and mark joins with one do not run here yet.
  if (j.residual && (keys.empty() || (type != LJoinType::Semi && type != LJoinType::Anti)))
    return No("joins other than semi and anti joins with a residual predicate do not run on the GPU yet");
  if (keys.empty()) {
    // A join without keys (an uncorrelated scalar subquery, EXISTS, a cross join): a table
    // of one slot. Inner, cross and left joins run while the build side has exactly one
    // row (more, or none for a left join, hands the query back to the CPU at run time).
    if (type == LJoinType::Mark) return No("mark joins without keys do not run on the GPU yet");
    return {};
  }
  if (keys.size() > 4) return No("joins on " + std::to_string(keys.size()) + " keys do not run on the GPU yet");
  for (const BoundExpr* k : keys)
    if (!JoinKeyType(k->type)) return No("join key of type " + k->type.ToString());
  return {};
}

Support Aggregates(const ir::Sink& s) {
  int words = 1;  // the group's row count
  for (const BoundExpr* a : s.aggs) {
    if (a->distinct) return No(a->name + "(DISTINCT) is not supported on the GPU yet");
    const std::string& n = a->name;
    if (n == "count_star" || n == "count") continue;
    const Type& in = a->children[0]->type;
    if (n == "sum" || n == "avg") {
      if (in.id == TypeId::Double) words += 1;
      else if ((IntLike(in) && in.id != TypeId::Date) || in.id == TypeId::Decimal) words += 2;  // 128-bit sum
      else return No(n + " over " + in.ToString() + " on the GPU");
    } else if ((n == "min" || n == "max") && (IntLike(in) || in.id == TypeId::Decimal || in.id == TypeId::Timestamp)) {  // 128-bit: while values fit 64 bits
      words += 1;
    } else if (CountsTrueRows(n) && in.id == TypeId::Boolean) {  // the TRUE rows, a 128-bit sum
      words += 2;
    } else {
      return No(n + "(" + in.ToString() + ") is not supported on the GPU yet");
    }
  }
  if (words + 1 > 32) return No("more than 31 aggregate state words");
  return {};
}

}  // namespace

std::string UnsupportedType(const Type& t) { return "type " + t.ToString() + " is not supported on the GPU yet"; }

Support GpuSupport(const ir::Pipeline& p) {
  // Of intermediate results, the GPU reads an aggregation's groups where the aggregation
  // ran on the GPU too (the generator checks that).
  if (p.source.kind != ir::Source::Kind::TableScan && !p.source.aggregate && !p.source.rows)
    return No("its source is an intermediate result (" + p.source.what +
              "): of intermediate results the GPU reads only aggregations and sorted or limited rows yet");
  for (size_t i = 0; i < p.source.scan.column_types.size(); i++)
    if (!DeviceWidth(p.source.scan.column_types[i]))
      return No(p.source.scan.table + "." + p.source.scan.column_names[i] + ": " +
                UnsupportedType(p.source.scan.column_types[i]));
  for (const ir::Step& st : p.steps) {
    // Materialised rows are read in their order and counted on the device: projections only.
    if (p.source.rows && st.kind != ir::Step::Kind::Project)
      return No("a filter or join over sorted or limited rows is not on the GPU yet");
    switch (st.kind) {
      case ir::Step::Kind::Filter:
      case ir::Step::Kind::Project: break;
      case ir::Step::Kind::Probe:
        if (Support s = Join(st.on); !s.ok) return s;
        break;
      default: return No(st.what + " is not supported on the GPU yet");
    }
  }
  switch (p.sink.kind) {
    case ir::Sink::Kind::JoinBuild: return Join(p.sink.build);
    case ir::Sink::Kind::Aggregate: return Aggregates(p.sink);
    case ir::Sink::Kind::Order:
    case ir::Sink::Kind::Limit:
    case ir::Sink::Kind::Result: return {};  // column types: checked as the rows are generated
    default: return No("its sink " + p.sink.what + " is not on the GPU yet");
  }
}

}  // namespace tessera::gpu
