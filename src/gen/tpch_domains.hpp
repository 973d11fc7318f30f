// Value domains of the TPC-H specification (clauses 4.2.2.13 and 4.2.3) that both
// generators use: SSB (ssb_gen.cpp) derives its part, supplier and customer tables from
// TPC-H's, and tpch_gen.cpp generates TPC-H itself.
#pragma once

namespace tessera::gen {

inline constexpr const char* kColors[] = {
    "almond",    "antique",   "aquamarine", "azure",     "beige",     "bisque",    "black",
    "blanched",  "blue",      "blush",      "brown",     "burlywood", "burnished", "chartreuse",
    "chiffon",   "chocolate", "coral",      "cornflower", "cornsilk", "cream",     "cyan",
    "dark",      "deep",      "dim",        "dodger",    "drab",      "firebrick", "floral",
    "forest",    "frosted",   "gainsboro",  "ghost",     "goldenrod", "green",     "grey",
    "honeydew",  "hot",       "indian",     "ivory",     "khaki",     "lace",      "lavender",
    "lawn",      "lemon",     "light",      "lime",      "linen",     "magenta",   "maroon",
    "medium",    "metallic",  "midnight",   "mint",      "misty",     "moccasin",  "navajo",
    "navy",      "olive",     "orange",     "orchid",    "pale",      "papaya",    "peach",
    "peru",      "pink",      "plum",       "powder",    "puff",      "purple",    "red",
    "rose",      "rosy",      "royal",      "saddle",    "salmon",    "sandy",     "seashell",
    "sienna",    "sky",       "slate",      "smoke",     "snow",      "spring",    "steel",
    "tan",       "thistle",   "tomato",     "turquoise", "violet",    "wheat",     "white",
    "yellow"};
inline constexpr int kNumColors = sizeof(kColors) / sizeof(kColors[0]);
static_assert(kNumColors == 92, "TPC-H has 92 color words");

// p_type = S1 S2 S3, p_container = S1 S2
inline constexpr const char* kTypeS1[] = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
inline constexpr const char* kTypeS2[] = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
inline constexpr const char* kTypeS3[] = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
inline constexpr const char* kContS1[] = {"SM", "LG", "MED", "JUMBO", "WRAP"};
inline constexpr const char* kContS2[] = {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"};

// Nations in TPC-H key order (phone prefix = key + 10) with their region.
struct NationDef {
  const char* name;
  int region;
};
inline constexpr NationDef kNations[25] = {
    {"ALGERIA", 0},      {"ARGENTINA", 1},  {"BRAZIL", 1},   {"CANADA", 1},
    {"EGYPT", 4},        {"ETHIOPIA", 0},   {"FRANCE", 3},   {"GERMANY", 3},
    {"INDIA", 2},        {"INDONESIA", 2},  {"IRAN", 4},     {"IRAQ", 4},
    {"JAPAN", 2},        {"JORDAN", 4},     {"KENYA", 0},    {"MOROCCO", 0},
    {"MOZAMBIQUE", 0},   {"PERU", 1},       {"CHINA", 2},    {"ROMANIA", 3},
    {"SAUDI ARABIA", 4}, {"VIETNAM", 2},    {"RUSSIA", 3},   {"UNITED KINGDOM", 3},
    {"UNITED STATES", 1}};
inline constexpr const char* kRegions[5] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};
inline constexpr const char* kSegments[5] = {"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD",
                                             "MACHINERY"};

}  // namespace tessera::gen
