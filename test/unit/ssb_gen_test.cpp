// SSB generator: cardinalities, domains, formulas, determinism and .tbl output at SF 0.01.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "check.hpp"
#include "common/date.hpp"
#include "gen/ssb_gen.hpp"

using namespace tessera;

namespace {

constexpr double kSf = 0.01;

// A table's contents, column-wise: ints for INTEGER columns, strings for VARCHAR ones.
struct Cols {
  TableSchema schema;
  uint64_t rows = 0;
  std::vector<std::vector<int32_t>> ints;       // by column (empty for VARCHAR)
  std::vector<std::vector<std::string>> strs;   // by column (empty for INTEGER)
  int C(const char* name) const {
    int c = schema.Find(name);
    if (c < 0) throw std::runtime_error(std::string("no column ") + name);
    return c;
  }
  const std::vector<int32_t>& I(const char* n) const { return ints[C(n)]; }
  const std::vector<std::string>& S(const char* n) const { return strs[C(n)]; }
  // Row r in .tbl text form (without the newline).
  std::string Line(uint64_t r) const {
    std::string s;
    for (size_t c = 0; c < schema.columns.size(); c++) {
      if (schema.columns[c].type.id == TypeId::Varchar) s += strs[c][r];
      else s += std::to_string(ints[c][r]);
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
  t.ints.resize(nc);
  t.strs.resize(nc);
  for (auto& rg : e->data->row_groups) {
    for (size_t c = 0; c < nc; c++) {
      const ColumnChunk& ch = *rg->columns[c];
      ch.EnsureVerified();
      for (uint32_t i = 0; i < rg->count; i++) {
        if (ch.type.id == TypeId::Varchar) t.strs[c].emplace_back(ch.GetString(i));
        else t.ints[c].push_back(reinterpret_cast<const int32_t*>(ch.data)[i]);
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

std::unique_ptr<Db> Gen(double sf, unsigned threads, uint64_t seed = 19940101) {
  auto db = std::make_unique<Db>();
  SsbOptions o;
  o.sf = sf;
  o.threads = threads;
  o.seed = seed;
  GenerateSsb(db->cat, o);
  for (auto& s : SsbSchemas()) db->t[s.name] = Read(db->cat, s.name);
  return db;
}

const Db& Shared() {
  static std::unique_ptr<Db> db = Gen(kSf, 2);
  return *db;
}

int32_t Retail(int32_t pk) { return 90000 + (pk / 10) % 20001 + 100 * (pk % 1000); }

int32_t DaysOf(int32_t yyyymmdd) {
  return DaysFromCivil(yyyymmdd / 10000, (unsigned)(yyyymmdd / 100 % 100), (unsigned)(yyyymmdd % 100));
}

template <class T>
std::pair<T, T> MinMax(const std::vector<T>& v) {
  auto [a, b] = std::minmax_element(v.begin(), v.end());
  return {*a, *b};
}

std::string Pad9(const std::string& s) {
  std::string r = s.substr(0, 9);
  r.resize(9, ' ');
  return r;
}

}  // namespace

TEST(ssb_schemas) {
  auto s = SsbSchemas();
  CHECK_EQ(s.size(), (size_t)5);
  CHECK_EQ(s[0].name, std::string("lineorder"));
  CHECK_EQ(s[0].columns.size(), (size_t)17);
  CHECK_EQ(s[0].columns[16].name, std::string("lo_shipmode"));
  CHECK(s[0].columns[7].type == Type::Varchar());  // lo_shippriority
  CHECK_EQ(s[1].columns.size(), (size_t)9);
  CHECK_EQ(s[2].columns.size(), (size_t)7);
  CHECK_EQ(s[3].columns.size(), (size_t)8);
  CHECK_EQ(s[4].name, std::string("date"));
  CHECK_EQ(s[4].columns.size(), (size_t)17);
  CHECK(s[4].columns[16].type == Type::Integer());  // d_weekdayfl
  CHECK_EQ(SsbCreateTableSql(s[2]),
           std::string("CREATE TABLE supplier (s_suppkey INTEGER, s_name VARCHAR, s_address "
                       "VARCHAR, s_city VARCHAR, s_nation VARCHAR, s_region VARCHAR, s_phone "
                       "VARCHAR);"));
}

TEST(ssb_counts) {
  auto n1 = SsbCounts(1);
  CHECK_EQ(n1.orders, (uint64_t)1500000);
  CHECK_EQ(n1.part, (uint64_t)200000);
  CHECK_EQ(n1.partkey_range, (uint64_t)200000);
  CHECK_EQ(n1.supplier, (uint64_t)2000);
  CHECK_EQ(n1.customer, (uint64_t)30000);
  auto n10 = SsbCounts(10);
  CHECK_EQ(n10.part, (uint64_t)800000);           // 200,000 x floor(1 + log2 10)
  CHECK_EQ(n10.partkey_range, (uint64_t)600000);  // 200,000 x (floor(ln 10) + 1)
  auto n20 = SsbCounts(20);
  CHECK_EQ(n20.part, (uint64_t)1000000);
  CHECK_EQ(n20.partkey_range, (uint64_t)600000);  // ln 20 = 2.996
  auto s = SsbCounts(kSf);
  CHECK_EQ(s.orders, (uint64_t)15000);
  CHECK_EQ(s.part, (uint64_t)2000);
  CHECK_EQ(s.supplier, (uint64_t)20);
  CHECK_EQ(s.customer, (uint64_t)300);
  CHECK_THROWS(SsbCounts(0));
  CHECK_THROWS(SsbCounts(-1));
}

TEST(ssb_cardinalities) {
  const Db& db = Shared();
  auto& lo = db.t.at("lineorder");
  CHECK_EQ(db.t.at("part").rows, (uint64_t)2000);
  CHECK_EQ(db.t.at("supplier").rows, (uint64_t)20);
  CHECK_EQ(db.t.at("customer").rows, (uint64_t)300);
  CHECK_EQ(db.t.at("date").rows, (uint64_t)2556);
  // 15,000 orders of 1..7 lines: about 60,000 lines.
  CHECK(lo.rows > 58000 && lo.rows < 62000);
  // Orders: 15,000 distinct keys (sparse TPC-H numbering), lines numbered 1..n in order.
  auto& ok = lo.I("lo_orderkey");
  auto& ln = lo.I("lo_linenumber");
  std::set<int32_t> keys(ok.begin(), ok.end());
  CHECK_EQ(keys.size(), (size_t)15000);
  CHECK_EQ(*keys.begin(), 1);
  CHECK_EQ(*keys.rbegin(), (int32_t)(((15000 >> 3) << 5) | (15000 & 7)));
  bool lines_ok = true;
  std::vector<int> per_order_lines(8, 0);
  for (uint64_t r = 0; r < lo.rows; r++) {
    bool first = r == 0 || ok[r] != ok[r - 1];
    if (first ? ln[r] != 1 : (ln[r] != ln[r - 1] + 1 || ok[r] < ok[r - 1])) lines_ok = false;
    if (r > 0 && first && ok[r] <= ok[r - 1]) lines_ok = false;
    if (r + 1 == lo.rows || ok[r + 1] != ok[r]) {
      if (ln[r] < 1 || ln[r] > 7) lines_ok = false;
      else per_order_lines[ln[r]]++;
    }
  }
  CHECK(lines_ok);
  for (int n = 1; n <= 7; n++) CHECK(per_order_lines[n] > 1900 && per_order_lines[n] < 2400);
  // Keys stay inside the dimensions.
  std::set<int32_t> cust(lo.I("lo_custkey").begin(), lo.I("lo_custkey").end());
  CHECK(*cust.begin() >= 1 && *cust.rbegin() <= 300);
  bool no_mult3 = true;
  for (int32_t c : cust) no_mult3 &= c % 3 != 0;
  CHECK(no_mult3);
  CHECK_EQ(cust.size(), (size_t)200);  // every non-multiple of 3 is used at this size
  auto [pmin, pmax] = MinMax(lo.I("lo_partkey"));
  CHECK(pmin >= 1 && pmax <= 2000);
  auto [smin, smax] = MinMax(lo.I("lo_suppkey"));
  CHECK_EQ(smin, 1);
  CHECK_EQ(smax, 20);
}

TEST(ssb_lineorder_domains_and_formulas) {
  const Db& db = Shared();
  auto& lo = db.t.at("lineorder");
  CHECK(MinMax(lo.I("lo_quantity")) == std::make_pair(1, 50));
  CHECK(MinMax(lo.I("lo_discount")) == std::make_pair(0, 10));
  CHECK(MinMax(lo.I("lo_tax")) == std::make_pair(0, 8));
  auto [od_min, od_max] = MinMax(lo.I("lo_orderdate"));
  CHECK(od_min >= 19920101);
  CHECK(od_max <= 19980802);
  std::set<int32_t> od(lo.I("lo_orderdate").begin(), lo.I("lo_orderdate").end());
  CHECK(od.size() > 2350 && od.size() <= 2406);
  auto [cd_min, cd_max] = MinMax(lo.I("lo_commitdate"));
  CHECK(cd_min >= 19920131);
  CHECK(cd_max <= 19981031);
  // Every order date and commit date is a date-table key.
  auto& dk = db.t.at("date").I("d_datekey");
  std::set<int32_t> dates(dk.begin(), dk.end());
  bool in_dim = true;
  for (int32_t d : od) in_dim &= dates.count(d) > 0;
  for (int32_t d : lo.I("lo_commitdate")) in_dim &= dates.count(d) > 0;
  CHECK(in_dim);

  std::set<std::string> prios(lo.S("lo_orderpriority").begin(), lo.S("lo_orderpriority").end());
  CHECK(prios == std::set<std::string>({"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECI", "5-LOW"}));
  std::set<std::string> modes(lo.S("lo_shipmode").begin(), lo.S("lo_shipmode").end());
  CHECK(modes ==
        std::set<std::string>({"AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"}));
  std::set<std::string> shipprio(lo.S("lo_shippriority").begin(), lo.S("lo_shippriority").end());
  CHECK(shipprio == std::set<std::string>({"0"}));

  // Formulas on every row; per-order constants and the order total.
  auto &qty = lo.I("lo_quantity"), &ext = lo.I("lo_extendedprice"), &rev = lo.I("lo_revenue"),
       &cost = lo.I("lo_supplycost"), &disc = lo.I("lo_discount"), &tax = lo.I("lo_tax"),
       &pk = lo.I("lo_partkey"), &ok = lo.I("lo_orderkey"), &tot = lo.I("lo_ordtotalprice"),
       &odate = lo.I("lo_orderdate"), &cdate = lo.I("lo_commitdate"),
       &ck = lo.I("lo_custkey");
  auto& pri = lo.S("lo_orderpriority");
  uint64_t bad_ext = 0, bad_rev = 0, bad_cost = 0, bad_commit = 0, bad_total = 0, bad_const = 0;
  int64_t order_sum = 0;
  for (uint64_t r = 0; r < lo.rows; r++) {
    int64_t e = (int64_t)qty[r] * Retail(pk[r]);
    if (ext[r] != e) bad_ext++;
    if (rev[r] != (int64_t)ext[r] * (100 - disc[r]) / 100) bad_rev++;
    if (cost[r] != 6 * Retail(pk[r]) / 10) bad_cost++;
    int32_t gap = DaysOf(cdate[r]) - DaysOf(odate[r]);
    if (gap < 30 || gap > 90) bad_commit++;
    if (r > 0 && ok[r] == ok[r - 1] &&
        (tot[r] != tot[r - 1] || odate[r] != odate[r - 1] || ck[r] != ck[r - 1] ||
         pri[r] != pri[r - 1]))
      bad_const++;
    order_sum += (int64_t)ext[r] * (100 + tax[r]) / 100 * (100 - disc[r]) / 100;
    if (r + 1 == lo.rows || ok[r + 1] != ok[r]) {
      if (tot[r] != order_sum) bad_total++;
      order_sum = 0;
    }
  }
  CHECK_EQ(bad_ext, (uint64_t)0);
  CHECK_EQ(bad_rev, (uint64_t)0);
  CHECK_EQ(bad_cost, (uint64_t)0);
  CHECK_EQ(bad_commit, (uint64_t)0);
  CHECK_EQ(bad_total, (uint64_t)0);
  CHECK_EQ(bad_const, (uint64_t)0);
}

TEST(ssb_part_domains) {
  const Db& db = Shared();
  auto& p = db.t.at("part");
  std::set<std::string> mfgr(p.S("p_mfgr").begin(), p.S("p_mfgr").end());
  CHECK(mfgr == std::set<std::string>({"MFGR#1", "MFGR#2", "MFGR#3", "MFGR#4", "MFGR#5"}));
  std::set<std::string> cats(p.S("p_category").begin(), p.S("p_category").end());
  CHECK_EQ(cats.size(), (size_t)25);
  std::set<std::string> all_brands;
  for (int m = 1; m <= 5; m++)
    for (int c = 1; c <= 5; c++) {
      std::string cat = "MFGR#" + std::to_string(m) + std::to_string(c);
      CHECK(cats.count(cat) == 1);
      for (int b = 1; b <= 40; b++) all_brands.insert(cat + std::to_string(b));
    }
  CHECK_EQ(all_brands.size(), (size_t)1000);
  CHECK(all_brands.count("MFGR#121") && all_brands.count("MFGR#1210"));
  std::set<std::string> brands(p.S("p_brand1").begin(), p.S("p_brand1").end());
  CHECK(brands.size() > 800 && brands.size() <= 1000);
  bool fmt = true;
  for (uint64_t r = 0; r < p.rows; r++) {
    const std::string &b = p.S("p_brand1")[r], &c = p.S("p_category")[r], &m = p.S("p_mfgr")[r];
    fmt &= all_brands.count(b) == 1 && b.compare(0, c.size(), c) == 0 &&
           c.compare(0, m.size(), m) == 0 && c.size() == 7;
    fmt &= p.I("p_partkey")[r] == (int32_t)r + 1;
    const std::string& name = p.S("p_name")[r];
    fmt &= std::count(name.begin(), name.end(), ' ') == 1;
    fmt &= p.S("p_color")[r].find(' ') == std::string::npos;
    const std::string& ty = p.S("p_type")[r];
    fmt &= std::count(ty.begin(), ty.end(), ' ') == 2;
    const std::string& co = p.S("p_container")[r];
    fmt &= std::count(co.begin(), co.end(), ' ') == 1;
  }
  CHECK(fmt);
  CHECK(MinMax(p.I("p_size")) == std::make_pair(1, 50));
  // The Q2.3 style range selects exactly 8 brands of the domain.
  int between = 0;
  for (auto& b : all_brands) between += b >= "MFGR#2221" && b <= "MFGR#2228";
  CHECK_EQ(between, 8);
}

TEST(ssb_supplier_customer_domains) {
  const Db& db = Shared();
  const std::map<std::string, std::string> region = {
      {"ALGERIA", "AFRICA"}, {"ETHIOPIA", "AFRICA"}, {"KENYA", "AFRICA"},
      {"MOROCCO", "AFRICA"}, {"MOZAMBIQUE", "AFRICA"}, {"ARGENTINA", "AMERICA"},
      {"BRAZIL", "AMERICA"}, {"CANADA", "AMERICA"}, {"PERU", "AMERICA"},
      {"UNITED STATES", "AMERICA"}, {"CHINA", "ASIA"}, {"INDIA", "ASIA"},
      {"INDONESIA", "ASIA"}, {"JAPAN", "ASIA"}, {"VIETNAM", "ASIA"},
      {"FRANCE", "EUROPE"}, {"GERMANY", "EUROPE"}, {"ROMANIA", "EUROPE"},
      {"RUSSIA", "EUROPE"}, {"UNITED KINGDOM", "EUROPE"}, {"EGYPT", "MIDDLE EAST"},
      {"IRAN", "MIDDLE EAST"}, {"IRAQ", "MIDDLE EAST"}, {"JORDAN", "MIDDLE EAST"},
      {"SAUDI ARABIA", "MIDDLE EAST"}};
  std::set<std::string> cities;
  for (auto& [n, _] : region)
    for (int d = 0; d < 10; d++) cities.insert(Pad9(n) + char('0' + d));
  CHECK_EQ(cities.size(), (size_t)250);
  CHECK(cities.count("UNITED KI1") && cities.count("CHINA    3"));
  for (const char* tn : {"supplier", "customer"}) {
    const Cols& t = db.t.at(tn);
    std::string p = tn[0] == 's' ? "s_" : "c_";
    auto& key = t.I((p + (tn[0] == 's' ? "suppkey" : "custkey")).c_str());
    auto& name = t.S((p + "name").c_str());
    auto& addr = t.S((p + "address").c_str());
    auto& city = t.S((p + "city").c_str());
    auto& nation = t.S((p + "nation").c_str());
    auto& reg = t.S((p + "region").c_str());
    auto& phone = t.S((p + "phone").c_str());
    bool ok = true;
    std::set<std::string> used_cities, used_nations;
    for (uint64_t r = 0; r < t.rows; r++) {
      ok &= key[r] == (int32_t)r + 1;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%s#%09d", tn[0] == 's' ? "Supplier" : "Customer", key[r]);
      ok &= name[r] == buf;
      ok &= addr[r].size() >= 10 && addr[r].size() <= 25 && addr[r].find('|') == std::string::npos;
      ok &= region.count(nation[r]) && region.at(nation[r]) == reg[r];
      ok &= cities.count(city[r]) && city[r].substr(0, 9) == Pad9(nation[r]);
      ok &= phone[r].size() == 15 && phone[r][2] == '-' && phone[r][6] == '-' && phone[r][10] == '-';
      used_cities.insert(city[r]);
      used_nations.insert(nation[r]);
    }
    CHECK(ok);
    if (t.rows >= 300) {
      CHECK(used_cities.size() > 150);  // 300 draws of 250: ~175 expected
      CHECK_EQ(used_nations.size(), (size_t)25);
    }
  }
  // Phone prefix follows the nation (TPC-H key + 10).
  const Cols& c = db.t.at("customer");
  bool prefix = true;
  for (uint64_t r = 0; r < c.rows; r++) {
    if (c.S("c_nation")[r] == "CHINA") prefix &= c.S("c_phone")[r].substr(0, 3) == "28-";
    if (c.S("c_nation")[r] == "ALGERIA") prefix &= c.S("c_phone")[r].substr(0, 3) == "10-";
    if (c.S("c_nation")[r] == "UNITED STATES") prefix &= c.S("c_phone")[r].substr(0, 3) == "34-";
  }
  CHECK(prefix);
  std::set<std::string> seg(c.S("c_mktsegment").begin(), c.S("c_mktsegment").end());
  CHECK(seg == std::set<std::string>(
                   {"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"}));
}

TEST(ssb_date) {
  const Db& db = Shared();
  const Cols& d = db.t.at("date");
  CHECK_EQ(d.I("d_datekey").front(), 19920101);
  CHECK_EQ(d.I("d_datekey").back(), 19981230);
  // Reference row 1 (d_lastdayinmonthfl, which is 1 on every day there, is computed here).
  CHECK_EQ(d.Line(0),
           std::string("19920101|January 1, 1992|Thursday|January|1992|199201|Jan1992|5|1|1|1|1|"
                       "Winter|0|0|1|1|"));
  CHECK_EQ(d.Line(2),
           std::string("19920103|January 3, 1992|Saturday|January|1992|199201|Jan1992|7|3|3|1|1|"
                       "Winter|1|0|0|0|"));
  CHECK_EQ(d.Line(6).substr(0, 47), std::string("19920107|January 7, 1992|Wednesday|January|1992"));
  CHECK_EQ(d.I("d_weeknuminyear")[6], 2);  // 1992-01-07 starts week 2
  std::set<std::string> months(d.S("d_month").begin(), d.S("d_month").end());
  CHECK(months.count("Augest") && months.count("Octorber") && !months.count("August"));
  std::set<std::string> seasons(d.S("d_sellingseason").begin(), d.S("d_sellingseason").end());
  CHECK(seasons == std::set<std::string>({"Christmas", "Fall", "Spring", "Summer", "Winter"}));
  bool ok = true;
  int prev = 0;
  for (uint64_t r = 0; r < d.rows; r++) {
    int32_t k = d.I("d_datekey")[r];
    ok &= r == 0 || DaysOf(k) == prev + 1;
    prev = DaysOf(k);
    ok &= d.I("d_year")[r] == k / 10000 && d.I("d_yearmonthnum")[r] == k / 100 &&
          d.I("d_monthnuminyear")[r] == k / 100 % 100 && d.I("d_daynuminmonth")[r] == k % 100;
    ok &= d.S("d_yearmonth")[r].size() == 7 && d.S("d_yearmonth")[r].substr(3) == std::to_string(k / 10000);
    int doy = DaysOf(k) - DaysFromCivil(k / 10000, 1, 1) + 1;
    ok &= d.I("d_daynuminyear")[r] == doy;
    int wd = d.I("d_daynuminweek")[r];
    ok &= wd >= 1 && wd <= 7 && d.I("d_weekdayfl")[r] == (wd >= 2 && wd <= 6) &&
          d.I("d_lastdayinweekfl")[r] == (wd == 7);
    if (r > 0) ok &= wd == d.I("d_daynuminweek")[r - 1] % 7 + 1;
  }
  CHECK(ok);
  // Week 6 of 1994 is 19940204..19940210.
  for (uint64_t r = 0; r < d.rows; r++) {
    int32_t k = d.I("d_datekey")[r];
    if (k / 10000 != 1994) continue;
    bool in6 = k >= 19940204 && k <= 19940210;
    CHECK_EQ(d.I("d_weeknuminyear")[r] == 6, in6);
  }
  std::set<std::string> ym(d.S("d_yearmonth").begin(), d.S("d_yearmonth").end());
  CHECK(ym.count("Dec1997") && ym.count("Aug1995"));
}

TEST(ssb_determinism_across_threads) {
  auto a = Gen(kSf, 1);
  const Db& b = Shared();  // 2 threads
  for (auto& s : SsbSchemas()) {
    const Cols &x = a->t.at(s.name), &y = b.t.at(s.name);
    CHECK_EQ(x.rows, y.rows);
    CHECK(x.ints == y.ints);
    CHECK(x.strs == y.strs);
  }
  // Another seed gives other data.
  auto c = Gen(kSf, 2, 7);
  CHECK(c->t.at("lineorder").ints != b.t.at("lineorder").ints);
  // Multiple row groups: lineorder slices stay thread independent across group borders.
  auto big1 = Gen(0.05, 1), big2 = Gen(0.05, 2);
  CHECK(big1->cat.GetTable("lineorder")->data->row_groups.size() >= 2);
  CHECK(big1->t.at("lineorder").ints == big2->t.at("lineorder").ints);
  CHECK(big1->t.at("lineorder").strs == big2->t.at("lineorder").strs);
  // Row groups are full except the last one.
  auto& rgs = big2->cat.GetTable("lineorder")->data->row_groups;
  for (size_t i = 0; i + 1 < rgs.size(); i++) CHECK_EQ(rgs[i]->count, kRowGroupSize);
}

TEST(ssb_existing_table) {
  Catalog cat;
  cat.CreateTable({"part", {{"x", Type::Integer(), false}}});
  SsbOptions o;
  o.sf = kSf;
  CHECK_THROWS_WITH(GenerateSsb(cat, o), "already exists");
  CHECK_EQ(cat.TableNames().size(), (size_t)1);
}

TEST(ssb_tbl_matches_catalog) {
  const Db& db = Shared();
  std::string dir = "/tmp/ssbgen_test_" + std::to_string(getpid()) + "/sub";
  SsbOptions o;
  o.sf = kSf;
  o.threads = 2;
  std::vector<std::string> msgs;
  o.progress = [&](const std::string& m) { msgs.push_back(m); };
  WriteSsbTbl(dir, o);
  CHECK(!msgs.empty());
  for (auto& s : SsbSchemas()) {
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
  // A few fields parsed back from the first lineorder line.
  {
    std::ifstream in(dir + "/lineorder.tbl");
    std::string line;
    std::getline(in, line);
    std::vector<std::string> f;
    size_t a = 0, b;
    while ((b = line.find('|', a)) != std::string::npos) {
      f.push_back(line.substr(a, b - a));
      a = b + 1;
    }
    CHECK_EQ(a, line.size());  // '|' after the last field
    CHECK_EQ(f.size(), (size_t)17);
    const Cols& lo = db.t.at("lineorder");
    CHECK_EQ(std::stoi(f[0]), lo.I("lo_orderkey")[0]);
    CHECK_EQ(std::stoi(f[12]), lo.I("lo_revenue")[0]);
    CHECK_EQ(f[16], lo.S("lo_shipmode")[0]);
  }
  std::filesystem::remove_all(dir.substr(0, dir.size() - 4));
}

TEST_MAIN()
