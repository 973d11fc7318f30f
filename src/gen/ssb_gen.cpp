// SSB data generator. One row-producing core (TableProducer) fills DataChunks for a task
// (a fixed, thread-independent slice of a table); GenerateSsb turns the chunks into row
// groups, WriteSsbTbl into dbgen-format text. Randomness is counter-based: every order
// (lineorder) and every row (part, supplier, customer) has its own splitmix64 stream
// seeded from (seed, table, row number), so the output does not depend on threads.
#include "gen/ssb_gen.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "common/date.hpp"
#include "common/parallel.hpp"
#include "gen/gen_core.hpp"
#include "gen/tpch_domains.hpp"

namespace tessera {
namespace {

using gen::Arena;
using gen::ChunkSink;
using gen::PutDigits;
using gen::Rng;
using gen::RowTableProducer;
using gen::StrCol;
using gen::TableProducer;

// Random stream tags: every (seed, tag, key) has its own gen::Rng stream.
enum TableTag : uint64_t { kTagLineorder = 1, kTagPart = 2, kTagSupplier = 3, kTagCustomer = 4 };

// ---------------------------------------------------------------------------------------
// Constant domains

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
const char* const kPriorities[5] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECI", "5-LOW"};
const char* const kShipModes[7] = {"AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"};
// Month names as the reference generator spells them.
const char* const kMonths[12] = {"January", "February", "March",    "April",
                                 "May",     "June",     "July",     "Augest",
                                 "September", "Octorber", "November", "December"};
const char* const kMonthAbbr[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
const char* const kWeekdays[7] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                  "Thursday", "Friday", "Saturday"};
const char kAlnum[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

constexpr int kOrderDays = 2406;  // 1992-01-01 .. 1998-08-02
constexpr int kDateDays = 2556;   // 1992-01-01 .. 1998-12-30

// Strings built once (never modified afterwards, so views into them stay valid).
struct Domains {
  std::vector<std::string> part_names;  // 92 x 92 "color1 color2"
  std::vector<std::string> mfgr, category, brand, type, container, city;
  int32_t datekey[kDateDays];  // yyyymmdd of 1992-01-01 + i
  Domains() {
    for (int a = 0; a < kNumColors; a++)
      for (int b = 0; b < kNumColors; b++)
        part_names.push_back(std::string(kColors[a]) + " " + kColors[b]);
    for (int m = 1; m <= 5; m++) {
      mfgr.push_back("MFGR#" + std::to_string(m));
      for (int c = 1; c <= 5; c++) {
        std::string cat = "MFGR#" + std::to_string(m) + std::to_string(c);
        category.push_back(cat);
        for (int b = 1; b <= 40; b++) brand.push_back(cat + std::to_string(b));
      }
    }
    for (auto s1 : kTypeS1)
      for (auto s2 : kTypeS2)
        for (auto s3 : kTypeS3) type.push_back(std::string(s1) + " " + s2 + " " + s3);
    for (auto s1 : kContS1)
      for (auto s2 : kContS2) container.push_back(std::string(s1) + " " + s2);
    for (auto& n : kNations) {
      std::string base(n.name);
      base.resize(9, ' ');
      for (int d = 0; d < 10; d++) city.push_back(base + char('0' + d));
    }
    int32_t d0 = DaysFromCivil(1992, 1, 1);
    for (int i = 0; i < kDateDays; i++) {
      int y;
      unsigned m, d;
      CivilFromDays(d0 + i, y, m, d);
      datekey[i] = y * 10000 + (int)m * 100 + (int)d;
    }
  }
};

const Domains& D() {
  static const Domains d;
  return d;
}

inline int32_t RetailPrice(int32_t pk) { return 90000 + (pk / 10) % 20001 + 100 * (pk % 1000); }

// ---------------------------------------------------------------------------------------
// Schemas

ColumnDef I(const char* n) { return {n, Type::Integer(), false}; }
ColumnDef S(const char* n) { return {n, Type::Varchar(), false}; }

TableSchema LineorderSchema() {
  return {"lineorder",
          {I("lo_orderkey"), I("lo_linenumber"), I("lo_custkey"), I("lo_partkey"),
           I("lo_suppkey"), I("lo_orderdate"), S("lo_orderpriority"), S("lo_shippriority"),
           I("lo_quantity"), I("lo_extendedprice"), I("lo_ordtotalprice"), I("lo_discount"),
           I("lo_revenue"), I("lo_supplycost"), I("lo_tax"), I("lo_commitdate"),
           S("lo_shipmode")}};
}
TableSchema PartSchema() {
  return {"part",
          {I("p_partkey"), S("p_name"), S("p_mfgr"), S("p_category"), S("p_brand1"),
           S("p_color"), S("p_type"), I("p_size"), S("p_container")}};
}
TableSchema SupplierSchema() {
  return {"supplier",
          {I("s_suppkey"), S("s_name"), S("s_address"), S("s_city"), S("s_nation"),
           S("s_region"), S("s_phone")}};
}
TableSchema CustomerSchema() {
  return {"customer",
          {I("c_custkey"), S("c_name"), S("c_address"), S("c_city"), S("c_nation"),
           S("c_region"), S("c_phone"), S("c_mktsegment")}};
}
TableSchema DateSchema() {
  return {"date",
          {I("d_datekey"), S("d_date"), S("d_dayofweek"), S("d_month"), I("d_year"),
           I("d_yearmonthnum"), S("d_yearmonth"), I("d_daynuminweek"), I("d_daynuminmonth"),
           I("d_daynuminyear"), I("d_monthnuminyear"), I("d_weeknuminyear"),
           S("d_sellingseason"), I("d_lastdayinweekfl"), I("d_lastdayinmonthfl"),
           I("d_holidayfl"), I("d_weekdayfl")}};
}

// ---------------------------------------------------------------------------------------
// Row-producing core

inline int32_t* IntCol(DataChunk& c, int col) { return gen::I32Col(c, col); }

// part, supplier, customer and date: row r has key r + 1 and its own stream.
class SsbRowProducer : public RowTableProducer {
 public:
  using RowTableProducer::RowTableProducer;

 protected:
  uint64_t seed_ = 0;
};

StrRef MakeKeyName(Arena& a, const char* prefix, size_t plen, uint64_t key) {
  char* p = a.Take(plen + 9);
  std::memcpy(p, prefix, plen);
  PutDigits(p + plen, key, 9);
  return {p, plen + 9};
}
StrRef MakeAddress(Arena& a, Rng& r) {
  int len = r.Range(10, 25);
  char* p = a.Take((size_t)len);
  for (int i = 0; i < len; i++) p[i] = kAlnum[r.Below(62)];
  return {p, (size_t)len};
}

class PartProducer : public SsbRowProducer {
 public:
  PartProducer(uint64_t n, uint64_t seed) : SsbRowProducer(PartSchema()) {
    rows_ = n;
    seed_ = seed;
  }
  void FillRow(uint64_t row, DataChunk& c, uint32_t i, Arena&) const override {
    uint64_t key = row + 1;
    const Domains& d = D();
    Rng r(seed_, kTagPart, key);
    int c1 = (int)r.Below(kNumColors);
    int c2 = (c1 + 1 + (int)r.Below(kNumColors - 1)) % kNumColors;  // a different color
    int m = (int)r.Below(5), cat = (int)r.Below(5), b = (int)r.Below(40);
    IntCol(c, 0)[i] = (int32_t)key;
    StrCol(c, 1)[i] = d.part_names[c1 * kNumColors + c2];
    StrCol(c, 2)[i] = d.mfgr[m];
    StrCol(c, 3)[i] = d.category[m * 5 + cat];
    StrCol(c, 4)[i] = d.brand[(m * 5 + cat) * 40 + b];
    StrCol(c, 5)[i] = kColors[r.Below(kNumColors)];
    StrCol(c, 6)[i] = d.type[r.Below(d.type.size())];
    IntCol(c, 7)[i] = r.Range(1, 50);
    StrCol(c, 8)[i] = d.container[r.Below(d.container.size())];
  }
};

// supplier and customer share their first seven columns: key, name, address, city,
// nation, region, phone (same draw order, so the rows are unchanged).
void FillPartyColumns(Rng& r, const char* prefix, uint64_t key, DataChunk& c, uint32_t i, Arena& a) {
  IntCol(c, 0)[i] = (int32_t)key;
  StrCol(c, 1)[i] = MakeKeyName(a, prefix, 9, key);
  StrCol(c, 2)[i] = MakeAddress(a, r);
  int nation = (int)r.Below(25);
  StrCol(c, 3)[i] = D().city[nation * 10 + r.Below(10)];
  StrCol(c, 4)[i] = kNations[nation].name;
  StrCol(c, 5)[i] = kRegions[kNations[nation].region];
  StrCol(c, 6)[i] = gen::Phone(a, r, nation);
}

class SupplierProducer : public SsbRowProducer {
 public:
  SupplierProducer(uint64_t n, uint64_t seed) : SsbRowProducer(SupplierSchema()) {
    rows_ = n;
    seed_ = seed;
  }
  void FillRow(uint64_t row, DataChunk& c, uint32_t i, Arena& a) const override {
    uint64_t key = row + 1;
    Rng r(seed_, kTagSupplier, key);
    FillPartyColumns(r, "Supplier#", key, c, i, a);
  }
};

class CustomerProducer : public SsbRowProducer {
 public:
  CustomerProducer(uint64_t n, uint64_t seed) : SsbRowProducer(CustomerSchema()) {
    rows_ = n;
    seed_ = seed;
  }
  void FillRow(uint64_t row, DataChunk& c, uint32_t i, Arena& a) const override {
    uint64_t key = row + 1;
    Rng r(seed_, kTagCustomer, key);
    FillPartyColumns(r, "Customer#", key, c, i, a);
    StrCol(c, 7)[i] = kSegments[r.Below(5)];
  }
};

class DateProducer : public SsbRowProducer {
 public:
  DateProducer() : SsbRowProducer(DateSchema()) { rows_ = kDateDays; }
  void FillRow(uint64_t row, DataChunk& c, uint32_t i, Arena& a) const override {
    uint64_t key = row + 1;
    int32_t days = DaysFromCivil(1992, 1, 1) + (int32_t)(key - 1);
    int y;
    unsigned m, d;
    CivilFromDays(days, y, m, d);
    int doy = days - DaysFromCivil(y, 1, 1) + 1;
    // The reference labels every day one weekday later than the calendar (1992-01-01, a
    // Wednesday, is 'Thursday'); d_daynuminweek counts from Sunday = 1 on that label.
    int real_wd = (int)(((int64_t)days % 7 + 7 + 4) % 7);  // 1970-01-01 was a Thursday
    int wd = (real_wd + 1) % 7;
    IntCol(c, 0)[i] = y * 10000 + (int)m * 100 + (int)d;
    // d_date: "<Month> <day>, <year>"
    {
      char tmp[40];
      int len = std::snprintf(tmp, sizeof tmp, "%s %u, %d", kMonths[m - 1], d, y);
      char* p = a.Take((size_t)len);
      std::memcpy(p, tmp, (size_t)len);
      StrCol(c, 1)[i] = {p, (size_t)len};
    }
    StrCol(c, 2)[i] = kWeekdays[wd];
    StrCol(c, 3)[i] = kMonths[m - 1];
    IntCol(c, 4)[i] = y;
    IntCol(c, 5)[i] = y * 100 + (int)m;
    {
      char* p = a.Take(7);
      std::memcpy(p, kMonthAbbr[m - 1], 3);
      PutDigits(p + 3, (uint64_t)y, 4);
      StrCol(c, 6)[i] = {p, 7};
    }
    IntCol(c, 7)[i] = wd + 1;
    IntCol(c, 8)[i] = (int)d;
    IntCol(c, 9)[i] = doy;
    IntCol(c, 10)[i] = (int)m;
    IntCol(c, 11)[i] = doy / 7 + 1;  // 7-day blocks as the reference counts them
    const char* season = m == 12 ? "Christmas"
                         : m <= 2 ? "Winter"
                         : m <= 5 ? "Spring"
                         : m <= 8 ? "Summer"
                                  : "Fall";
    StrCol(c, 12)[i] = season;
    IntCol(c, 13)[i] = wd == 6;
    IntCol(c, 14)[i] = (int)d == DaysInMonth(y, (int)m);
    IntCol(c, 15)[i] = (m == 1 && d == 1) || (m == 7 && d == 4) || (m == 12 && d == 25);
    IntCol(c, 16)[i] = wd >= 1 && wd <= 5;
  }
};

// lineorder: orders 1..O (sparse TPC-H style orderkeys), each 1..7 lines. Tasks are
// slices of kRowGroupSize lines (so every row group but the last is full); a task may
// start inside an order, which it regenerates from the order's own random stream.
class LineorderProducer : public TableProducer {
 public:
  static constexpr uint64_t kBlockOrders = 4096;

  LineorderProducer(const SsbCardinalities& n, uint64_t seed, unsigned threads)
      : TableProducer(LineorderSchema()), orders_(n.orders), cust_(n.customer),
        partkeys_(n.partkey_range), supp_(n.supplier), seed_(seed) {
    uint64_t blocks = (orders_ + kBlockOrders - 1) / kBlockOrders;
    block_start_.assign(blocks + 1, 0);
    ParallelFor(blocks, threads, [&](uint64_t b, unsigned) {
      uint64_t lo = b * kBlockOrders + 1, hi = std::min(orders_, lo + kBlockOrders - 1);
      uint64_t lines = 0;
      for (uint64_t o = lo; o <= hi; o++) lines += LineCount(o);
      block_start_[b + 1] = lines;
    });
    for (uint64_t b = 0; b < blocks; b++) block_start_[b + 1] += block_start_[b];
    rows_ = block_start_[blocks];
  }

  static uint64_t OrderKey(uint64_t idx) {  // TPC-H sparse keys: 8 used of every 32
    return ((idx >> 3) << 5) | (idx & 7);
  }

  void Produce(uint64_t t, DataChunk& c, Arena& arena, const ChunkSink& sink) const override {
    uint64_t first = t * kRowGroupSize, end = first + TaskRows(t);
    // Locate the order holding line `first`.
    uint64_t b = (uint64_t)(std::upper_bound(block_start_.begin(), block_start_.end(), first) -
                            block_start_.begin()) - 1;
    uint64_t o = b * kBlockOrders + 1, pos = block_start_[b];
    for (;;) {
      uint64_t n = LineCount(o);
      if (pos + n > first) break;
      pos += n;
      o++;
    }
    Order ord;
    uint32_t i = 0;
    int32_t* col[17] = {};
    StrRef* scol[17] = {};
    for (int k = 0; k < 17; k++) {
      if (k == 6 || k == 7 || k == 16) scol[k] = StrCol(c, k);
      else col[k] = IntCol(c, k);
    }
    const int32_t* datekey = D().datekey;
    while (pos < end) {
      MakeOrder(o, ord);
      for (int l = 0; l < ord.n; l++, pos++) {
        if (pos < first) continue;
        if (pos >= end) break;
        const Line& ln = ord.lines[l];
        col[0][i] = ord.key;
        col[1][i] = l + 1;
        col[2][i] = ord.cust;
        col[3][i] = ln.part;
        col[4][i] = ln.supp;
        col[5][i] = datekey[ord.date];
        scol[6][i] = kPriorities[ord.prio];
        scol[7][i] = StrRef("0", 1);
        col[8][i] = ln.qty;
        col[9][i] = ln.ext;
        col[10][i] = ord.total;
        col[11][i] = ln.disc;
        col[12][i] = ln.rev;
        col[13][i] = ln.cost;
        col[14][i] = ln.tax;
        col[15][i] = datekey[ord.date + ln.commit];
        scol[16][i] = kShipModes[ln.mode];
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
    (void)arena;
  }

 private:
  struct Line {
    int32_t part, supp, qty, disc, tax, commit, mode, ext, rev, cost;
  };
  struct Order {
    int32_t key, cust, date, prio, n, total;
    Line lines[7];
  };

  // The line count is the first draw of the order's stream.
  uint32_t LineCount(uint64_t o) const { return 1 + Rng(seed_, kTagLineorder, o).Below(7); }

  void MakeOrder(uint64_t o, Order& ord) const {
    Rng r(seed_, kTagLineorder, o);
    ord.n = 1 + (int32_t)r.Below(7);
    ord.key = (int32_t)OrderKey(o);
    // Customer keys skip multiples of 3 (as dbgen does): draw among the non-multiples.
    uint64_t live = cust_ - cust_ / 3;
    uint64_t k = r.Below(live);
    ord.cust = (int32_t)((k / 2) * 3 + (k % 2) + 1);
    ord.date = (int32_t)r.Below(kOrderDays);
    ord.prio = (int32_t)r.Below(5);
    int64_t total = 0;
    for (int l = 0; l < ord.n; l++) {
      Line& ln = ord.lines[l];
      ln.part = 1 + (int32_t)r.Below(partkeys_);
      ln.supp = 1 + (int32_t)r.Below(supp_);
      ln.qty = r.Range(1, 50);
      ln.disc = r.Range(0, 10);
      ln.tax = r.Range(0, 8);
      ln.commit = r.Range(30, 90);
      ln.mode = (int32_t)r.Below(7);
      int64_t price = RetailPrice(ln.part);
      int64_t ext = (int64_t)ln.qty * price;
      ln.ext = (int32_t)ext;
      ln.rev = (int32_t)(ext * (100 - ln.disc) / 100);
      ln.cost = (int32_t)(6 * price / 10);
      total += ext * (100 + ln.tax) / 100 * (100 - ln.disc) / 100;
    }
    ord.total = (int32_t)total;
  }

  uint64_t orders_, cust_, partkeys_, supp_, seed_;
  std::vector<uint64_t> block_start_;  // lines before block b (blocks of kBlockOrders)
};

// ---------------------------------------------------------------------------------------
// Drivers

gen::DriverOptions Driver(const SsbOptions& opt) {
  gen::DriverOptions d;
  d.threads = opt.threads;
  d.prefix = "ssb";
  d.progress = opt.progress;
  return d;
}

std::vector<std::unique_ptr<TableProducer>> MakeProducers(const SsbOptions& opt) {
  SsbCardinalities n = SsbCounts(opt.sf);
  std::vector<std::unique_ptr<TableProducer>> v;
  v.push_back(std::make_unique<LineorderProducer>(n, opt.seed, opt.threads));
  v.push_back(std::make_unique<PartProducer>(n.part, opt.seed));
  v.push_back(std::make_unique<SupplierProducer>(n.supplier, opt.seed));
  v.push_back(std::make_unique<CustomerProducer>(n.customer, opt.seed));
  v.push_back(std::make_unique<DateProducer>());
  return v;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Public API

std::vector<TableSchema> SsbSchemas() {
  return {LineorderSchema(), PartSchema(), SupplierSchema(), CustomerSchema(), DateSchema()};
}

std::string SsbCreateTableSql(const TableSchema& s) { return gen::CreateTableSql(s); }

SsbCardinalities SsbCounts(double sf) {
  if (!(sf > 0) || !std::isfinite(sf))
    throw UserError(ErrorKind::Input, "SSB scale factor must be positive");
  // Orderkeys are sparse (4 x orders) and must fit INTEGER.
  if (sf > 300) throw UserError(ErrorKind::Input, "SSB scale factor above 300 is not supported");
  auto scaled = [&](double base) {
    return std::max<uint64_t>(1, (uint64_t)std::llround(base * sf));
  };
  SsbCardinalities n;
  n.orders = scaled(1500000);
  n.supplier = scaled(2000);
  n.customer = scaled(30000);
  n.date = kDateDays;
  if (sf >= 1) {
    n.part = 200000 * (uint64_t)std::floor(1 + std::log2(sf));
    n.partkey_range = std::min<uint64_t>(n.part, 200000 * (uint64_t)(std::floor(std::log(sf)) + 1));
  } else {
    n.part = scaled(200000);
    n.partkey_range = n.part;
  }
  return n;
}

void GenerateSsb(Catalog& catalog, const SsbOptions& opt) {
  auto producers = MakeProducers(opt);
  for (auto& p : producers)
    if (catalog.GetTable(p->schema().name))
      throw UserError(ErrorKind::Catalog, "table \"" + p->schema().name + "\" already exists");
  for (auto& p : producers) catalog.CreateTable(p->schema());
  // Small tables first, lineorder last.
  for (size_t k = producers.size(); k-- > 0;) {
    const TableProducer& p = *producers[k];
    catalog.Append(p.schema().name, gen::BuildRowGroups(p, Driver(opt)));
  }
  if (opt.progress) opt.progress("ssb: done");
}

void WriteSsbTbl(const std::string& dir, const SsbOptions& opt) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UserError(ErrorKind::IO, "cannot create directory " + dir + ": " + ec.message());
  auto producers = MakeProducers(opt);
  for (size_t k = producers.size(); k-- > 0;) gen::WriteTblFile(*producers[k], dir, Driver(opt));
  if (opt.progress) opt.progress("ssb: done");
}

}  // namespace tessera
