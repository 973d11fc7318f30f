// TPC-H generator: schemas, cardinalities, key relationships, value domains, derived
// columns, comments, determinism and .tbl output at SF 0.01.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "check.hpp"
#include "common/date.hpp"
#include "gen/tpch_gen.hpp"

using namespace tessera;

namespace {

constexpr double kSf = 0.01;

// A table's contents, column-wise: numbers (INTEGER, DATE as days, DECIMAL in cents) or
// strings (VARCHAR).
struct Cols {
  TableSchema schema;
  uint64_t rows = 0;
  std::vector<std::vector<int64_t>> nums;
  std::vector<std::vector<std::string>> strs;
  int C(const char* name) const {
    int c = schema.Find(name);
    if (c < 0) throw std::runtime_error(std::string("no column ") + name);
    return c;
  }
  const std::vector<int64_t>& N(const char* n) const { return nums[C(n)]; }
  const std::vector<std::string>& S(const char* n) const { return strs[C(n)]; }
  // Row r in .tbl text form (without the newline), formatted independently of the generator.
  std::string Line(uint64_t r) const {
    std::string s;
    for (size_t c = 0; c < schema.columns.size(); c++) {
      const Type& t = schema.columns[c].type;
      if (t.id == TypeId::Varchar) {
        s += strs[c][r];
      } else if (t.id == TypeId::Date) {
        s += FormatDate((int32_t)nums[c][r]);
      } else if (t.id == TypeId::Decimal) {
        int64_t v = nums[c][r];
        char buf[40];
        std::snprintf(buf, sizeof buf, "%s%lld.%02lld", v < 0 ? "-" : "",
                      (long long)(std::llabs(v) / 100), (long long)(std::llabs(v) % 100));
        s += buf;
      } else {
        s += std::to_string(nums[c][r]);
      }
      s += '|';
    }
    return s;
  }
};

Cols Read(const Catalog& cat, const std::string& name) {
  Cols t;
  auto e = cat.GetTable(name);
  if (!e) throw std::runtime_error("missing table " + name);
  t.schema = e->schema;
  size_t nc = t.schema.columns.size();
  t.nums.resize(nc);
  t.strs.resize(nc);
  for (auto& rg : e->data->row_groups) {
    for (size_t c = 0; c < nc; c++) {
      const ColumnChunk& ch = *rg->columns[c];
      ch.EnsureVerified();
      for (uint32_t i = 0; i < rg->count; i++) {
        switch (ch.type.physical()) {
          case PhysType::Str: t.strs[c].emplace_back(ch.GetString(i)); break;
          case PhysType::I32: t.nums[c].push_back(reinterpret_cast<const int32_t*>(ch.data)[i]); break;
          case PhysType::I64: t.nums[c].push_back(reinterpret_cast<const int64_t*>(ch.data)[i]); break;
          default: throw std::runtime_error("unexpected column type");
        }
      }
    }
    t.rows += rg->count;
  }
  if (t.rows != e->data->row_count) throw std::runtime_error("row count mismatch");
  return t;
}

struct Db {
  Catalog cat;
  std::map<std::string, Cols> t;
};

std::unique_ptr<Db> Gen(double sf, unsigned threads, uint64_t seed = 19920101) {
  auto db = std::make_unique<Db>();
  TpchOptions o;
  o.sf = sf;
  o.threads = threads;
  o.seed = seed;
  GenerateTpch(db->cat, o);
  for (auto& s : TpchSchemas()) db->t[s.name] = Read(db->cat, s.name);
  return db;
}

const Db& Shared() {
  static std::unique_ptr<Db> db = Gen(kSf, 2);
  return *db;
}

int64_t Retail(int64_t pk) { return 90000 + (pk / 10) % 20001 + 100 * (pk % 1000); }
int32_t Day(int y, unsigned m, unsigned d) { return DaysFromCivil(y, m, d); }

template <class T>
std::pair<T, T> MinMax(const std::vector<T>& v) {
  auto [a, b] = std::minmax_element(v.begin(), v.end());
  return {*a, *b};
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t a = 0, b;
  while ((b = s.find(sep, a)) != std::string::npos) {
    out.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  out.push_back(s.substr(a));
  return out;
}

bool AllDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Every value of `col` has min..max characters, no '|' and no space at either end.
bool CommentsOk(const std::vector<std::string>& col, size_t min, size_t max) {
  for (const std::string& s : col) {
    if (s.size() < min || s.size() > max) return false;
    if (s.find('|') != std::string::npos || s.front() == ' ' || s.back() == ' ') return false;
  }
  return true;
}

const std::set<std::string> kColorSet = {
    "almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched", "blue",
    "blush", "brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral",
    "cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim", "dodger", "drab",
    "firebrick", "floral", "forest", "frosted", "gainsboro", "ghost", "goldenrod", "green",
    "grey", "honeydew", "hot", "indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon",
    "light", "lime", "linen", "magenta", "maroon", "medium", "metallic", "midnight", "mint",
    "misty", "moccasin", "navajo", "navy", "olive", "orange", "orchid", "pale", "papaya",
    "peach", "peru", "pink", "plum", "powder", "puff", "purple", "red", "rose", "rosy", "royal",
    "saddle", "salmon", "sandy", "seashell", "sienna", "sky", "slate", "smoke", "snow", "spring",
    "steel", "tan", "thistle", "tomato", "turquoise", "violet", "wheat", "white", "yellow"};

}  // namespace

TEST(tpch_schemas) {
  auto s = TpchSchemas();
  std::vector<std::string> names;
  for (auto& t : s) names.push_back(t.name);
  CHECK(names == std::vector<std::string>({"region", "nation", "supplier", "customer", "part",
                                           "partsupp", "orders", "lineitem"}));
  std::vector<size_t> widths = {3, 4, 7, 8, 9, 5, 9, 16};
  for (size_t i = 0; i < s.size(); i++) CHECK_EQ(s[i].columns.size(), widths[i]);
  const TableSchema& li = s[7];
  CHECK(li.columns[li.Find("l_extendedprice")].type == Type::Decimal(15, 2));
  CHECK(li.columns[li.Find("l_quantity")].type == Type::Decimal(15, 2));
  CHECK(li.columns[li.Find("l_shipdate")].type == Type::Date());
  CHECK(li.columns[li.Find("l_orderkey")].type == Type::Integer());
  CHECK_EQ(TpchCreateTableSql(s[0]),
           std::string("CREATE TABLE region (r_regionkey INTEGER, r_name VARCHAR, r_comment VARCHAR);"));
}

TEST(tpch_counts_and_scale_factor_limits) {
  auto n = TpchCounts(1);
  CHECK_EQ(n.supplier, (uint64_t)10000);
  CHECK_EQ(n.customer, (uint64_t)150000);
  CHECK_EQ(n.part, (uint64_t)200000);
  CHECK_EQ(n.partsupp, (uint64_t)800000);
  CHECK_EQ(n.orders, (uint64_t)1500000);
  CHECK_EQ(n.clerks, (uint64_t)1000);
  CHECK_EQ(TpchCounts(0.1).orders, (uint64_t)150000);
  CHECK_EQ(TpchCounts(0.02).supplier, (uint64_t)200);
  CHECK_THROWS(TpchCounts(0));
  CHECK_THROWS(TpchCounts(-1));
  CHECK_THROWS(TpchCounts(301));
  // Too few suppliers for the partsupp formula to give each part four different ones.
  CHECK_THROWS_WITH(TpchCounts(0.005), "too small");
  CHECK_THROWS_WITH(TpchCounts(0.015), "too small");
}

TEST(tpch_partsupp_formula) {
  // (partkey + i * (S/4 + (partkey-1)/S)) mod S + 1, worked by hand for S = 10,000.
  CHECK_EQ(TpchPartSupplier(1, 0, 10000), (int64_t)2);
  CHECK_EQ(TpchPartSupplier(1, 1, 10000), (int64_t)2502);
  CHECK_EQ(TpchPartSupplier(1, 3, 10000), (int64_t)7502);
  CHECK_EQ(TpchPartSupplier(25001, 2, 10000), (int64_t)(25001 + 2 * (2500 + 2)) % 10000 + 1);
  CHECK_EQ(TpchPartSupplier(9999, 0, 10000), (int64_t)10000);
  CHECK_EQ(TpchPartSupplier(10000, 0, 10000), (int64_t)1);
}

TEST(tpch_cardinalities) {
  const Db& db = Shared();
  CHECK_EQ(db.t.at("region").rows, (uint64_t)5);
  CHECK_EQ(db.t.at("nation").rows, (uint64_t)25);
  CHECK_EQ(db.t.at("supplier").rows, (uint64_t)100);
  CHECK_EQ(db.t.at("customer").rows, (uint64_t)1500);
  CHECK_EQ(db.t.at("part").rows, (uint64_t)2000);
  CHECK_EQ(db.t.at("partsupp").rows, (uint64_t)8000);
  CHECK_EQ(db.t.at("orders").rows, (uint64_t)15000);
  uint64_t lines = db.t.at("lineitem").rows;  // 1..7 per order: about 60,000
  CHECK(lines > 58000 && lines < 62000);
}

TEST(tpch_fixed_tables) {
  const Db& db = Shared();
  auto& r = db.t.at("region");
  CHECK(r.S("r_name") == std::vector<std::string>({"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}));
  CHECK(r.N("r_regionkey") == std::vector<int64_t>({0, 1, 2, 3, 4}));
  auto& n = db.t.at("nation");
  CHECK_EQ(n.S("n_name")[0], std::string("ALGERIA"));
  CHECK_EQ(n.S("n_name")[7], std::string("GERMANY"));
  CHECK_EQ(n.N("n_regionkey")[7], (int64_t)3);
  CHECK_EQ(n.S("n_name")[20], std::string("SAUDI ARABIA"));
  CHECK_EQ(n.N("n_regionkey")[20], (int64_t)4);
  CHECK_EQ(n.S("n_name")[24], std::string("UNITED STATES"));
  CHECK_EQ(n.N("n_regionkey")[24], (int64_t)1);
  std::vector<int> per_region(5);
  for (int64_t k : n.N("n_regionkey")) per_region[k]++;
  CHECK(per_region == std::vector<int>({5, 5, 5, 5, 5}));
  CHECK(CommentsOk(r.S("r_comment"), 31, 115));
  CHECK(CommentsOk(n.S("n_comment"), 31, 114));
}

TEST(tpch_part_and_partsupp) {
  const Db& db = Shared();
  auto& p = db.t.at("part");
  bool names = true, brands = true, types = true, containers = true, prices = true;
  std::set<std::string> type_set, container_set;
  for (uint64_t r = 0; r < p.rows; r++) {
    int64_t key = p.N("p_partkey")[r];
    names &= key == (int64_t)r + 1;
    auto words = Split(p.S("p_name")[r], ' ');
    std::set<std::string> distinct(words.begin(), words.end());
    names &= words.size() == 5 && distinct.size() == 5;
    for (auto& w : words) names &= kColorSet.count(w) == 1;
    const std::string& mfgr = p.S("p_mfgr")[r];
    const std::string& brand = p.S("p_brand")[r];
    brands &= mfgr.size() == 14 && mfgr.rfind("Manufacturer#", 0) == 0 && mfgr[13] >= '1' &&
              mfgr[13] <= '5';
    brands &= brand.size() == 8 && brand.rfind("Brand#", 0) == 0 && brand[6] == mfgr[13] &&
              brand[7] >= '1' && brand[7] <= '5';
    auto t = Split(p.S("p_type")[r], ' ');
    types &= t.size() == 3;
    type_set.insert(p.S("p_type")[r]);
    auto c = Split(p.S("p_container")[r], ' ');
    containers &= c.size() == 2;
    container_set.insert(p.S("p_container")[r]);
    prices &= p.N("p_retailprice")[r] == Retail(key);
  }
  CHECK(names);
  CHECK(brands);
  CHECK(types);
  CHECK(containers);
  CHECK(prices);
  CHECK_EQ(type_set.size(), (size_t)150);  // 6 x 5 x 5, all drawn among 2,000 parts
  CHECK_EQ(container_set.size(), (size_t)40);
  CHECK(type_set.count("ECONOMY ANODIZED STEEL") && type_set.count("PROMO BRUSHED BRASS"));
  CHECK(container_set.count("MED BOX") && container_set.count("JUMBO DRUM"));
  CHECK((MinMax(p.N("p_size")) == std::make_pair<int64_t, int64_t>(1, 50)));
  CHECK_EQ(p.N("p_retailprice")[0], (int64_t)90100);  // 901.00 for part 1
  CHECK(CommentsOk(p.S("p_comment"), 5, 22));

  auto& ps = db.t.at("partsupp");
  std::set<std::pair<int64_t, int64_t>> pairs;
  bool formula = true;
  for (uint64_t r = 0; r < ps.rows; r++) {
    int64_t pk = ps.N("ps_partkey")[r], sk = ps.N("ps_suppkey")[r];
    formula &= pk == (int64_t)(r / 4) + 1;
    formula &= sk == (pk + (int64_t)(r % 4) * (100 / 4 + (pk - 1) / 100)) % 100 + 1;
    pairs.insert({pk, sk});
  }
  CHECK(formula);
  CHECK_EQ(pairs.size(), (size_t)8000);  // (ps_partkey, ps_suppkey) is a key
  CHECK((MinMax(ps.N("ps_availqty")) == std::make_pair<int64_t, int64_t>(1, 9999)));
  auto [cmin, cmax] = MinMax(ps.N("ps_supplycost"));
  CHECK(cmin >= 100 && cmax <= 100000 && cmax > 99000);
  CHECK(CommentsOk(ps.S("ps_comment"), 49, 198));
}

TEST(tpch_supplier_and_customer) {
  const Db& db = Shared();
  for (const char* tn : {"supplier", "customer"}) {
    auto& t = db.t.at(tn);
    std::string p = tn[0] == 's' ? "s_" : "c_";
    std::string prefix = tn[0] == 's' ? "Supplier#" : "Customer#";
    bool ok = true;
    for (uint64_t r = 0; r < t.rows; r++) {
      int64_t key = t.N((p + (tn[0] == 's' ? "suppkey" : "custkey")).c_str())[r];
      ok &= key == (int64_t)r + 1;
      char name[32];
      std::snprintf(name, sizeof name, "%s%09lld", prefix.c_str(), (long long)key);
      ok &= t.S((p + "name").c_str())[r] == name;
      int64_t nation = t.N((p + "nationkey").c_str())[r];
      ok &= nation >= 0 && nation <= 24;
      auto phone = Split(t.S((p + "phone").c_str())[r], '-');
      ok &= phone.size() == 4 && phone[0] == std::to_string(nation + 10) &&
            phone[1].size() == 3 && phone[2].size() == 3 && phone[3].size() == 4 &&
            AllDigits(phone[1]) && AllDigits(phone[2]) && AllDigits(phone[3]);
      const std::string& addr = t.S((p + "address").c_str())[r];
      ok &= addr.size() >= 10 && addr.size() <= 40 && addr.front() != ' ' && addr.back() != ' ';
      int64_t bal = t.N((p + "acctbal").c_str())[r];
      ok &= bal >= -99999 && bal <= 999999;
    }
    CHECK(ok);
  }
  auto& c = db.t.at("customer");
  std::set<std::string> seg(c.S("c_mktsegment").begin(), c.S("c_mktsegment").end());
  CHECK(seg == std::set<std::string>({"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"}));
  CHECK(CommentsOk(c.S("c_comment"), 29, 116));
  auto& s = db.t.at("supplier");
  CHECK(CommentsOk(s.S("s_comment"), 25, 100));
  // max(1, round(SF x 5)) suppliers each for "Customer%Complaints" and "Customer%Recommends".
  int complaints = 0, recommends = 0;
  for (const std::string& x : s.S("s_comment")) {
    size_t at = x.find("Customer ");
    if (at == std::string::npos) continue;
    complaints += x.find("Complaints", at + 9) != std::string::npos;
    recommends += x.find("Recommends", at + 9) != std::string::npos;
  }
  CHECK_EQ(complaints, 1);
  CHECK_EQ(recommends, 1);
}

TEST(tpch_orders_and_lineitem) {
  const Db& db = Shared();
  auto& o = db.t.at("orders");
  auto& l = db.t.at("lineitem");
  const int32_t current = Day(1995, 6, 17);
  // Orders: sparse keys (8 used of every 32), customers never multiples of 3.
  std::map<int64_t, uint64_t> order_row;
  bool keys = true;
  for (uint64_t r = 0; r < o.rows; r++) {
    int64_t k = o.N("o_orderkey")[r];
    keys &= k >= 1 && k % 32 < 8 && order_row.emplace(k, r).second;
    int64_t c = o.N("o_custkey")[r];
    keys &= c >= 1 && c <= 1500 && c % 3 != 0;
  }
  CHECK(keys);
  CHECK_EQ(order_row.begin()->first, (int64_t)1);
  CHECK_EQ(order_row.rbegin()->first, (int64_t)60000);
  auto [dmin, dmax] = MinMax(o.N("o_orderdate"));
  CHECK(dmin >= Day(1992, 1, 1) && dmax <= Day(1998, 8, 2) && dmax > Day(1998, 7, 1));
  std::set<std::string> prio(o.S("o_orderpriority").begin(), o.S("o_orderpriority").end());
  CHECK(prio == std::set<std::string>({"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}));
  std::set<std::string> clerks(o.S("o_clerk").begin(), o.S("o_clerk").end());
  CHECK_EQ(clerks.size(), (size_t)10);  // SF x 1,000
  CHECK(*clerks.begin() == "Clerk#000000001" && *clerks.rbegin() == "Clerk#000000010");
  CHECK((MinMax(o.N("o_shippriority")) == std::make_pair<int64_t, int64_t>(0, 0)));
  CHECK(CommentsOk(o.S("o_comment"), 19, 78));

  // Lines, grouped by order: numbering, keys from partsupp, dates, flags, prices.
  std::set<std::pair<int64_t, int64_t>> partsupp;
  auto& ps = db.t.at("partsupp");
  for (uint64_t r = 0; r < ps.rows; r++) partsupp.insert({ps.N("ps_partkey")[r], ps.N("ps_suppkey")[r]});
  std::map<int64_t, __int128> total;  // order key -> exact sum in 1/10,000 cent
  std::map<int64_t, std::string> statuses;
  bool lines = true, dates = true, flags = true, prices = true, linkage = true;
  std::set<std::string> rflags, instructs, modes;
  for (uint64_t r = 0; r < l.rows; r++) {
    int64_t ok = l.N("l_orderkey")[r], ln = l.N("l_linenumber")[r];
    bool first = r == 0 || l.N("l_orderkey")[r - 1] != ok;
    lines &= first ? ln == 1 : ln == l.N("l_linenumber")[r - 1] + 1;
    lines &= ln <= 7;
    auto it = order_row.find(ok);
    if (it == order_row.end()) {
      linkage = false;
      continue;
    }
    int64_t pk = l.N("l_partkey")[r], sk = l.N("l_suppkey")[r];
    linkage &= partsupp.count({pk, sk}) == 1;
    int64_t od = o.N("o_orderdate")[it->second];
    int64_t ship = l.N("l_shipdate")[r], commit = l.N("l_commitdate")[r],
            receipt = l.N("l_receiptdate")[r];
    dates &= ship - od >= 1 && ship - od <= 121 && commit - od >= 30 && commit - od <= 90 &&
             receipt - ship >= 1 && receipt - ship <= 30;
    const std::string& rf = l.S("l_returnflag")[r];
    const std::string& ls = l.S("l_linestatus")[r];
    flags &= receipt <= current ? (rf == "R" || rf == "A") : rf == "N";
    flags &= ls == (ship > current ? "O" : "F");
    rflags.insert(rf);
    statuses[ok] += ls;
    int64_t qty = l.N("l_quantity")[r], ext = l.N("l_extendedprice")[r];
    int64_t disc = l.N("l_discount")[r], tax = l.N("l_tax")[r];
    prices &= qty % 100 == 0 && qty >= 100 && qty <= 5000;
    prices &= ext == qty / 100 * Retail(pk);
    prices &= disc >= 0 && disc <= 10 && tax >= 0 && tax <= 8;
    total[ok] += (__int128)ext * (100 + tax) * (100 - disc);
    instructs.insert(l.S("l_shipinstruct")[r]);
    modes.insert(l.S("l_shipmode")[r]);
  }
  CHECK(lines);
  CHECK(linkage);
  CHECK(dates);
  CHECK(flags);
  CHECK(prices);
  CHECK(rflags == std::set<std::string>({"A", "N", "R"}));
  CHECK(instructs == std::set<std::string>({"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}));
  CHECK(modes == std::set<std::string>({"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}));
  CHECK((MinMax(l.N("l_discount")) == std::make_pair<int64_t, int64_t>(0, 10)));
  CHECK((MinMax(l.N("l_tax")) == std::make_pair<int64_t, int64_t>(0, 8)));
  CHECK(CommentsOk(l.S("l_comment"), 10, 43));
  CHECK_EQ(total.size(), (size_t)15000);  // every order has lines

  // o_totalprice and o_orderstatus derived from the lines.
  bool totals = true, status = true;
  std::map<std::string, int> status_count;
  for (uint64_t r = 0; r < o.rows; r++) {
    int64_t k = o.N("o_orderkey")[r];
    totals &= o.N("o_totalprice")[r] == (int64_t)((total[k] + 5000) / 10000);
    const std::string& s = statuses[k];
    std::string want = s.find('O') == std::string::npos ? "F"
                       : s.find('F') == std::string::npos ? "O" : "P";
    status &= o.S("o_orderstatus")[r] == want;
    status_count[o.S("o_orderstatus")[r]]++;
  }
  CHECK(totals);
  CHECK(status);
  CHECK(status_count["F"] > 6000 && status_count["O"] > 6000 && status_count["P"] > 100);

  // The comment text carries the grammar's words (queries 13 and 16 search for them).
  int special_requests = 0;
  for (const std::string& c : o.S("o_comment")) {
    size_t a = c.find("special");
    special_requests += a != std::string::npos && c.find("requests", a) != std::string::npos;
  }
  CHECK(special_requests > 50 && special_requests < 3000);
}

TEST(tpch_deterministic) {
  const Db& a = Shared();
  auto b = Gen(kSf, 1);  // other thread count, same data
  for (auto& s : TpchSchemas()) {
    const Cols& x = a.t.at(s.name);
    const Cols& y = b->t.at(s.name);
    CHECK_EQ(x.rows, y.rows);
    CHECK(x.nums == y.nums);
    CHECK(x.strs == y.strs);
  }
  auto c = Gen(kSf, 2, 7);  // other seed, other data
  CHECK(a.t.at("lineitem").nums != c->t.at("lineitem").nums);
  CHECK(a.t.at("part").strs != c->t.at("part").strs);
}

TEST(tpch_existing_table_rejected) {
  Catalog cat;
  cat.CreateTable({"orders", {{"x", Type::Integer(), false}}});
  TpchOptions o;
  o.sf = kSf;
  CHECK_THROWS_WITH(GenerateTpch(cat, o), "already exists");
  CHECK(!cat.GetTable("lineitem"));  // nothing was created
}

TEST(tpch_tbl_output) {
  const Db& db = Shared();
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("tpch_gen_test_" + std::to_string(getpid()))).string();
  TpchOptions o;
  o.sf = kSf;
  o.threads = 2;
  std::vector<std::string> msgs;
  o.progress = [&](const std::string& m) { msgs.push_back(m); };
  WriteTpchTbl(dir, o);
  CHECK(!msgs.empty());
  CHECK_EQ(msgs.back(), std::string("tpch: done"));
  for (auto& s : TpchSchemas()) {
    std::ifstream in(dir + "/" + s.name + ".tbl", std::ios::binary);
    CHECK(in.good());
    const Cols& t = db.t.at(s.name);
    std::string line;
    uint64_t r = 0, mismatches = 0;
    while (std::getline(in, line)) {
      if (r >= t.rows || line != t.Line(r)) mismatches++;
      r++;
    }
    CHECK_EQ(r, t.rows);
    CHECK_EQ(mismatches, (uint64_t)0);
    CHECK(!std::filesystem::exists(dir + "/" + s.name + ".tbl.tmp"));
  }
  // The first lineitem line, read as text: '|' after every field, dbgen's formats.
  std::ifstream in(dir + "/lineitem.tbl");
  std::string line;
  std::getline(in, line);
  auto f = Split(line, '|');
  CHECK_EQ(f.size(), (size_t)17);  // 16 fields and the empty rest after the last '|'
  CHECK(f[16].empty());
  CHECK_EQ(f[4].size() - f[4].find('.'), (size_t)3);  // quantity with two decimals
  CHECK(f[10].size() == 10 && f[10][4] == '-' && f[10][7] == '-');  // yyyy-mm-dd
  std::filesystem::remove_all(dir);
}

TEST_MAIN()
