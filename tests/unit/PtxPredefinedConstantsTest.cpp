// The PTX predefined constant WARP_SZ (PTX ISA 4.4, "Predefined Identifiers")
// in real nvcc output (Inputs/PredefinedConstants.cu: `warpSize`): an integer
// operand of value 32 that keeps its name, known to the value analysis; any
// other undeclared name stays an error.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/Values.h"
#include "ptx/Parser.h"

using namespace fenceline;
using namespace fenceline::testing;

TEST(PtxPredefinedConstants, WarpSizeIsTheIntegerThirtyTwo) {
  FENCELINE_LOAD_PTX(text, "PredefinedConstants");
  ptx::Module m = ptx::parseModule(text, "PredefinedConstants.ptx");
  for (std::string_view kernel : {"warp_size_slot", "warp_size_lane"}) {
    const ptx::Function& f = functionNamed(m, kernel);
    int found = 0;
    for (const auto& i : f.instructions)
      for (const auto& op : i.operands)
        if (op.text == "WARP_SZ") {
          ++found;
          EXPECT_EQ(i.opcode, "mov");
          EXPECT_EQ(op.kind, ptx::Operand::Kind::Integer);
          EXPECT_EQ(op.intValue, 32);
        }
    EXPECT_EQ(found, 1) << kernel;
  }
}

TEST(PtxPredefinedConstants, ValueAnalysisSeesThirtyTwo) {
  FENCELINE_LOAD_PROGRAM(p, "PredefinedConstants");
  const auto& fn = p.fn("warp_size_slot");
  model::InstId store = findOne(fn, "st.global");
  model::AbstractValue address = fn.values->operandValue(store, 0);
  EXPECT_TRUE(address.known) << address.toString();
  EXPECT_TRUE(address.terms.empty()) << address.toString();
  EXPECT_EQ(address.constant, 128) << address.toString();  // out + 4 * 32
}

TEST(PtxPredefinedConstants, OtherUndeclaredNamesStayErrors) {
  FENCELINE_LOAD_PTX(text, "PredefinedConstants");
  std::string damaged = text;
  size_t at = damaged.find("WARP_SZ");
  ASSERT_NE(at, std::string::npos);
  damaged.replace(at, 7, "WARP_SIZE");
  try {
    ptx::parseModule(damaged, "damaged.ptx");
    ADD_FAILURE() << "no error";
  } catch (const ptx::ParseError& e) {
    EXPECT_EQ(e.message, "undefined symbol 'WARP_SIZE'");
  }
}
