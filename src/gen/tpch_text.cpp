// The TPC-H text grammar (specification clause 4.2.2.10) and its word lists. The words are
// the specification's; the relative weights (frequent business words drawn more often) are
// our own choice.
#include "gen/tpch_text.hpp"

#include <vector>

namespace tessera::gen {
namespace {

struct Word {
  const char* text;
  int weight;
};

const Word kNouns[] = {
    {"packages", 40},    {"requests", 40},     {"accounts", 40},    {"deposits", 40},
    {"foxes", 20},       {"ideas", 20},        {"theodolites", 20}, {"pinto beans", 20},
    {"instructions", 20}, {"dependencies", 10}, {"excuses", 10},     {"platelets", 10},
    {"asymptotes", 10},  {"courts", 5},        {"dolphins", 5},     {"multipliers", 1},
    {"sauternes", 1},    {"warthogs", 1},      {"frets", 1},        {"dinos", 1},
    {"attainments", 1},  {"somas", 1},         {"Tiresias", 1},     {"patterns", 1},
    {"forges", 1},       {"braids", 1},        {"hockey players", 1}, {"frays", 1},
    {"warhorses", 1},    {"dugouts", 1},       {"notornis", 1},     {"epitaphs", 1},
    {"pearls", 1},       {"tithes", 1},        {"waters", 1},       {"orbits", 1},
    {"gifts", 1},        {"sheaves", 1},       {"depths", 1},       {"sentiments", 1},
    {"decoys", 1},       {"realms", 1},        {"pains", 1},        {"grouches", 1},
    {"escapades", 1}};
const Word kVerbs[] = {
    {"sleep", 20},     {"wake", 20},    {"are", 20},     {"cajole", 20},   {"haggle", 20},
    {"nag", 10},       {"use", 10},     {"boost", 10},   {"affix", 5},     {"detect", 5},
    {"integrate", 5},  {"maintain", 1}, {"nod", 1},      {"was", 1},       {"lose", 1},
    {"sublate", 1},    {"solve", 1},    {"thrash", 1},   {"promise", 1},   {"engage", 1},
    {"hinder", 1},     {"print", 1},    {"x-ray", 1},    {"breach", 1},    {"eat", 1},
    {"grow", 1},       {"impress", 1},  {"mold", 1},     {"poach", 1},     {"serve", 1},
    {"run", 1},        {"dazzle", 1},   {"snooze", 1},   {"doze", 1},      {"unwind", 1},
    {"kindle", 1},     {"play", 1},     {"hang", 1},     {"believe", 1},   {"doubt", 1}};
const Word kAdjectives[] = {
    {"special", 20},   {"pending", 20},  {"unusual", 20},   {"express", 20},  {"furious", 1},
    {"sly", 1},        {"careful", 1},   {"blithe", 1},     {"quick", 1},     {"fluffy", 1},
    {"slow", 1},       {"quiet", 1},     {"ruthless", 1},   {"thin", 1},      {"close", 1},
    {"dogged", 1},     {"daring", 1},    {"brave", 1},      {"stealthy", 1},  {"permanent", 1},
    {"enticing", 1},   {"idle", 1},      {"busy", 1},       {"regular", 50},  {"final", 40},
    {"ironic", 40},    {"even", 30},     {"bold", 20},      {"silent", 10}};
const Word kAdverbs[] = {
    {"sometimes", 1},  {"always", 1},    {"never", 1},      {"furiously", 50}, {"slyly", 50},
    {"carefully", 50}, {"blithely", 40}, {"quickly", 30},   {"fluffily", 20},  {"slowly", 1},
    {"quietly", 1},    {"ruthlessly", 1}, {"thinly", 1},    {"closely", 1},    {"doggedly", 1},
    {"daringly", 1},   {"bravely", 1},   {"stealthily", 1}, {"permanently", 1}, {"enticingly", 1},
    {"idly", 1},       {"busily", 1},    {"regularly", 1},  {"finally", 1},    {"ironically", 1},
    {"evenly", 1},     {"boldly", 1},    {"silently", 1}};
const Word kPrepositions[] = {
    {"about", 50},     {"above", 50},    {"according to", 50}, {"across", 50},  {"after", 50},
    {"against", 40},   {"along", 40},    {"alongside of", 30}, {"among", 30},   {"around", 20},
    {"at", 10},        {"atop", 1},      {"before", 1},     {"behind", 1},     {"beneath", 1},
    {"beside", 1},     {"besides", 1},   {"between", 1},    {"beyond", 1},     {"by", 1},
    {"despite", 1},    {"during", 1},    {"except", 1},     {"for", 1},        {"from", 1},
    {"in place of", 1}, {"inside", 1},   {"instead of", 1}, {"into", 1},       {"near", 1},
    {"of", 1},         {"on", 1},        {"outside", 1},    {"over", 1},       {"past", 1},
    {"since", 1},      {"through", 1},   {"throughout", 1}, {"to", 1},         {"toward", 1},
    {"under", 1},      {"until", 1},     {"up", 1},         {"upon", 1},       {"without", 1},
    {"with", 1},       {"within", 1}};
const Word kAuxiliaries[] = {
    {"do", 1},          {"may", 1},           {"might", 1},          {"shall", 1},
    {"will", 1},        {"would", 1},         {"can", 1},            {"could", 1},
    {"should", 1},      {"ought to", 1},      {"must", 1},           {"will have to", 1},
    {"shall have to", 1}, {"could have to", 1}, {"should have to", 1}, {"must have to", 1},
    {"need to", 1},     {"try to", 1}};
const Word kTerminators[] = {{".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1}};

// A word list with its cumulative weights, for weighted draws.
class WordList {
 public:
  template <size_t N>
  explicit WordList(const Word (&w)[N]) {
    int sum = 0;
    for (const Word& x : w) {
      sum += x.weight;
      words_.push_back(x.text);
      cum_.push_back(sum);
    }
  }
  const char* Pick(Rng& r) const {
    int x = (int)r.Below((uint64_t)cum_.back());
    size_t i = 0;
    while (cum_[i] <= x) i++;
    return words_[i];
  }

 private:
  std::vector<const char*> words_;
  std::vector<int> cum_;
};

struct Grammar {
  WordList nouns{kNouns}, verbs{kVerbs}, adjectives{kAdjectives}, adverbs{kAdverbs},
      prepositions{kPrepositions}, auxiliaries{kAuxiliaries}, terminators{kTerminators};

  static void Put(std::string& s, const char* w) {
    if (!s.empty() && s.back() != ' ') s += ' ';
    s += w;
  }
  // noun phrase: noun | adjective noun | adjective, adjective noun | adverb adjective noun
  void NounPhrase(Rng& r, std::string& s) const {
    switch (r.Below(4)) {
      case 0: break;
      case 1: Put(s, adjectives.Pick(r)); break;
      case 2:
        Put(s, adjectives.Pick(r));
        s += ',';
        Put(s, adjectives.Pick(r));
        break;
      case 3:
        Put(s, adverbs.Pick(r));
        Put(s, adjectives.Pick(r));
        break;
    }
    Put(s, nouns.Pick(r));
  }
  // verb phrase: verb | auxiliary verb | verb adverb | auxiliary verb adverb
  void VerbPhrase(Rng& r, std::string& s) const {
    int k = (int)r.Below(4);
    if (k & 1) Put(s, auxiliaries.Pick(r));
    Put(s, verbs.Pick(r));
    if (k & 2) Put(s, adverbs.Pick(r));
  }
  // prepositional phrase: preposition the noun-phrase
  void PrepPhrase(Rng& r, std::string& s) const {
    Put(s, prepositions.Pick(r));
    Put(s, "the");
    NounPhrase(r, s);
  }
  // The five sentence forms of the specification, then the terminator.
  void Sentence(Rng& r, std::string& s) const {
    switch (r.Below(5)) {
      case 0:
        NounPhrase(r, s);
        VerbPhrase(r, s);
        break;
      case 1:
        NounPhrase(r, s);
        VerbPhrase(r, s);
        PrepPhrase(r, s);
        break;
      case 2:
        NounPhrase(r, s);
        VerbPhrase(r, s);
        NounPhrase(r, s);
        break;
      case 3:
        NounPhrase(r, s);
        PrepPhrase(r, s);
        VerbPhrase(r, s);
        NounPhrase(r, s);
        break;
      case 4:
        NounPhrase(r, s);
        PrepPhrase(r, s);
        VerbPhrase(r, s);
        PrepPhrase(r, s);
        break;
    }
    s += terminators.Pick(r);
    s += ' ';
  }
};

constexpr uint64_t kTagText = 101;

}  // namespace

TpchText::TpchText(uint64_t seed, size_t pool_bytes) {
  static const Grammar g;
  Rng r(seed, kTagText, 0);
  pool_.reserve(pool_bytes + 512);
  while (pool_.size() < pool_bytes) g.Sentence(r, pool_);
}

StrRef TpchText::Comment(Rng& r, int min, int max) const {
  size_t len = (size_t)r.Range(min, max);
  size_t off = (size_t)r.Below(pool_.size() - (size_t)max - 2);
  // The pool never holds two spaces in a row, so one step fixes either end.
  if (pool_[off] == ' ') off++;
  if (pool_[off + len - 1] == ' ') len = (int)len > min ? len - 1 : len + 1;
  return StrRef(pool_.data() + off, len);
}

}  // namespace tessera::gen
