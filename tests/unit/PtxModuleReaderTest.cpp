// Reading a module one body at a time (ptx::ModuleReader) over real nvcc
// output: the first pass finds every body and counts its instructions as the
// body parser does; a body loaded, released and loaded again is the same;
// errors are the file's first whichever body is read first; HeldBodies
// holds a kernel's callees and bounds what it keeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "PtxInputs.h"
#include "ptx/HeldBodies.h"
#include "ptx/Parser.h"

using namespace fenceline;
using namespace fenceline::ptx;

namespace {

size_t indexOf(const Module& m, std::string_view name) {
  for (size_t i = 0; i < m.functions.size(); ++i)
    if (m.functions[i].name == name && m.functions[i].hasBody) return i;
  throw std::runtime_error("no function " + std::string(name));
}

// Opcode, operand count, line and location of every instruction: what a
// reload must reproduce (location ids are per module: `byPosition` compares
// two modules by the location's source position instead).
std::vector<std::string> shape(const Module& m, const Function& f, bool byPosition = false) {
  std::vector<std::string> out;
  for (const auto& i : f.instructions) {
    std::string at = std::to_string(i.location);
    if (byPosition && i.location != kNoLocation) {
      const Location& l = m.locations[i.location];
      at = std::to_string(l.file) + ":" + std::to_string(l.line) + ":" + std::to_string(l.column) + " " + l.function;
    }
    out.push_back(std::string(i.opcode) + "/" + std::to_string(i.operands.size()) + "@" + at + " line " + std::to_string(i.pos.line));
  }
  return out;
}

ParseError readError(const std::string& text) {
  try {
    ModuleReader reader(text, "damaged.ptx");
    for (size_t i = 0; i < reader.module().functions.size(); ++i)
      if (reader.module().functions[i].hasBody) reader.load(i);
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return ParseError("", 0, 0, "", "");
}

}  // namespace

TEST(PtxModuleReader, FirstPassCountsTheInstructionsOfEveryInput) {
  // Every nvcc output of the unit inputs: the count made without parsing
  // bodies is exact (it sizes the inlining budget).
  size_t inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FENCELINE_TEST_PTX_DIR)) {
    if (entry.path().extension() != ".ptx") continue;
    auto text = fenceline::testing::readPtxInput(entry.path().stem().string());
    ASSERT_TRUE(text);
    Module whole = parseModule(*text, "whole.ptx");
    size_t instructions = 0;
    for (const auto& f : whole.functions) instructions += f.instructions.size();
    ModuleReader reader(*text, "read.ptx");
    EXPECT_EQ(reader.instructionCount(), instructions) << entry.path();
    ASSERT_EQ(reader.module().functions.size(), whole.functions.size()) << entry.path();
    for (size_t i = 0; i < whole.functions.size(); ++i) {
      EXPECT_EQ(reader.module().functions[i].hasBody, whole.functions[i].hasBody);
      EXPECT_TRUE(reader.module().functions[i].instructions.empty()) << "bodies wait for load()";
    }
    ++inputs;
  }
  if (inputs == 0) GTEST_SKIP() << "no PTX inputs (nvcc missing?)";
}

TEST(PtxModuleReader, BracesInAsmCommentsDoNotEndABody) {
  FENCELINE_LOAD_PTX(text, "ReadByFunction");
  ModuleReader reader(text, "ReadByFunction.ptx");
  const Module& m = reader.module();
  for (std::string_view name : {"_Z13shared_helperi", "_Z13nested_helperi", "_Z11late_helperi", "first_caller",
                                "second_caller"}) {
    size_t i = indexOf(m, name);
    reader.load(i);
    EXPECT_FALSE(m.functions[i].instructions.empty()) << name;
    EXPECT_EQ(m.functions[i].instructions.back().opcode, "ret") << name;
  }
}

TEST(PtxModuleReader, AReloadedBodyIsTheSame) {
  FENCELINE_LOAD_PTX(text, "ReadByFunction");
  Module whole = parseModule(text, "ReadByFunction.ptx");
  ModuleReader reader(text, "ReadByFunction.ptx");
  const Module& m = reader.module();
  size_t kernel = indexOf(m, "first_caller");
  reader.load(kernel);
  auto first = shape(m, m.functions[kernel]);
  size_t locations = m.locations.size();
  reader.release(kernel);
  EXPECT_TRUE(m.functions[kernel].instructions.empty());
  EXPECT_FALSE(reader.isLoaded(kernel));
  reader.load(kernel);
  EXPECT_EQ(shape(m, m.functions[kernel]), first);
  EXPECT_EQ(m.locations.size(), locations) << "locations are interned, not added again";
  EXPECT_EQ(shape(m, m.functions[kernel], true),
            shape(whole, whole.functions[indexOf(whole, "first_caller")], true));
  // Inline chains name their functions from .debug_str, read in the first pass.
  bool named = false;
  for (const auto& inst : m.functions[kernel].instructions)
    if (inst.location != kNoLocation && !m.locations[inst.location].function.empty()) named = true;
  EXPECT_EQ(named, std::any_of(whole.locations.begin(), whole.locations.end(),
                               [](const Location& l) { return !l.function.empty(); }));
}

TEST(PtxModuleReader, TheFirstErrorInTheFileWinsWhateverIsReadFirst) {
  FENCELINE_LOAD_PTX(text, "ReadByFunction");
  // An error in the first body and one at the module level after it: a
  // sequential parse reports the body's; so must the two passes.
  std::string damaged = text;
  size_t inBody = damaged.find("ret;");
  ASSERT_NE(inBody, std::string::npos);
  damaged.replace(inBody, 4, "ret");  // missing ';'
  size_t moduleLevel = damaged.find("// .globl\tsecond_caller");
  ASSERT_NE(moduleLevel, std::string::npos);
  std::string withModuleError = damaged.substr(0, moduleLevel) + ".bogus_directive\n" + damaged.substr(moduleLevel);
  ParseError both = readError(withModuleError);
  ParseError bodyOnly = readError(damaged);
  EXPECT_EQ(both.message, bodyOnly.message);
  EXPECT_EQ(both.line, bodyOnly.line);
  size_t close = damaged.find('}', inBody);  // "expected an operand, found '}'"
  EXPECT_EQ(both.line, std::count(damaged.begin(), damaged.begin() + close, '\n') + 1);

  // A later body read first (a kernel's callee is) with an error of its own:
  // the earlier body's error is reported.
  size_t lastRet = damaged.rfind("ret;");
  ASSERT_GT(lastRet, inBody);
  damaged.replace(lastRet, 4, "ret %nowhere;");
  ModuleReader reader(damaged, "damaged.ptx");
  size_t last = indexOf(reader.module(), "second_caller");
  try {
    reader.load(last);
    ADD_FAILURE() << "no error";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line, bodyOnly.line);
    EXPECT_EQ(e.message, bodyOnly.message);
  }
}

TEST(PtxModuleReader, HeldBodiesHoldTheCalleesAndCacheHelpersWithinBounds) {
  FENCELINE_LOAD_PTX(text, "ReadByFunction");
  ModuleReader reader(text, "ReadByFunction.ptx");
  const Module& m = reader.module();
  size_t kernel = indexOf(m, "second_caller"), nested = indexOf(m, "_Z13nested_helperi"),
         shared = indexOf(m, "_Z13shared_helperi"), late = indexOf(m, "_Z11late_helperi"),
         first = indexOf(m, "first_caller");
  {
    HeldBodies bodies(reader, 16);
    bodies.hold(kernel);
    // second_caller -> nested_helper -> shared_helper, late_helper.
    for (size_t i : {kernel, nested, shared, late}) EXPECT_TRUE(reader.isLoaded(i)) << m.functions[i].name;
    bodies.release();
    EXPECT_FALSE(reader.isLoaded(kernel)) << "kernels are released";
    EXPECT_FALSE(reader.isLoaded(shared)) << "a helper one function used is released";
    // first_caller -> shared_helper, late_helper: their second user.
    bodies.hold(first);
    bodies.release();
    EXPECT_TRUE(reader.isLoaded(shared)) << "a helper a second function used is cached";
    EXPECT_TRUE(reader.isLoaded(late));
    EXPECT_FALSE(reader.isLoaded(nested)) << "used once";
  }
  for (size_t i = 0; i < m.functions.size(); ++i)
    if (reader.isLoaded(i)) reader.release(i);
  {
    // The cache's bound is in bytes of PTX text: room for shared_helper only.
    HeldBodies bodies(reader, 16, reader.textBytes(shared));
    for (int round = 0; round < 2; ++round) {
      bodies.hold(first);
      bodies.release();
    }
    EXPECT_GT(reader.textBytes(shared), 0u);
    EXPECT_FALSE(reader.isLoaded(shared) && reader.isLoaded(late)) << "more text than the bound";
    EXPECT_TRUE(reader.isLoaded(shared) || reader.isLoaded(late)) << "one of them fits";
  }
  {
    HeldBodies depthOne(reader, 1, 0);  // one call deep; no cache
    for (size_t i = 0; i < m.functions.size(); ++i)
      if (reader.isLoaded(i)) reader.release(i);
    depthOne.hold(kernel);
    EXPECT_TRUE(reader.isLoaded(nested));
    EXPECT_FALSE(reader.isLoaded(shared)) << "two calls deep";
    depthOne.release();
    for (size_t i = 0; i < m.functions.size(); ++i) EXPECT_FALSE(reader.isLoaded(i)) << m.functions[i].name;
  }
}
