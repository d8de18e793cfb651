// Debug information over real nvcc output: .loc inline chains (innermost
// frame on the instruction, inlinedAt outward), names decoded from
// .section .debug_str, and .file.
#include <gtest/gtest.h>

#include "PtxInputs.h"
#include "model/Demangle.h"
#include "ptx/DebugInfo.h"
#include "ptx/Parser.h"

using namespace fenceline;
using namespace fenceline::ptx;
using fenceline::testing::functionNamed;

namespace {

// "function@line" per frame, innermost first.
std::vector<std::string> chain(const Module& m, LocationId id) {
  std::vector<std::string> out;
  for (int guard = 0; id != kNoLocation && guard < 100; ++guard) {
    const Location& loc = m.locations.at(id);
    out.push_back(model::demangle(loc.function) + "@" + std::to_string(loc.line));
    id = loc.inlinedAt;
  }
  return out;
}

}  // namespace

TEST(PtxDebugInfo, NestedInlinesBuildAChainInnermostFirst) {
  FENCELINE_LOAD_PTX(text, "InlineChains");
  Module m = parseModule(text, "InlineChains.ptx");
  const Function& f = functionNamed(m, "chain_kernel");
  const Instruction* store = nullptr;
  for (const auto& i : f.instructions)
    if (i.opcode == "st") store = &i;
  ASSERT_TRUE(store);
  // InlineChains.cu: inner line 5 <- middle line 8 <- outer line 11 <- kernel line 14.
  EXPECT_EQ(chain(m, store->location),
            (std::vector<std::string>{"chain_inner(int*, int)@5", "chain_middle(int*, int)@8",
                                      "chain_outer(int*, int)@11", "@14"}));
  const Location& inner = m.locations[store->location];
  EXPECT_EQ(inner.file, 1);
  EXPECT_EQ(inner.column, 3u);
  ASSERT_TRUE(m.file(inner.file));
  EXPECT_NE(m.file(inner.file)->path.find("InlineChains.cu"), std::string::npos);
}

TEST(PtxDebugInfo, EachInstructionTakesTheLocInForce) {
  FENCELINE_LOAD_PTX(text, "InlineChains");
  Module m = parseModule(text, "InlineChains.ptx");
  const Function& f = functionNamed(m, "chain_kernel");
  const Instruction& first = f.instructions.front();  // ld.param after `.loc 1 13 0`
  EXPECT_EQ(chain(m, first.location), std::vector<std::string>{"@13"});
  const Instruction& last = f.instructions.back();  // ret after `.loc 1 15 1`
  EXPECT_EQ(last.opcode, "ret");
  EXPECT_EQ(chain(m, last.location), std::vector<std::string>{"@15"});
  const Instruction* x = nullptr;
  for (const auto& i : f.instructions)
    if (i.opcode == "xor") x = &i;
  ASSERT_TRUE(x);
  EXPECT_EQ(chain(m, x->location), (std::vector<std::string>{"chain_outer(int*, int)@11", "@14"}));
}

TEST(PtxDebugInfo, ChainsFromLibraryHeadersResolveEarlierPositions) {
  // In TmaShapes the try_wait helper is inlined inside a loop: its .loc names
  // positions set before the loop. Every chain must end in the kernel's file.
  FENCELINE_LOAD_PTX(text, "TmaShapes");
  Module m = parseModule(text, "TmaShapes.ptx");
  const Function& f = functionNamed(m, "tma_load");
  int inlined = 0;
  for (const auto& i : f.instructions) {
    ASSERT_NE(i.location, kNoLocation) << i.opcode << " at line " << i.pos.line;
    LocationId id = i.location;
    while (m.locations[id].inlinedAt != kNoLocation) id = m.locations[id].inlinedAt;
    EXPECT_EQ(m.locations[id].file, 1) << i.opcode << " at line " << i.pos.line;
    inlined += m.locations[i.location].inlinedAt != kNoLocation;
  }
  EXPECT_GT(inlined, 3);
}

TEST(PtxDebugInfo, LocationsAreInterned) {
  FENCELINE_LOAD_PTX(text, "InlineChains");
  Module m = parseModule(text, "InlineChains.ptx");
  // `.loc 1 14 3` appears twice and `.loc 1 11 3, ...` twice: 6 distinct frames.
  EXPECT_EQ(m.locations.size(), 6u);
}

TEST(PtxDebugInfo, DebugStringsDecodeByteLists) {
  DebugStrings strings;
  strings.beginLabel("$L__info_string0");
  for (char c : std::string("_Z3fooi")) strings.addByte(static_cast<uint8_t>(c));
  strings.addByte(0);
  strings.addByte('x');  // after the NUL: belongs to no label
  strings.beginLabel("$L__info_string1");
  ASSERT_TRUE(strings.find("$L__info_string0"));
  EXPECT_EQ(*strings.find("$L__info_string0"), "_Z3fooi");
  EXPECT_EQ(*strings.find("$L__info_string1"), "");
  EXPECT_EQ(strings.find("$L__info_string2"), nullptr);
  EXPECT_EQ(model::demangle("_Z3fooi"), "foo(int)");
  EXPECT_EQ(model::demangle("chain_kernel"), "chain_kernel");
  EXPECT_EQ(model::demangle("_Zgarbage"), "_Zgarbage");
}

TEST(PtxDebugInfo, InlinedAtAnUnseenPositionStartsANewOuterFrame) {
  std::vector<Location> locations;
  LocationTable table(locations);
  table.beginFunction();
  LocationId a = table.inlined(2, 10, 3, "$L__info_string0", true, 1, 99, 1);
  LocationId parent = locations[a].inlinedAt;
  ASSERT_NE(parent, kNoLocation);
  EXPECT_EQ(locations[parent].line, 99u);
  EXPECT_EQ(locations[parent].function, "");
  EXPECT_EQ(locations[parent].inlinedAt, kNoLocation);
  // The same position seen again links to the most recent frame there.
  LocationId outer = table.plain(1, 50, 2);
  LocationId b = table.inlined(2, 20, 3, "$L__info_string0", true, 1, 50, 2);
  EXPECT_EQ(locations[b].inlinedAt, outer);
}
