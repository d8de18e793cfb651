// Errors in otherwise real PTX: each test damages an nvcc output in one
// place and checks the ParseError's position, message and excerpt.
#include <gtest/gtest.h>

#include "PtxInputs.h"
#include "ptx/Parser.h"

using namespace fenceline::ptx;

namespace {

// Line (1-based) and column of the first occurrence of `needle` in `text`.
std::pair<uint32_t, uint32_t> positionOf(const std::string& text, std::string_view needle) {
  size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  uint32_t line = 1 + static_cast<uint32_t>(std::count(text.begin(), text.begin() + at, '\n'));
  size_t lineStart = text.rfind('\n', at);
  uint32_t column = static_cast<uint32_t>(at - (lineStart == std::string::npos ? 0 : lineStart + 1) + 1);
  return {line, column};
}

std::string replaceFirst(std::string s, std::string_view from, std::string_view to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

ParseError errorFor(const std::string& text) {
  try {
    parseModule(text, "damaged.ptx");
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return ParseError("", 0, 0, "", "");
}

}  // namespace

TEST(PtxErrors, UndefinedLabelIsReportedAtItsUse) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  // Rename the first inline-asm label definition: its branch no longer resolves
  // (the other copy's LAB_WAIT is in a sibling block, out of scope).
  std::string damaged = replaceFirst(text, "LAB_WAIT:", "LAB_WATT:");
  ParseError e = errorFor(damaged);
  EXPECT_EQ(e.message, "undefined label 'LAB_WAIT'");
  auto [line, column] = positionOf(damaged, "LAB_WAIT;");
  EXPECT_EQ(e.line, line);
  EXPECT_EQ(e.column, column);
  EXPECT_EQ(e.file, "damaged.ptx");
  EXPECT_EQ(std::string(e.what()), "damaged.ptx:" + std::to_string(line) + ":" + std::to_string(column) +
                                       ": undefined label 'LAB_WAIT'");
  // Excerpt: the line, then a caret under the column.
  auto newline = e.excerpt.find('\n');
  ASSERT_NE(newline, std::string::npos);
  EXPECT_NE(e.excerpt.substr(0, newline).find("@p bra LAB_WAIT;"), std::string::npos);
  EXPECT_EQ(e.excerpt.size() - newline - 1, column);
  EXPECT_EQ(e.excerpt.back(), '^');
}

TEST(PtxErrors, UndefinedRegisterIsReportedAtItsUse) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  std::string damaged = replaceFirst(text, "shl.b32 \t%r2, %r1, 1;", "shl.b32 \t%r2, %r9, 1;");
  ParseError e = errorFor(damaged);
  EXPECT_EQ(e.message, "undefined register '%r9'");
  auto [line, column] = positionOf(damaged, "%r9, 1;");
  EXPECT_EQ(e.line, line);
  EXPECT_EQ(e.column, column);
}

TEST(PtxErrors, BlockLocalRegisterIsOutOfScopeAfterItsBlock) {
  FENCELINE_LOAD_PTX(text, "ParserShapes");
  // Use the asm block's `p` after the block closed.
  std::string damaged = replaceFirst(text, "add.s32 \t%r21, %r20, %r1;", "add.s32 \t%r21, %r20, p;");
  ParseError e = errorFor(damaged);
  EXPECT_NE(e.message.find("'p'"), std::string::npos) << e.what();
}

TEST(PtxErrors, MissingSemicolonAndBrace) {
  FENCELINE_LOAD_PTX(text, "InlineChains");
  ParseError e = errorFor(replaceFirst(text, "xor.b32  \t%r2, %r1, 5;", "xor.b32  \t%r2, %r1, 5"));
  EXPECT_NE(e.message.find("expected ';'"), std::string::npos) << e.what();
  size_t lastBrace = text.rfind("\n}");
  ParseError brace = errorFor(text.substr(0, lastBrace + 1) + text.substr(lastBrace + 2));
  EXPECT_NE(brace.message.find("'}'"), std::string::npos) << brace.what();
}

TEST(PtxErrors, BadLocAndBadNumbers) {
  FENCELINE_LOAD_PTX(text, "InlineChains");
  ParseError loc = errorFor(replaceFirst(text, ".loc\t1 13 0", ".loc\t1 13 -5"));
  EXPECT_NE(loc.message.find(".loc"), std::string::npos) << loc.what();
  ParseError attr = errorFor(replaceFirst(text, "function_name", "function_nam"));
  EXPECT_NE(attr.message.find("unknown .loc attribute"), std::string::npos) << attr.what();
  ParseError big = errorFor(replaceFirst(text, "mul.lo.s32 \t%r3, %r2, 3;", "mul.lo.s32 \t%r3, %r2, 99999999999999999999999;"));
  EXPECT_NE(big.message.find("out of range"), std::string::npos) << big.what();
  ParseError flt = errorFor(replaceFirst(text, "mul.lo.s32 \t%r3, %r2, 3;", "mul.lo.s32 \t%r3, %r2, 0f3F80;"));
  EXPECT_NE(flt.message.find("floating-point"), std::string::npos) << flt.what();
}

TEST(PtxErrors, HugeRegisterRangeIsRejected) {
  FENCELINE_LOAD_PTX(text, "InlineChains");
  ParseError e = errorFor(replaceFirst(text, "%r<5>", "%r<99999999999>"));
  EXPECT_NE(e.message.find("too large"), std::string::npos) << e.what();
}
