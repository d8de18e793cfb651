// parseModule on damaged real PTX: truncations, byte flips, deleted and
// duplicated lines, random bytes. Each variant must either parse or throw
// ParseError with a position inside the text; nothing else (no crash, no
// other exception, no hang). Run under the ASan+UBSan build this also checks
// that no byte sequence reads out of bounds. FENCELINE_FUZZ_ITERATIONS
// raises the number of variants (default: a few thousand per input).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "PtxInputs.h"
#include "ptx/Parser.h"

using namespace fenceline::ptx;

namespace {

int iterations() {
  const char* env = std::getenv("FENCELINE_FUZZ_ITERATIONS");
  return env ? std::max(1, std::atoi(env)) : 1000;
}

size_t countLines(const std::string& s) { return 1 + static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// Parses `text`; returns a failure description or "".
std::string tryParse(const std::string& text) {
  try {
    parseModule(text, "fuzz.ptx");
  } catch (const ParseError& e) {
    if (e.line == 0 || e.line > countLines(text)) return "error line out of range: " + std::string(e.what());
    if (e.column == 0) return "error column 0: " + std::string(e.what());
    if (e.excerpt.find('^') == std::string::npos) return "excerpt without caret: " + std::string(e.what());
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  }
  return "";
}

std::vector<std::pair<size_t, size_t>> lineSpans(const std::string& s) {
  std::vector<std::pair<size_t, size_t>> spans;
  size_t begin = 0;
  while (begin < s.size()) {
    size_t end = s.find('\n', begin);
    end = end == std::string::npos ? s.size() : end + 1;
    spans.emplace_back(begin, end);
    begin = end;
  }
  return spans;
}

std::string mutate(const std::string& original, std::mt19937_64& rng) {
  std::string s = original;
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    switch (rng() % 7) {
      case 0:  // truncate
        s.resize(pick(s.size()));
        break;
      case 1:  // flip a byte to anything
        s[pick(s.size())] = static_cast<char>(rng() & 0xff);
        break;
      case 2: {  // flip a byte to a PTX-significant character
        static const char kSignificant[] = "{}[]();:,.%@!|<>+-_0123456789\"/*\n";
        s[pick(s.size())] = kSignificant[pick(sizeof kSignificant - 1)];
        break;
      }
      case 3: {  // delete a line
        auto spans = lineSpans(s);
        auto [b, en] = spans[pick(spans.size())];
        s.erase(b, en - b);
        break;
      }
      case 4: {  // duplicate a line elsewhere
        auto spans = lineSpans(s);
        auto [b, en] = spans[pick(spans.size())];
        std::string line = s.substr(b, en - b);
        s.insert(spans[pick(spans.size())].first, line);
        break;
      }
      case 5: {  // swap two lines
        auto spans = lineSpans(s);
        auto a = spans[pick(spans.size())], b = spans[pick(spans.size())];
        if (a.first > b.first) std::swap(a, b);
        if (a.second > b.first) break;
        std::string la = s.substr(a.first, a.second - a.first), lb = s.substr(b.first, b.second - b.first);
        s.replace(b.first, lb.size(), la);
        s.replace(a.first, la.size(), lb);
        break;
      }
      default:  // delete a short range
        s.erase(pick(s.size()), 1 + pick(16));
        break;
    }
  }
  return s;
}

void fuzz(const char* name, uint64_t seed) {
  auto text = fenceline::testing::readPtxInput(name);
  if (!text) GTEST_SKIP() << "no PTX inputs";
  ASSERT_EQ(tryParse(*text), "") << "the unmodified input must parse";
  std::mt19937_64 rng(seed);
  int n = iterations();
  for (int i = 0; i < n; ++i) {
    std::string variant = mutate(*text, rng);
    std::string failure = tryParse(variant);
    ASSERT_EQ(failure, "") << name << " variant " << i << " (seed " << seed << ")";
  }
}

}  // namespace

TEST(PtxRobustness, MutatedParserShapes) { fuzz("ParserShapes", 1); }
TEST(PtxRobustness, MutatedTmaShapes) { fuzz("TmaShapes", 2); }
TEST(PtxRobustness, MutatedInlineChains) { fuzz("InlineChains", 3); }

TEST(PtxRobustness, RandomBytesAndEmptyInput) {
  EXPECT_EQ(tryParse(""), "");
  std::mt19937_64 rng(4);
  for (int i = 0; i < 2000; ++i) {
    std::string s(static_cast<size_t>(rng() % 64), '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xff);
    ASSERT_EQ(tryParse(s), "") << "random input " << i;
  }
}

TEST(PtxRobustness, DeepNestingIsAnErrorNotAStackOverflow) {
  std::string deep = ".version 9.0\n.target sm_90a\n.address_size 64\n.entry k()\n" + std::string(100000, '{');
  try {
    parseModule(deep, "deep.ptx");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_NE(e.message.find("nested too deeply"), std::string::npos) << e.what();
  }
  std::string vector = ".version 9.0\n.target sm_90a\n.address_size 64\n.entry k()\n{\nmov.b32 " +
                       std::string(100000, '{');
  EXPECT_THROW(parseModule(vector, "deep.ptx"), ParseError);
  std::string init = ".version 9.0\n.global .b32 x[1] = " + std::string(100000, '{');
  EXPECT_THROW(parseModule(init, "deep.ptx"), ParseError);
}
