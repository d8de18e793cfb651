// The byte scanners of ptx/FastScan.h read nvcc's `.loc` lines and
// `.debug_str` byte lists without tokens. They must agree with the token
// parser: on real nvcc output (here respelled so that every such line goes
// through the tokens instead: a trailing comment is legal PTX the scanners
// leave to the parser) the module's locations and decoded names are the same,
// and the shapes they do not take are left whole to the parser.
#include <gtest/gtest.h>

#include <regex>

#include "PtxInputs.h"
#include "ptx/DebugInfo.h"
#include "ptx/FastScan.h"
#include "ptx/Parser.h"

using namespace fenceline::ptx;

namespace {

// Every `.loc` and `.b8` byte-list line of `text` with a comment appended.
std::string withCommentedDebugLines(const std::string& text) {
  static const std::regex kDebugLine(R"(^(\s*(\.loc\s|\.b8 [0-9]).*)$)", std::regex::multiline);
  return std::regex_replace(text, kDebugLine, "$1 // token path");
}

// "file:line:column in function <- ..." per instruction of every function.
std::vector<std::string> frames(const Module& m) {
  std::vector<std::string> out;
  for (const auto& f : m.functions)
    for (const auto& i : f.instructions) {
      std::string chain;
      for (LocationId id = i.location; id != kNoLocation; id = m.locations.at(id).inlinedAt) {
        const Location& loc = m.locations.at(id);
        chain += std::to_string(loc.file) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + " in " +
                 loc.function + " <- ";
      }
      out.push_back(chain);
    }
  return out;
}

}  // namespace

TEST(PtxFastScan, ScannedAndTokenParsedDebugLinesAgreeOnNvccOutput) {
  for (const char* name : {"InlineChains", "TmaShapes"}) {
    FENCELINE_LOAD_PTX(text, name);
    std::string respelled = withCommentedDebugLines(text);
    ASSERT_NE(respelled, text) << name;
    Module scanned = parseModule(text, name);
    Module tokens = parseModule(respelled, name);
    EXPECT_EQ(frames(scanned), frames(tokens)) << name;
    EXPECT_EQ(scanned.locations.size(), tokens.locations.size()) << name;
    bool named = false;
    for (const auto& loc : scanned.locations) named |= !loc.function.empty();
    EXPECT_TRUE(named) << name << ": the .debug_str names were decoded";
  }
}

TEST(PtxFastScan, LocLineInNvccShape) {
  std::string line = ".loc\t2 130 5, function_name $L__info_string1, inlined_at 1 15 3\n";
  auto loc = scanLocLine(line, 0);
  ASSERT_TRUE(loc);
  EXPECT_EQ(loc->file, 2);
  EXPECT_EQ(loc->line, 130u);
  EXPECT_EQ(loc->column, 5u);
  EXPECT_TRUE(loc->hasFunction);
  EXPECT_EQ(loc->functionLabel, "$L__info_string1");
  EXPECT_TRUE(loc->hasInlinedAt);
  EXPECT_EQ(loc->atFile, 1);
  EXPECT_EQ(loc->atLine, 15u);
  EXPECT_EQ(loc->atColumn, 3u);
  EXPECT_EQ(loc->end, line.size() - 1);
  EXPECT_EQ(line.substr(loc->lastToken, loc->lastTokenLength), "3");

  auto plain = scanLocLine(".loc 1 7 0\r\n", 0);
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->hasFunction);
  EXPECT_EQ(plain->line, 7u);
}

TEST(PtxFastScan, LocLinesOfOtherShapesAreLeftToTheParser) {
  for (const char* line : {
           ".loc 1 017 0\n",                                    // octal to the lexer
           ".loc 1 7U 0\n",                                     // a suffix
           ".loc 1 4294967296 0\n",                             // over UINT32_MAX: the parser's error
           ".loc 2147483648 1 0\n",                             // a file index over INT32_MAX
           ".loc 1 -7 0\n",                                     // a sign
           ".loc 1 7 0 // comment\n",                           // a comment
           ".loc 1 7 0",                                        // no newline
           ".loc 1 7\n",                                        // a number missing
           ".loc 1 7 0, function_name $L__info_string1+4\n",    // a label offset
           ".loc 1 7 0, inlined_at 1 2 3\n",                    // inlined_at without function_name
           ".loc 1 7 0, inlined_at 1 2 3, function_name $L\n",  // another order
           ".loc 1 7 0, function_name $L, inlined_at 1 2\n",    // a number missing
           ".loc 1 7 0, function_name a.b\n",                   // a dot in the label
           ".loc 1 7 0,\n",                                     // a dangling comma
           ".location 1 7 0\n",
       })
    EXPECT_FALSE(scanLocLine(line, 0)) << line;
}

TEST(PtxFastScan, LocContinuedOnTheNextLineIsTheTokenParsers) {
  // The token parser reads attributes past the line's end; the scanner must
  // not cut the directive short there.
  FENCELINE_LOAD_PTX(text, "InlineChains");
  std::string split = std::regex_replace(text, std::regex(R"((\.loc\s+\d+ \d+ \d+), function_name)"),
                                         "$1\n, function_name");
  ASSERT_NE(split, text);
  EXPECT_EQ(frames(parseModule(split, "split.ptx")), frames(parseModule(text, "InlineChains.ptx")));
}

TEST(PtxFastScan, ByteListLinesDecodeOrStop) {
  std::string section = "$L__info_string0:\n.b8 95,90,51,0\n.b8 1 , 2\n";
  DebugStrings strings;
  ScanPosition end = scanSectionLines(section, ScanPosition{}, &strings);
  EXPECT_EQ(end.offset, section.size());
  ASSERT_TRUE(strings.find("$L__info_string0"));
  EXPECT_EQ(*strings.find("$L__info_string0"), "_Z3");
  for (const char* line : {".b8 256\n", ".b8 01\n", ".b8 1,\n", ".b8 0x1\n", ".b8 1234\n", ".b8 1.\n", ".b8 1"}) {
    DebugStrings none;
    EXPECT_EQ(scanSectionLines(line, ScanPosition{}, &none).offset, 0u) << line;
  }
}
