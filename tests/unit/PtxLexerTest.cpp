// The PTX lexer over lines of real nvcc output (taken from Inputs/*.ptx by
// content, so the tests follow the compiler's spelling), plus the few byte
// sequences that must be errors.
#include <gtest/gtest.h>

#include <stdexcept>

#include "PtxInputs.h"
#include "ptx/Lexer.h"

using namespace fenceline::ptx;

namespace {

struct LexFailure : std::runtime_error {
  uint32_t line, column;
  LexFailure(uint32_t l, uint32_t c, const std::string& m) : std::runtime_error(m), line(l), column(c) {}
};

void throwFailure(void*, uint32_t, uint32_t line, uint32_t column, const std::string& message) {
  throw LexFailure(line, column, message);
}

std::vector<Token> lexAll(std::string_view text) {
  Lexer lexer(text, &throwFailure, nullptr);
  std::vector<Token> out;
  while (lexer.peek().kind != TokenKind::End) out.push_back(lexer.next());
  return out;
}

std::vector<std::string> texts(const std::vector<Token>& tokens) {
  std::vector<std::string> out;
  for (const auto& t : tokens) out.emplace_back(t.text);
  return out;
}

// The first line of `text` that contains `needle`, with its newline (a view
// into `text`, which the tokens point into).
std::string_view lineWith(const std::string& text, std::string_view needle) {
  size_t at = text.find(needle);
  if (at == std::string::npos) throw std::runtime_error("no line with " + std::string(needle));
  size_t begin = text.rfind('\n', at) + 1;
  size_t end = text.find('\n', at);
  return std::string_view(text).substr(begin, end - begin + 1);
}

}  // namespace

TEST(PtxLexer, OpcodesKeepDotsAndScopedModifiers) {
  FENCELINE_LOAD_PTX(text, "TmaShapes");
  auto tokens = lexAll(lineWith(text, "cp.async.bulk.tensor"));
  ASSERT_GE(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].kind, TokenKind::Identifier);
  EXPECT_EQ(tokens[0].text, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes");
  EXPECT_TRUE(tokens[1].is('['));
  // [%r4], [%rd2, {%r5, %r6}], [%r7];
  EXPECT_EQ(texts(tokens).back(), ";");
}

TEST(PtxLexer, DirectivesNumbersAndSpecialRegisters) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  auto reg = lexAll(lineWith(text, ".reg .b32"));
  ASSERT_EQ(reg.size(), 7u);  // .reg .b32 %r < 24 > ;
  EXPECT_EQ(reg[0].kind, TokenKind::Directive);
  EXPECT_EQ(reg[1].text, ".b32");
  EXPECT_EQ(reg[2].kind, TokenKind::Identifier);
  EXPECT_TRUE(reg[3].is('<'));
  EXPECT_EQ(reg[4].kind, TokenKind::Integer);

  auto mul = lexAll(lineWith(text, "0f3FC00000"));
  EXPECT_EQ(mul.at(5).kind, TokenKind::Float);
  EXPECT_EQ(mul.at(5).text, "0f3FC00000");

  auto tid = lexAll(lineWith(text, "%tid.x"));
  EXPECT_EQ(tid.at(3).text, "%tid.x");

  auto version = lexAll(lineWith(text, ".version"));
  EXPECT_EQ(version.at(1).kind, TokenKind::Float);  // "9.0"; the parser keeps the text

  auto file = lexAll(lineWith(text, ".file"));
  EXPECT_EQ(file.at(2).kind, TokenKind::String);
}

TEST(PtxLexer, PositionsAreOneBasedLineAndColumn) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  Lexer lexer(text, &throwFailure, nullptr);
  // The first token is `.version` after the header comment.
  Token first = lexer.next();
  EXPECT_EQ(first.text, ".version");
  size_t offset = text.find(".version");
  EXPECT_EQ(first.offset, offset);
  uint32_t line = 1 + static_cast<uint32_t>(std::count(text.begin(), text.begin() + offset, '\n'));
  EXPECT_EQ(first.line, line);
  EXPECT_EQ(first.column, 1u);
}

TEST(PtxLexer, InlineAsmMarkersToggleTheFlag) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  int inside = 0, outside = 0;
  for (const auto& t : lexAll(text)) {
    if (t.text == "bar.sync") EXPECT_FALSE(t.inInlineAsm);
    if (t.text == "LAB_WAIT") EXPECT_TRUE(t.inInlineAsm);
    (t.inInlineAsm ? inside : outside)++;
  }
  EXPECT_GT(inside, 10);
  EXPECT_GT(outside, inside);
}

TEST(PtxLexer, WholeInputsLex) {
  for (const char* name : {"ParserShapes", "TmaShapes", "InlineChains"}) {
    auto text = fenceline::testing::readPtxInput(name);
    if (!text) GTEST_SKIP() << "no PTX inputs";
    EXPECT_NO_THROW(lexAll(*text)) << name;
  }
}

TEST(PtxLexer, BadBytesAreErrorsWithPositions) {
  try {
    lexAll("ret;\n  \x01;");
    FAIL() << "control character accepted";
  } catch (const LexFailure& e) {
    EXPECT_EQ(e.line, 2u);
    EXPECT_EQ(e.column, 3u);
    EXPECT_NE(std::string(e.what()).find("0x01"), std::string::npos);
  }
  EXPECT_THROW(lexAll(".file 1 \"unterminated\n"), LexFailure);
  EXPECT_THROW(lexAll("ret; /* never closed"), LexFailure);
  EXPECT_THROW(lexAll(std::string_view("ret;\0", 5)), LexFailure);
  EXPECT_THROW(lexAll("\xff\xfe"), LexFailure);
  // A lone trailing slash or dot is an error, not a read past the end.
  EXPECT_THROW(lexAll("ret /"), LexFailure);
  EXPECT_THROW(lexAll("ret ."), LexFailure);
}
