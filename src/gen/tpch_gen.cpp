// TPC-H data generator (specification revision 3, clause 4.2). Each table is a
// TableProducer (gen_core.hpp); orders and lineitem are both made from one random stream
// per order (OrderMaker), so o_totalprice and o_orderstatus are derived from exactly the
// lines lineitem holds. Comments are views into the shared text pool (tpch_text.hpp).
#include "gen/tpch_gen.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include "common/date.hpp"
#include "common/parallel.hpp"
#include "gen/gen_core.hpp"
#include "gen/tpch_domains.hpp"
#include "gen/tpch_text.hpp"

namespace tessera {
namespace {

using gen::Arena;
using gen::ChunkSink;
using gen::I32Col;
using gen::I64Col;
using gen::PutDigits;
using gen::Rng;
using gen::StrCol;
using gen::TableProducer;
using gen::TpchText;

// ---------------------------------------------------------------------------------------
// Constant domains (specification clause 4.2.2.13 and 4.2.3)

using gen::kColors;
using gen::kNumColors;
using gen::kTypeS1;
using gen::kTypeS2;
using gen::kTypeS3;
using gen::kContS1;
using gen::kContS2;
using gen::kNations;
using gen::kRegions;
using gen::kSegments;
const char* const kPriorities[5] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED",
                                    "5-LOW"};
const char* const kInstructions[4] = {"DELIVER IN PERSON", "COLLECT COD", "NONE",
                                      "TAKE BACK RETURN"};
const char* const kShipModes[7] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
// Address characters: letters, digits, and (never first or last) space and comma.
const char kAddressChars[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ,";

enum Tag : uint64_t {
  kTagRegion = 11, kTagNation, kTagSupplier, kTagCustomer, kTagPart, kTagPartsupp,
  kTagOrder, kTagSupplierPick
};

// Strings built once (never modified afterwards, so views into them stay valid).
struct Domains {
  std::vector<std::string> type, container, mfgr, brand;
  int32_t start = DaysFromCivil(1992, 1, 1);
  int32_t current = DaysFromCivil(1995, 6, 17);            // CURRENTDATE
  int32_t last_order = DaysFromCivil(1998, 12, 31) - 151;  // ENDDATE - 151 days
  Domains() {
    for (auto a : kTypeS1)
      for (auto b : kTypeS2)
        for (auto c : kTypeS3) type.push_back(std::string(a) + " " + b + " " + c);
    for (auto a : kContS1)
      for (auto b : kContS2) container.push_back(std::string(a) + " " + b);
    for (int m = 1; m <= 5; m++) {
      mfgr.push_back("Manufacturer#" + std::to_string(m));
      for (int n = 1; n <= 5; n++) brand.push_back("Brand#" + std::to_string(m * 10 + n));
    }
  }
};
const Domains& D() {
  static const Domains d;
  return d;
}

int64_t RetailPriceCents(int64_t pk) { return 90000 + (pk / 10) % 20001 + 100 * (pk % 1000); }

// ---------------------------------------------------------------------------------------
// Schemas

ColumnDef I(const char* n) { return {n, Type::Integer(), false}; }
ColumnDef S(const char* n) { return {n, Type::Varchar(), false}; }
ColumnDef M(const char* n) { return {n, Type::Decimal(15, 2), false}; }
ColumnDef Dt(const char* n) { return {n, Type::Date(), false}; }

TableSchema RegionSchema() { return {"region", {I("r_regionkey"), S("r_name"), S("r_comment")}}; }
TableSchema NationSchema() {
  return {"nation", {I("n_nationkey"), S("n_name"), I("n_regionkey"), S("n_comment")}};
}
TableSchema SupplierSchema() {
  return {"supplier",
          {I("s_suppkey"), S("s_name"), S("s_address"), I("s_nationkey"), S("s_phone"),
           M("s_acctbal"), S("s_comment")}};
}
TableSchema CustomerSchema() {
  return {"customer",
          {I("c_custkey"), S("c_name"), S("c_address"), I("c_nationkey"), S("c_phone"),
           M("c_acctbal"), S("c_mktsegment"), S("c_comment")}};
}
TableSchema PartSchema() {
  return {"part",
          {I("p_partkey"), S("p_name"), S("p_mfgr"), S("p_brand"), S("p_type"), I("p_size"),
           S("p_container"), M("p_retailprice"), S("p_comment")}};
}
TableSchema PartsuppSchema() {
  return {"partsupp",
          {I("ps_partkey"), I("ps_suppkey"), I("ps_availqty"), M("ps_supplycost"),
           S("ps_comment")}};
}
TableSchema OrdersSchema() {
  return {"orders",
          {I("o_orderkey"), I("o_custkey"), S("o_orderstatus"), M("o_totalprice"),
           Dt("o_orderdate"), S("o_orderpriority"), S("o_clerk"), I("o_shippriority"),
           S("o_comment")}};
}
TableSchema LineitemSchema() {
  return {"lineitem",
          {I("l_orderkey"), I("l_partkey"), I("l_suppkey"), I("l_linenumber"), M("l_quantity"),
           M("l_extendedprice"), M("l_discount"), M("l_tax"), S("l_returnflag"),
           S("l_linestatus"), Dt("l_shipdate"), Dt("l_commitdate"), Dt("l_receiptdate"),
           S("l_shipinstruct"), S("l_shipmode"), S("l_comment")}};
}

// ---------------------------------------------------------------------------------------
// Shared row pieces

StrRef KeyName(Arena& a, const char* prefix, uint64_t key) {
  size_t plen = std::strlen(prefix);
  char* p = a.Take(plen + 9);
  std::memcpy(p, prefix, plen);
  PutDigits(p + plen, key, 9);
  return {p, plen + 9};
}
// Random v-string of 10..40 characters (clause 4.2.2.7).
StrRef Address(Arena& a, Rng& r) {
  int len = (int)r.Range(10, 40);
  char* p = a.Take((size_t)len);
  for (int i = 0; i < len; i++)
    p[i] = kAddressChars[r.Below(i == 0 || i == len - 1 ? 62 : 64)];
  return {p, (size_t)len};
}

class TpchProducer : public gen::RowTableProducer {
 public:
  TpchProducer(TableSchema s, uint64_t rows, uint64_t seed, std::shared_ptr<const TpchText> text)
      : RowTableProducer(std::move(s)), seed_(seed), text_(std::move(text)) {
    rows_ = rows;
  }

 protected:
  uint64_t seed_;
  std::shared_ptr<const TpchText> text_;
};

class RegionProducer : public TpchProducer {
 public:
  using TpchProducer::TpchProducer;
  void FillRow(uint64_t row, DataChunk& c, uint32_t i, Arena&) const override {
    Rng r(seed_, kTagRegion, row);
    I32Col(c, 0)[i] = (int32_t)row;
    StrCol(c, 1)[i] = kRegions[row];
    StrCol(c, 2)[i] = text_->Comment(r, 31, 115);
  }
};

class NationProducer : public TpchProducer {
 public:
  using TpchProducer::TpchProducer;
  void FillRow(uint64_t row, DataChunk& c, uint32_t i, Arena&) const override {
    Rng r(seed_, kTagNation, row);
    I32Col(c, 0)[i] = (int32_t)row;
    StrCol(c, 1)[i] = kNations[row].name;
    I32Col(c, 2)[i] = kNations[row].region;
    StrCol(c, 3)[i] = text_->Comment(r, 31, 114);
  }
};

class SupplierProducer : public TpchProducer {
 public:
  SupplierProducer(uint64_t rows, uint64_t seed, std::shared_ptr<const TpchText> text)
      : TpchProducer(SupplierSchema(), rows, seed, std::move(text)) {
    // round(SF x 5) suppliers get "Customer ... Complaints" in their comment and as many
    // others "Customer ... Recommends" (at least one each), picked without repetition.
    uint64_t k = std::max<uint64_t>(1, (uint64_t)std::llround((double)rows / 2000.0));
    k = std::min<uint64_t>(k, rows / 2);
    Rng r(seed_, kTagSupplierPick, 0);
    while (picked_.size() < 2 * k) {
      uint64_t key = 1 + r.Below(rows_);
      picked_.emplace(key, picked_.size() < k ? 0 : 1);
    }
  }
  void FillRow(uint64_t row, DataChunk& c, uint32_t i, Arena& a) const override {
    uint64_t key = row + 1;
    Rng r(seed_, kTagSupplier, key);
    I32Col(c, 0)[i] = (int32_t)key;
    StrCol(c, 1)[i] = KeyName(a, "Supplier#", key);
    StrCol(c, 2)[i] = Address(a, r);
    int nation = (int)r.Below(25);
    I32Col(c, 3)[i] = nation;
    StrCol(c, 4)[i] = gen::Phone(a, r, nation);
    I64Col(c, 5)[i] = r.Range(-99999, 999999);
    StrRef comment = text_->Comment(r, 25, 100);
    auto it = picked_.find(key);
    if (it != picked_.end()) {
      // "Customer " and "Complaints"/"Recommends" written over the comment at a random
      // place, with 0 or more of its characters between them.
      size_t len = comment.size();
      char* p = a.Take(len);
      std::memcpy(p, comment.data(), len);
      size_t gap = (size_t)r.Below(len - 19 + 1);
      size_t at = (size_t)r.Below(len - 19 - gap + 1);
      std::memcpy(p + at, "Customer ", 9);
      std::memcpy(p + at + 9 + gap, it->second == 0 ? "Complaints" : "Recommends", 10);
      comment = StrRef(p, len);
    }
    StrCol(c, 6)[i] = comment;
  }

 private:
  std::map<uint64_t, int> picked_;  // suppkey -> 0 Complaints, 1 Recommends
};

class CustomerProducer : public TpchProducer {
 public:
  CustomerProducer(uint64_t rows, uint64_t seed, std::shared_ptr<const TpchText> text)
      : TpchProducer(CustomerSchema(), rows, seed, std::move(text)) {}
  void FillRow(uint64_t row, DataChunk& c, uint32_t i, Arena& a) const override {
    uint64_t key = row + 1;
    Rng r(seed_, kTagCustomer, key);
    I32Col(c, 0)[i] = (int32_t)key;
    StrCol(c, 1)[i] = KeyName(a, "Customer#", key);
    StrCol(c, 2)[i] = Address(a, r);
    int nation = (int)r.Below(25);
    I32Col(c, 3)[i] = nation;
    StrCol(c, 4)[i] = gen::Phone(a, r, nation);
    I64Col(c, 5)[i] = r.Range(-99999, 999999);
    StrCol(c, 6)[i] = kSegments[r.Below(5)];
    StrCol(c, 7)[i] = text_->Comment(r, 29, 116);
  }
};

class PartProducer : public TpchProducer {
 public:
  PartProducer(uint64_t rows, uint64_t seed, std::shared_ptr<const TpchText> text)
      : TpchProducer(PartSchema(), rows, seed, std::move(text)) {}
  void FillRow(uint64_t row, DataChunk& c, uint32_t i, Arena& a) const override {
    const Domains& d = D();
    uint64_t key = row + 1;
    Rng r(seed_, kTagPart, key);
    I32Col(c, 0)[i] = (int32_t)key;
    // p_name: five different color words separated by single spaces.
    int words[5];
    for (int w = 0; w < 5; w++) {
      for (;;) {
        words[w] = (int)r.Below(kNumColors);
        bool dup = false;
        for (int v = 0; v < w; v++) dup |= words[v] == words[w];
        if (!dup) break;
      }
    }
    char* p = a.Take(5 * 11);
    size_t n = 0;
    for (int w = 0; w < 5; w++) {
      if (w) p[n++] = ' ';
      size_t l = std::strlen(kColors[words[w]]);
      std::memcpy(p + n, kColors[words[w]], l);
      n += l;
    }
    StrCol(c, 1)[i] = StrRef(p, n);
    int m = (int)r.Below(5), b = (int)r.Below(5);
    StrCol(c, 2)[i] = d.mfgr[m];
    StrCol(c, 3)[i] = d.brand[m * 5 + b];
    StrCol(c, 4)[i] = d.type[r.Below(d.type.size())];
    I32Col(c, 5)[i] = (int32_t)r.Range(1, 50);
    StrCol(c, 6)[i] = d.container[r.Below(d.container.size())];
    I64Col(c, 7)[i] = RetailPriceCents((int64_t)key);
    StrCol(c, 8)[i] = text_->Comment(r, 5, 22);
  }
};

class PartsuppProducer : public TpchProducer {
 public:
  PartsuppProducer(uint64_t parts, uint64_t suppliers, uint64_t seed,
                   std::shared_ptr<const TpchText> text)
      : TpchProducer(PartsuppSchema(), parts * 4, seed, std::move(text)), supp_(suppliers) {}
  void FillRow(uint64_t row, DataChunk& c, uint32_t i, Arena&) const override {
    uint64_t part = row / 4 + 1;
    Rng r(seed_, kTagPartsupp, row);
    I32Col(c, 0)[i] = (int32_t)part;
    I32Col(c, 1)[i] = (int32_t)TpchPartSupplier((int64_t)part, (int)(row % 4), (int64_t)supp_);
    I32Col(c, 2)[i] = (int32_t)r.Range(1, 9999);
    I64Col(c, 3)[i] = r.Range(100, 100000);
    StrCol(c, 4)[i] = text_->Comment(r, 49, 198);
  }

 private:
  uint64_t supp_;
};

// ---------------------------------------------------------------------------------------
// Orders and their lines, from one random stream per order

struct Line {
  int32_t part, supp, qty, disc, tax, ship, commit, receipt, instruct, mode;
  int64_t ext;  // cents
  char returnflag, linestatus;
  StrRef comment;
};
struct Order {
  int32_t key, cust, date, prio, clerk, n;
  int64_t total;  // cents
  char status;
  StrRef comment;
  Line lines[7];
};

class OrderMaker {
 public:
  OrderMaker(const TpchCardinalities& n, uint64_t seed, std::shared_ptr<const TpchText> text)
      : n_(n), seed_(seed), text_(std::move(text)) {}

  // TPC-H sparse keys for the 0-based order index: 8 keys used of every 32, key =
  // (n / 8) x 32 + n % 8 for n = index + 1 (1-7, 32-39, 64-71, ...).
  static int32_t OrderKey(uint64_t idx) {
    uint64_t n = idx + 1;
    return (int32_t)(((n >> 3) << 5) | (n & 7));
  }

  // The line count is the first draw of the order's stream.
  int LineCount(uint64_t o) const { return 1 + (int)Rng(seed_, kTagOrder, o).Below(7); }

  void Make(uint64_t o, Order& ord) const {
    const Domains& d = D();
    Rng r(seed_, kTagOrder, o);
    ord.n = 1 + (int)r.Below(7);
    ord.key = OrderKey(o);
    // o_custkey is never a multiple of 3: draw among the non-multiples.
    uint64_t live = n_.customer - n_.customer / 3;
    uint64_t k = r.Below(live);
    ord.cust = (int32_t)((k / 2) * 3 + (k % 2) + 1);
    ord.date = d.start + (int32_t)r.Below((uint64_t)(d.last_order - d.start + 1));
    ord.prio = (int32_t)r.Below(5);
    ord.clerk = 1 + (int32_t)r.Below(n_.clerks);
    ord.comment = text_->Comment(r, 19, 78);
    __int128 total = 0;  // in 1/10,000 cent
    int open = 0;
    for (int l = 0; l < ord.n; l++) {
      Line& ln = ord.lines[l];
      ln.part = 1 + (int32_t)r.Below(n_.part);
      ln.supp = (int32_t)TpchPartSupplier(ln.part, (int)r.Below(4), (int64_t)n_.supplier);
      ln.qty = (int32_t)r.Range(1, 50);
      ln.disc = (int32_t)r.Range(0, 10);
      ln.tax = (int32_t)r.Range(0, 8);
      ln.ship = ord.date + (int32_t)r.Range(1, 121);
      ln.commit = ord.date + (int32_t)r.Range(30, 90);
      ln.receipt = ln.ship + (int32_t)r.Range(1, 30);
      ln.instruct = (int32_t)r.Below(4);
      ln.mode = (int32_t)r.Below(7);
      bool ar = r.Below(2);  // drawn for every line, used when the line was received
      ln.returnflag = ln.receipt <= d.current ? (ar ? 'A' : 'R') : 'N';
      ln.linestatus = ln.ship > d.current ? 'O' : 'F';
      open += ln.linestatus == 'O';
      ln.comment = text_->Comment(r, 10, 43);
      ln.ext = (int64_t)ln.qty * RetailPriceCents(ln.part);
      total += (__int128)ln.ext * (100 + ln.tax) * (100 - ln.disc);
    }
    ord.total = (int64_t)((total + 5000) / 10000);  // exact, rounded half up to cents
    ord.status = open == 0 ? 'F' : open == ord.n ? 'O' : 'P';
  }

 private:
  TpchCardinalities n_;
  uint64_t seed_;
  std::shared_ptr<const TpchText> text_;
};

StrRef Char1(char c) {
  static const char kFlags[] = "AFNOPR";
  const char* p = std::strchr(kFlags, c);
  return StrRef(p, 1);
}

class OrdersProducer : public TableProducer {
 public:
  OrdersProducer(const OrderMaker& m, uint64_t orders)
      : TableProducer(OrdersSchema()), maker_(m) {
    rows_ = orders;
  }
  void Produce(uint64_t t, DataChunk& c, Arena& a, const ChunkSink& sink) const override {
    uint64_t begin = t * kRowGroupSize, end = begin + TaskRows(t);
    Order ord;
    for (uint64_t r = begin; r < end;) {
      uint32_t n = (uint32_t)std::min<uint64_t>(kVectorSize, end - r);
      a.Reset();
      for (uint32_t i = 0; i < n; i++) {
        maker_.Make(r + i, ord);
        I32Col(c, 0)[i] = ord.key;
        I32Col(c, 1)[i] = ord.cust;
        StrCol(c, 2)[i] = Char1(ord.status);
        I64Col(c, 3)[i] = ord.total;
        I32Col(c, 4)[i] = ord.date;
        StrCol(c, 5)[i] = kPriorities[ord.prio];
        StrCol(c, 6)[i] = KeyName(a, "Clerk#", (uint64_t)ord.clerk);
        I32Col(c, 7)[i] = 0;
        StrCol(c, 8)[i] = ord.comment;
      }
      c.size = n;
      sink(c);
      r += n;
    }
  }

 private:
  const OrderMaker& maker_;
};

// lineitem: tasks are slices of kRowGroupSize lines; a task that starts inside an order
// regenerates that order. A first pass draws only each order's line count and keeps
// per-block prefix sums that locate task starts.
class LineitemProducer : public TableProducer {
 public:
  static constexpr uint64_t kBlockOrders = 4096;

  LineitemProducer(const OrderMaker& m, uint64_t orders, unsigned threads)
      : TableProducer(LineitemSchema()), maker_(m), orders_(orders) {
    uint64_t blocks = (orders_ + kBlockOrders - 1) / kBlockOrders;
    block_start_.assign(blocks + 1, 0);
    ParallelFor(blocks, threads, [&](uint64_t b, unsigned) {
      uint64_t lo = b * kBlockOrders, hi = std::min(orders_, lo + kBlockOrders);
      uint64_t lines = 0;
      for (uint64_t o = lo; o < hi; o++) lines += (uint64_t)maker_.LineCount(o);
      block_start_[b + 1] = lines;
    });
    for (uint64_t b = 0; b < blocks; b++) block_start_[b + 1] += block_start_[b];
    rows_ = block_start_[blocks];
  }

  void Produce(uint64_t t, DataChunk& c, Arena&, const ChunkSink& sink) const override {
    uint64_t first = t * kRowGroupSize, end = first + TaskRows(t);
    uint64_t b = (uint64_t)(std::upper_bound(block_start_.begin(), block_start_.end(), first) -
                            block_start_.begin()) - 1;
    uint64_t o = b * kBlockOrders, pos = block_start_[b];
    for (;;) {
      uint64_t n = (uint64_t)maker_.LineCount(o);
      if (pos + n > first) break;
      pos += n;
      o++;
    }
    Order ord;
    uint32_t i = 0;
    while (pos < end) {
      maker_.Make(o, ord);
      for (int l = 0; l < ord.n; l++, pos++) {
        if (pos < first) continue;
        if (pos >= end) break;
        const Line& ln = ord.lines[l];
        I32Col(c, 0)[i] = ord.key;
        I32Col(c, 1)[i] = ln.part;
        I32Col(c, 2)[i] = ln.supp;
        I32Col(c, 3)[i] = l + 1;
        I64Col(c, 4)[i] = (int64_t)ln.qty * 100;
        I64Col(c, 5)[i] = ln.ext;
        I64Col(c, 6)[i] = ln.disc;
        I64Col(c, 7)[i] = ln.tax;
        StrCol(c, 8)[i] = Char1(ln.returnflag);
        StrCol(c, 9)[i] = Char1(ln.linestatus);
        I32Col(c, 10)[i] = ln.ship;
        I32Col(c, 11)[i] = ln.commit;
        I32Col(c, 12)[i] = ln.receipt;
        StrCol(c, 13)[i] = kInstructions[ln.instruct];
        StrCol(c, 14)[i] = kShipModes[ln.mode];
        StrCol(c, 15)[i] = ln.comment;
        if (++i == kVectorSize) {
          c.size = i;
          sink(c);
          i = 0;
        }
      }
      o++;
    }
    if (i) {
      c.size = i;
      sink(c);
    }
  }

 private:
  const OrderMaker& maker_;
  uint64_t orders_;
  std::vector<uint64_t> block_start_;  // lines before block b (blocks of kBlockOrders)
};

// ---------------------------------------------------------------------------------------
// Drivers

struct Producers {
  std::unique_ptr<OrderMaker> maker;
  std::vector<std::unique_ptr<TableProducer>> tables;  // load order
};

Producers MakeProducers(const TpchOptions& opt) {
  TpchCardinalities n = TpchCounts(opt.sf);
  auto text = std::make_shared<const TpchText>(opt.seed);
  Producers p;
  p.maker = std::make_unique<OrderMaker>(n, opt.seed, text);
  auto& v = p.tables;
  v.push_back(std::make_unique<RegionProducer>(RegionSchema(), 5, opt.seed, text));
  v.push_back(std::make_unique<NationProducer>(NationSchema(), 25, opt.seed, text));
  v.push_back(std::make_unique<SupplierProducer>(n.supplier, opt.seed, text));
  v.push_back(std::make_unique<CustomerProducer>(n.customer, opt.seed, text));
  v.push_back(std::make_unique<PartProducer>(n.part, opt.seed, text));
  v.push_back(std::make_unique<PartsuppProducer>(n.part, n.supplier, opt.seed, text));
  v.push_back(std::make_unique<OrdersProducer>(*p.maker, n.orders));
  v.push_back(std::make_unique<LineitemProducer>(*p.maker, n.orders, opt.threads));
  return p;
}

gen::DriverOptions Driver(const TpchOptions& opt) {
  gen::DriverOptions d;
  d.threads = opt.threads;
  d.prefix = "tpch";
  d.progress = opt.progress;
  return d;
}

// True when the ps_suppkey formula gives the four suppliers of every part distinct keys.
bool PartSuppliersDistinct(uint64_t parts, uint64_t suppliers) {
  uint64_t max_q = (parts - 1) / suppliers;
  for (uint64_t q = 0; q <= max_q; q++) {
    uint64_t step = suppliers / 4 + q;
    for (uint64_t k = 1; k <= 3; k++)
      if (k * step % suppliers == 0) return false;
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Public API

std::vector<TableSchema> TpchSchemas() {
  return {RegionSchema(), NationSchema(), SupplierSchema(), CustomerSchema(),
          PartSchema(),   PartsuppSchema(), OrdersSchema(),  LineitemSchema()};
}

std::string TpchCreateTableSql(const TableSchema& s) { return gen::CreateTableSql(s); }

int64_t TpchPartSupplier(int64_t partkey, int i, int64_t suppliers) {
  return (partkey + (i * ((suppliers / 4) + (partkey - 1) / suppliers))) % suppliers + 1;
}

TpchCardinalities TpchCounts(double sf) {
  if (!(sf > 0) || !std::isfinite(sf))
    throw UserError(ErrorKind::Input, "TPC-H scale factor must be positive");
  // o_orderkey goes up to 6,000,000 x SF and must fit INTEGER.
  if (sf > 300) throw UserError(ErrorKind::Input,
                    "TPC-H scale factor above 300 is not supported (o_orderkey must fit INTEGER)");
  auto scaled = [&](double base) {
    return std::max<uint64_t>(1, (uint64_t)std::llround(base * sf));
  };
  TpchCardinalities n;
  n.supplier = scaled(10000);
  n.customer = scaled(150000);
  n.part = scaled(200000);
  n.partsupp = 4 * n.part;
  n.orders = scaled(1500000);
  n.clerks = scaled(1000);
  if (!PartSuppliersDistinct(n.part, n.supplier)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", sf);
    throw UserError(ErrorKind::Input,
                    std::string("TPC-H scale factor ") + buf +
                        " is too small: the specification's partsupp formula would give a "
                        "part the same supplier twice (0.01, 0.02 and every scale factor "
                        "from 0.03 up work)");
  }
  return n;
}

void GenerateTpch(Catalog& catalog, const TpchOptions& opt) {
  Producers p = MakeProducers(opt);
  for (auto& t : p.tables)
    if (catalog.GetTable(t->schema().name))
      throw UserError(ErrorKind::Catalog, "table \"" + t->schema().name + "\" already exists");
  for (auto& t : p.tables) catalog.CreateTable(t->schema());
  for (auto& t : p.tables) catalog.Append(t->schema().name, gen::BuildRowGroups(*t, Driver(opt)));
  if (opt.progress) opt.progress("tpch: done");
}

void WriteTpchTbl(const std::string& dir, const TpchOptions& opt) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UserError(ErrorKind::IO, "cannot create directory " + dir + ": " + ec.message());
  Producers p = MakeProducers(opt);
  for (auto& t : p.tables) gen::WriteTblFile(*t, dir, Driver(opt));
  if (opt.progress) opt.progress("tpch: done");
}

}  // namespace tessera
