#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fts/analyzer.h"
#include "fts/inverted_index.h"
#include "fts/stemmer.h"

namespace graphdb::fts {
namespace {

struct StemCase {
  const char* word;
  const char* english;
  const char* porter;
};

// Words of Kùzu's test data and classic cases, with the stems Kùzu 0.11.3's STEM(word,
// 'english') and STEM(word, 'porter') give (the Snowball reference outputs).
const StemCase kStemCases[] = {
    {"agreement", "agreement", "agreement"},
    {"applicant", "applic", "applic"},
    {"approaches", "approach", "approach"},
    {"as", "as", "a"},
    {"assigned", "assign", "assign"},
    {"assumed", "assum", "assum"},
    {"atomic", "atom", "atom"},
    {"based", "base", "base"},
    {"battle", "battl", "battl"},
    {"bay", "bay", "bai"},
    {"became", "becam", "becam"},
    {"bedrooms", "bedroom", "bedroom"},
    {"beijing", "beij", "beij"},
    {"besides", "besid", "besid"},
    {"blooms", "bloom", "bloom"},
    {"boiling", "boil", "boil"},
    {"boohooing", "boohoo", "boohoo"},
    {"boots", "boot", "boot"},
    {"broadcasted", "broadcast", "broadcast"},
    {"business", "busi", "busi"},
    {"camus", "camus", "camu"},
    {"cavazos", "cavazo", "cavazo"},
    {"centuries", "centuri", "centuri"},
    {"cereale", "cereal", "cereal"},
    {"characteristics", "characterist", "characterist"},
    {"cholestasis", "cholestasi", "cholestasi"},
    {"commission", "commiss", "commiss"},
    {"commitment", "commit", "commit"},
    {"communism", "communism", "commun"},
    {"completely", "complet", "complet"},
    {"conditional", "condit", "condit"},
    {"confusion", "confus", "confus"},
    {"contractual", "contractu", "contractu"},
    {"cottage", "cottag", "cottag"},
    {"couple", "coupl", "coupl"},
    {"decided", "decid", "decid"},
    {"determine", "determin", "determin"},
    {"detonated", "deton", "deton"},
    {"digitizer", "digit", "digit"},
    {"during", "dure", "dure"},
    {"dying", "die", "dy"},
    {"electrical", "electr", "electr"},
    {"elementary", "elementari", "elementari"},
    {"encode", "encod", "encod"},
    {"engagement", "engag", "engag"},
    {"exciting", "excit", "excit"},
    {"expenditures", "expenditur", "expenditur"},
    {"extremes", "extrem", "extrem"},
    {"foods", "food", "food"},
    {"generally", "general", "gener"},
    {"generous", "generous", "gener"},
    {"getting", "get", "get"},
    {"glucose", "glucos", "glucos"},
    {"handled", "handl", "handl"},
    {"hands", "hand", "hand"},
    {"hemorrhage", "hemorrhag", "hemorrhag"},
    {"herbicides", "herbicid", "herbicid"},
    {"hissing", "hiss", "hiss"},
    {"historic", "histor", "histor"},
    {"hopping", "hop", "hop"},
    {"identified", "identifi", "identifi"},
    {"industry", "industri", "industri"},
    {"influencing", "influenc", "influenc"},
    {"inherent", "inher", "inher"},
    {"inning", "inning", "in"},
    {"insurance", "insur", "insur"},
    {"is", "is", "i"},
    {"islands", "island", "island"},
    {"johannes", "johann", "johann"},
    {"kings", "king", "king"},
    {"lies", "lie", "li"},
    {"loses", "lose", "lose"},
    {"mainly", "main", "mainli"},
    {"minutes", "minut", "minut"},
    {"moderately", "moder", "moder"},
    {"monotherapy", "monotherapi", "monotherapi"},
    {"moves", "move", "move"},
    {"musicality", "music", "music"},
    {"netherlands", "netherland", "netherland"},
    {"news", "news", "new"},
    {"offense", "offens", "offens"},
    {"omission", "omiss", "omiss"},
    {"opportunities", "opportun", "opportun"},
    {"organize", "organ", "organ"},
    {"orgs", "org", "org"},
    {"panels", "panel", "panel"},
    {"percentage", "percentag", "percentag"},
    {"policies", "polici", "polici"},
    {"possibly", "possibl", "possibli"},
    {"postponed", "postpon", "postpon"},
    {"powerful", "power", "power"},
    {"powers", "power", "power"},
    {"principal", "princip", "princip"},
    {"products", "product", "product"},
    {"qualified", "qualifi", "qualifi"},
    {"rankings", "rank", "rank"},
    {"reception", "recept", "recept"},
    {"reflexes", "reflex", "reflex"},
    {"renowned", "renown", "renown"},
    {"representatives", "repres", "repres"},
    {"resorts", "resort", "resort"},
    {"respectively", "respect", "respect"},
    {"resulting", "result", "result"},
    {"rewarding", "reward", "reward"},
    {"rimary", "rimari", "rimari"},
    {"s", "s", ""},
    {"safely", "safe", "safe"},
    {"satisfaction", "satisfact", "satisfact"},
    {"say", "say", "sai"},
    {"scots", "scot", "scot"},
    {"searching", "search", "search"},
    {"sectors", "sector", "sector"},
    {"seems", "seem", "seem"},
    {"selling", "sell", "sell"},
    {"sensational", "sensat", "sensat"},
    {"september", "septemb", "septemb"},
    {"silhouette", "silhouett", "silhouett"},
    {"skies", "sky", "ski"},
    {"spending", "spend", "spend"},
    {"steps", "step", "step"},
    {"succeeded", "succeed", "succeed"},
    {"successful", "success", "success"},
    {"supplies", "suppli", "suppli"},
    {"synthesis", "synthesi", "synthesi"},
    {"technology", "technolog", "technologi"},
    {"territory", "territori", "territori"},
    {"things", "thing", "thing"},
    {"tranylcypromine", "tranylcypromin", "tranylcypromin"},
    {"triticosecale", "triticosecal", "triticosecal"},
    {"troubled", "troubl", "troubl"},
    {"universal", "univers", "univers"},
    {"us", "us", "u"},
    {"useful", "use", "us"},
    {"uses", "use", "us"},
    {"wanting", "want", "want"},
    {"wealthy", "wealthi", "wealthi"},
    {"welcomed", "welcom", "welcom"},
    {"windows", "window", "window"},
};

TEST(FtsStemmer, EnglishAndPorterMatchSnowball) {
  for (const StemCase& c : kStemCases) {
    std::string e = c.word;
    StemEnglish(&e);
    EXPECT_EQ(e, c.english) << c.word;
    std::string p = c.word;
    StemPorter(&p);
    EXPECT_EQ(p, c.porter) << c.word;
  }
}

// Kùzu 0.11.3's STEM(word, 'french') and STEM(word, 'russian').
const std::pair<const char*, const char*> kFrenchCases[] = {
    {"biologie", "biolog"},
    {"eûtes", "eût"},
    {"réussir", "réuss"},
    {"aimées", "aim"},
    {"bonnes", "bon"},
    {"allasse", "allass"},
    {"naturellement", "naturel"},
    {"raisonnablement", "raison"},
    {"vendît", "vend"},
    {"constamment", "const"},
    {"allassiez", "allass"},
    {"continuellement", "continuel"},
    {"sportivement", "sportiv"},
    {"différences", "différent"},
    {"réussite", "réussit"},
    {"logique", "logiqu"},
    {"possibilité", "possibil"},
    {"économiquement", "économ"},
    {"réussissions", "réuss"},
    {"réussit", "réuss"},
    {"cuisinière", "cuisini"},
    {"parler", "parl"},
    {"communauté", "communaut"},
    {"chantions", "chantion"},
    {"politiquement", "polit"},
    {"ancienneté", "anciennet"},
    {"qualités", "qualit"},
    {"noblement", "nobl"},
    {"pays", "pay"},
    {"photographie", "photograph"},
    {"aiguë", "aigu"},
    {"jouer", "jou"},
    {"employée", "emploi"},
    {"châteaux", "château"},
    {"quelque", "quelqu"},
    {"nationaux", "national"},
    {"agréables", "agréabl"},
    {"électricité", "électr"},
    {"allâmes", "allâm"},
    {"quantité", "quantit"},
};
const std::pair<const char*, const char*> kRussianCases[] = {
    {"мнение", "мнен"},      {"ночь", "ноч"},
    {"история", "истор"},    {"длинный", "длин"},
    {"читающая", "чита"},    {"станциях", "станц"},
    {"прочитав", "прочита"}, {"колониальным", "колониальн"},
    {"истина", "истин"},     {"радость", "радост"},
    {"говорить", "говор"},   {"читал", "чита"},
    {"мнения", "мнен"},      {"зданием", "здан"},
    {"книгах", "книг"},      {"университета", "университет"},
    {"вязанный", "вяза"},    {"говорили", "говор"},
    {"читала", "чита"},      {"матерью", "матер"},
    {"учились", "уч"},       {"поёт", "поет"},
    {"смеётся", "смеет"},    {"бежит", "беж"},
    {"книга", "книг"},       {"длиннейший", "длин"},
    {"ночью", "ноч"},        {"улыбнувшись", "улыбнувш"},
    {"смеяться", "смея"},    {"столов", "стол"},
};

TEST(FtsStemmer, FrenchAndRussianMatchSnowball) {
  for (const auto& [word, stem] : kFrenchCases) {
    std::string w = word;
    StemFrench(&w);
    EXPECT_EQ(w, stem) << word;
  }
  for (const auto& [word, stem] : kRussianCases) {
    std::string w = word;
    StemRussian(&w);
    EXPECT_EQ(w, stem) << word;
  }
}

TEST(FtsStemmer, Names) {
  StemmerKind k;
  EXPECT_TRUE(ParseStemmer("english", &k));
  EXPECT_EQ(k, StemmerKind::kEnglish);
  EXPECT_TRUE(ParseStemmer("none", &k));
  EXPECT_FALSE(ParseStemmer("german1", &k));
}

std::shared_ptr<const Analyzer> MakeAnalyzer(AnalyzerOptions o = {}) {
  auto a = Analyzer::Make(std::move(o));
  EXPECT_TRUE(a.ok());
  return a.value();
}

std::vector<std::string> Terms(const Analyzer& a, std::string_view text) {
  std::vector<std::string> out;
  std::string scratch;
  a.DocumentTerms(text, &out, &scratch);
  return out;
}

TEST(FtsAnalyzer, NormalisesStopsAndStems) {
  auto a = MakeAnalyzer();
  EXPECT_EQ(Terms(*a, "Alice studys in Waterloo, and TORONTO!"),
            (std::vector<std::string>{"alic", "studi", "waterloo", "toronto"}));
  // Digits and punctuation split words; Unicode letters are lower-cased.
  EXPECT_EQ(Terms(*a, "x-ray abc123def ÉCOLE"),
            (std::vector<std::string>{"ray", "abc", "def", "école"}));
  // Only U+0020 separates words.
  EXPECT_EQ(Terms(*a, "tab\there").size(), 1u);
}

TEST(FtsAnalyzer, CustomIgnorePatternAndErrors) {
  AnalyzerOptions o;
  o.ignore_pattern = "q";
  auto a = MakeAnalyzer(o);
  EXPECT_EQ(Terms(*a, "zzqzz"), (std::vector<std::string>{"zz", "zz"}));
  AnalyzerOptions bad;
  bad.ignore_pattern = "[a-z";
  auto r = Analyzer::Make(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("An error occurred while compiling the regex: \"[a-z\""),
            std::string::npos);
}

TEST(FtsAnalyzer, QueryTermsWildcardsAndConjunctiveStopwords) {
  auto a = MakeAnalyzer();
  QueryTerms q = a->Query("alice and studying alice", /*conjunctive=*/true);
  EXPECT_EQ(q.exact, (std::vector<std::string>{"alic", "studi"}));
  EXPECT_EQ(q.unique_count, 2u);
  q = a->Query("alice and", /*conjunctive=*/false);
  EXPECT_EQ(q.unique_count, 2u);  // a disjunctive query keeps its stop words (they match nothing)
  q = a->Query("wor* w?rld", false);
  EXPECT_TRUE(q.exact.empty());
  ASSERT_EQ(q.patterns.size(), 2u);
  EXPECT_TRUE(q.patterns[0]->FullMatch("world"));
  EXPECT_TRUE(q.patterns[1]->FullMatch("world"));
  EXPECT_FALSE(q.patterns[1]->FullMatch("worlds"));
}

TEST(FtsAnalyzer, JiebaCutsHanIntoBigrams) {
  AnalyzerOptions o;
  o.stemmer = StemmerKind::kNone;
  o.tokenizer = TokenizerKind::kJieba;
  auto a = MakeAnalyzer(o);
  EXPECT_EQ(Terms(*a, "清华大学 AI的"),
            (std::vector<std::string>{"清华", "华大", "大学", "ai", "的"}));
}

// Docs: 1 "alice running" (alice, run), 2 "bob", 3 "the" (no terms).
InvertedIndex* SmallIndex(InvertedIndex* index, const Analyzer& a) {
  std::vector<DocTerms> docs;
  const char* texts[] = {"alice running", "bob", "the"};
  for (uint64_t i = 0; i < 3; ++i) docs.push_back({i, 0, Terms(a, texts[i])});
  index->Build(std::move(docs));
  return index;
}

TEST(FtsIndex, Bm25MatchesHandComputedScores) {
  auto a = MakeAnalyzer();
  InvertedIndex index;
  SmallIndex(&index, *a);
  // N = 2 (a document without terms does not count at build), avgdl = 1.5; for "alice" in row
  // 0: idf = log10((2 - 1 + 0.5) / 1.5 + 1) = log10(2), tf part = 2.2 / (1 + 1.2 * 1.25).
  auto r = index.Search(a->Query("alice", false), 10, {}, {});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].offset, 0u);
  EXPECT_NEAR(r[0].score, std::log10(2.0) * 2.2 / 2.5, 1e-12);
  EXPECT_NEAR(r[0].score, 0.2649063961843035, 1e-12);  // Kùzu 0.11.3
  // k and b change the weight: b = 0 ignores the length.
  SearchOptions o;
  o.b = 0;
  r = index.Search(a->Query("alice", false), 10, {}, o);
  EXPECT_NEAR(r[0].score, std::log10(2.0), 1e-12);
}

TEST(FtsIndex, VersionsAreReadAtTheirSnapshot) {
  auto a = MakeAnalyzer();
  InvertedIndex index;
  SmallIndex(&index, *a);
  index.Put(3, Terms(*a, "the"), 5);  // an inserted row counts even without terms
  auto at = [&](uint64_t ts) { return index.Search(a->Query("alice", false), ts, {}, {}); };
  EXPECT_NEAR(at(4)[0].score, 0.2649063961843035, 1e-12);
  EXPECT_NEAR(at(5)[0].score, 0.3023003906448447, 1e-12);  // Kùzu: N = 3, avgdl = 1
  index.Put(1, Terms(*a, "alice"), 7);
  EXPECT_EQ(at(6).size(), 1u);
  ASSERT_EQ(at(7).size(), 2u);
  index.Remove(0, 9);
  ASSERT_EQ(at(9).size(), 1u);
  EXPECT_EQ(at(9)[0].offset, 1u);
  EXPECT_EQ(at(8).size(), 2u);
  // Pruning drops only what no snapshot at or after `oldest` reads.
  index.Prune(8);
  EXPECT_EQ(at(8).size(), 2u);
  EXPECT_EQ(at(9).size(), 1u);
  auto before = index.MemoryBytes();
  index.Prune(100);
  EXPECT_EQ(at(100).size(), 1u);
  EXPECT_LE(index.MemoryBytes(), before);
  EXPECT_EQ(index.Stats(100), (std::pair<uint64_t, uint64_t>{2, 1}));
}

TEST(FtsIndex, RowsAddedForEverySnapshotAfterLaterCommits) {
  auto a = MakeAnalyzer();
  InvertedIndex index;
  SmallIndex(&index, *a);
  index.Put(3, Terms(*a, "alice"), 10);
  // A COPY's rows are seen by every snapshot, also those before the commit at 10.
  std::vector<DocTerms> copied;
  copied.push_back({7, 0, Terms(*a, "alice bob")});
  index.Build(std::move(copied));
  EXPECT_EQ(index.Stats(5), (std::pair<uint64_t, uint64_t>{3, 5}));
  EXPECT_EQ(index.Stats(10), (std::pair<uint64_t, uint64_t>{4, 6}));
  EXPECT_EQ(index.Search(a->Query("alice", false), 5, {}, {}).size(), 2u);
  EXPECT_EQ(index.Search(a->Query("alice", false), 10, {}, {}).size(), 3u);
}

// Random puts, removes and prunes against a model that keeps every version: the index must
// score every snapshot at or after the last prune as BM25 over the model's visible versions.
TEST(FtsIndex, RandomHistoryMatchesModel) {
  const char* words[] = {"alpha", "beta", "gamma", "delta", "omega"};
  std::mt19937 rng(42);
  InvertedIndex index;
  struct V {
    uint64_t doc, begin, end;
    std::vector<std::string> terms;
  };
  std::vector<V> model;
  auto live = [&](uint64_t doc) -> V* {
    for (V& v : model) {
      if (v.doc == doc && v.end == kForever) return &v;
    }
    return nullptr;
  };
  uint64_t oldest = 0;
  for (uint64_t ts = 1; ts < 400; ++ts) {
    uint64_t doc = rng() % 12;
    if (rng() % 4 == 0) {
      index.Remove(doc, ts);
      if (V* v = live(doc)) v->end = ts;
    } else {
      std::vector<std::string> terms;
      for (int n = rng() % 4; n > 0; --n) terms.push_back(words[rng() % 5]);
      index.Put(doc, terms, ts);
      if (V* v = live(doc)) v->end = ts;
      model.push_back({doc, ts, kForever, terms});
    }
    if (ts % 37 == 0) {
      oldest = ts - rng() % 20;
      index.Prune(oldest);
    }
    for (uint64_t r : {oldest, (oldest + ts) / 2, ts}) {
      // The model's BM25 for "alpha" at snapshot r.
      double n = 0, total = 0, df = 0;
      for (const V& v : model) {
        if (v.begin <= r && r < v.end) {
          ++n;
          total += static_cast<double>(v.terms.size());
          df += std::count(v.terms.begin(), v.terms.end(), "alpha") > 0;
        }
      }
      std::map<uint64_t, double> expected;
      for (const V& v : model) {
        auto tf = static_cast<double>(std::count(v.terms.begin(), v.terms.end(), "alpha"));
        if (v.begin <= r && r < v.end && tf > 0) {
          double idf = std::log10((n - df + 0.5) / (df + 0.5) + 1);
          double len = static_cast<double>(v.terms.size());
          expected[v.doc] = idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / (total / n)));
        }
      }
      QueryTerms q;
      q.exact = {"alpha"};
      q.unique_count = 1;
      auto got = index.Search(q, r, {}, {});
      ASSERT_EQ(got.size(), expected.size()) << "ts " << ts << " read " << r;
      for (const ScoredDoc& d : got) EXPECT_NEAR(d.score, expected[d.offset], 1e-9);
    }
  }
}

TEST(FtsIndex, WildcardsFindTermsAddedByBuildAndPut) {
  auto a = MakeAnalyzer();
  InvertedIndex index;
  SmallIndex(&index, *a);  // terms: alic, run, bob
  index.Put(5, Terms(*a, "zebra alpaca"), 3);
  index.Put(6, Terms(*a, "alpine"), 4);
  auto found = [&](std::string_view q) {
    std::vector<uint64_t> out;
    for (const ScoredDoc& d : index.Search(a->Query(q, false), 10, {}, {})) out.push_back(d.offset);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(found("al*"), (std::vector<uint64_t>{0, 5, 6}));
  EXPECT_EQ(found("alp?n*"), (std::vector<uint64_t>{6}));
  EXPECT_EQ(found("*b*"), (std::vector<uint64_t>{1, 5}));
  EXPECT_EQ(found("zz*"), (std::vector<uint64_t>{}));
}

// A selective query (few postings for the table's size) takes the sparse path; a broad one the
// dense accumulator: both give BM25.
TEST(FtsIndex, SelectiveAndBroadQueriesScoreAlike) {
  InvertedIndex index;
  std::vector<DocTerms> docs;
  for (uint64_t i = 0; i < 400; ++i) {
    DocTerms d{i, 0, {"common"}};
    if (i % 50 == 0) d.terms.push_back("rare");
    docs.push_back(std::move(d));
  }
  index.Build(std::move(docs));
  const double avgdl = (8 * 2 + 392) / 400.0;
  const double idf = std::log10((400 - 8 + 0.5) / (8 + 0.5) + 1);
  const double rare = idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / avgdl));
  QueryTerms q;
  q.exact = {"rare"};
  q.unique_count = 1;
  auto r = index.Search(q, 1, {}, {});  // sparse: 8 postings for 400 rows
  ASSERT_EQ(r.size(), 8u);
  for (const ScoredDoc& d : r) EXPECT_NEAR(d.score, rare, 1e-12);
  q.exact = {"rare", "common"};
  q.unique_count = 2;
  SearchOptions conj;
  conj.conjunctive = true;
  conj.top = 3;
  r = index.Search(q, 1, {}, conj);  // dense: 408 postings
  ASSERT_EQ(r.size(), 3u);
  const double common_idf = std::log10((400 - 400 + 0.5) / (400 + 0.5) + 1);
  const double common = common_idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / avgdl));
  EXPECT_NEAR(r[0].score, rare + common, 1e-12);
  EXPECT_EQ(r[0].offset, 0u);
  EXPECT_EQ(r[2].offset, 100u);
  // Sparse and conjunctive: the rows that hold both of two rare terms.
  std::vector<DocTerms> more;
  more.push_back({400, 2, {"rare", "unique"}});
  index.Build(std::move(more));
  q.exact = {"rare", "unique"};
  r = index.Search(q, 2, {}, conj);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].offset, 400u);
}

TEST(FtsIndex, OwnChangesReplaceCommittedVersions) {
  auto a = MakeAnalyzer();
  InvertedIndex index;
  SmallIndex(&index, *a);
  OwnDocs own;
  own.changed = {0, 5};
  own.docs.push_back({5, Terms(*a, "alice alice")});  // row 0 deleted, row 5 inserted
  auto r = index.Search(a->Query("alice", false), 10, own, {});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].offset, 5u);
  // N = 2 (rows 1 and 5), avgdl = 1.5, df = 1, tf = 2, len = 2.
  EXPECT_NEAR(r[0].score, std::log10(2.0) * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 2 / 1.5)), 1e-12);
  // A term only the own documents hold is found too.
  own.docs[0].terms = Terms(*a, "zebra");
  EXPECT_EQ(index.Search(a->Query("zebra", false), 10, own, {}).size(), 1u);
}

TEST(FtsIndex, ConjunctiveAndTop) {
  auto a = MakeAnalyzer();
  InvertedIndex index;
  std::vector<DocTerms> docs;
  const char* texts[] = {"alice studys in waterloo and toronto", "bob is studying in vancouver",
                         "dan has not study at any places"};
  for (uint64_t i = 0; i < 3; ++i) docs.push_back({i, 0, Terms(*a, texts[i])});
  index.Build(std::move(docs));
  SearchOptions conj;
  conj.conjunctive = true;
  auto r = index.Search(a->Query("alice studying", true), 1, {}, conj);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].offset, 0u);
  EXPECT_TRUE(index.Search(a->Query("alice carol", true), 1, {}, conj).empty());
  SearchOptions top;
  top.top = 2;
  r = index.Search(a->Query("study waterloo", false), 1, {}, top);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_GE(r[0].score, r[1].score);
  EXPECT_EQ(r[0].offset, 0u);
}

}  // namespace
}  // namespace graphdb::fts
