// The value analysis over real nvcc output (Inputs/model_values.cu): shared
// symbols with affine offsets, cvta, parameters, aliasing both ways.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/Memory.h"
#include "model/Values.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

namespace {

// The memory questions the value tests ask, through the memory analysis.
bool mayAlias(const fenceline::model::FunctionModel& fn, fenceline::model::InstId a, int oa,
              fenceline::model::InstId b, int ob) {
  return fn.memory->alias(a, oa, b, ob) != fenceline::model::AliasResult::No;
}
bool sameObject(const fenceline::model::FunctionModel& fn, fenceline::model::InstId a, int oa,
                fenceline::model::InstId b, int ob) {
  auto x = fn.memory->objectOf(a, oa), y = fn.memory->objectOf(b, ob);
  return x.known() && x == y;
}

}  // namespace

TEST(ModelValues, SharedSymbolsWithAffineOffsets) {
  FENCELINE_LOAD_PROGRAM(p, "model_values");
  const auto& fn = p.fn("shared_offsets");
  auto stores = find(fn, "st.shared");
  ASSERT_EQ(stores.size(), 3u) << dump(fn);
  const auto& v = *fn.values;
  std::vector<std::string> text;
  for (InstId s : stores) text.push_back(v.operandValue(s, 0).toString());
  std::sort(text.begin(), text.end());
  EXPECT_EQ(text[0], "shared:_ZZ14shared_offsetsE1a + 4*%tid.x");
  EXPECT_EQ(text[1], "shared:_ZZ14shared_offsetsE1a + 4*%tid.x + 256");
  EXPECT_EQ(text[2], "shared:_ZZ14shared_offsetsE1b + 4*%tid.x");
  for (InstId s : stores) EXPECT_EQ(v.addressSpace(s, 0), Space::SharedCta);
}

TEST(ModelValues, AliasingOfSharedAccesses) {
  FENCELINE_LOAD_PROGRAM(p, "model_values");
  const auto& fn = p.fn("shared_offsets");
  const auto& v = *fn.values;
  InstId toA = -1, toB = -1;
  for (InstId s : find(fn, "st.shared")) {
    auto val = v.operandValue(s, 0);
    if (val.base.ends_with("E1b")) toB = s;
    else if (val.constant == 0) toA = s;
  }
  ASSERT_GE(toA, 0);
  ASSERT_GE(toB, 0);
  // Different arrays never alias; the same array with thread-dependent offsets may.
  EXPECT_FALSE(mayAlias(fn, toA, 0, toB, 0));
  EXPECT_FALSE(sameObject(fn, toA, 0, toB, 0));
  for (InstId l : find(fn, "ld.shared")) {
    auto val = v.operandValue(l, 1);
    if (val.base.ends_with("E1a")) EXPECT_TRUE(mayAlias(fn, toA, 0, l, 1));
    if (val.base.ends_with("E1b")) {
      EXPECT_EQ(val.toString(), "shared:_ZZ14shared_offsetsE1b");
      EXPECT_TRUE(mayAlias(fn, toB, 0, l, 1));  // thread 0's store
    }
  }
  // Shared and global never alias.
  InstId global = findOne(fn, "st.global");
  EXPECT_FALSE(mayAlias(fn, toA, 0, global, 0));
}

TEST(ModelValues, GenericPointersThroughCvta) {
  FENCELINE_LOAD_PROGRAM(p, "model_values");
  const auto& fn = p.fn("generic_pointers");
  auto stores = find(fn, "st.u32");
  ASSERT_EQ(stores.size(), 2u) << dump(fn);
  const auto& v = *fn.values;
  // Plain generic stores inside the inlined helper: one reaches shared, one global.
  EXPECT_EQ(fn.instructions[stores[0]].effect.space, Space::Generic);
  EXPECT_EQ(v.addressSpace(stores[0], 0), Space::SharedCta) << v.operandValue(stores[0], 0).toString();
  EXPECT_EQ(v.addressSpace(stores[1], 0), Space::Global) << v.operandValue(stores[1], 0).toString();
  EXPECT_FALSE(mayAlias(fn, stores[0], 0, stores[1], 0));
}

TEST(ModelValues, ParamsSeenThroughCvta) {
  FENCELINE_LOAD_PROGRAM(p, "model_values");
  const auto& fn = p.fn("params");
  const auto& v = *fn.values;
  InstId data = findOne(fn, "st.global");
  InstId atom = findOne(fn, "atom");
  InstId relaxed = findOne(fn, "st.relaxed");
  auto flagAtom = v.operandValue(atom, 1);
  auto flagStore = v.operandValue(relaxed, 0);
  EXPECT_EQ(flagAtom.baseKind, AbstractValue::BaseKind::Param) << flagAtom.toString();
  EXPECT_EQ(flagAtom.base, "params_param_0");
  EXPECT_EQ(flagStore.base, "params_param_0") << flagStore.toString();
  // The raw generic param and its cvta.to.global are the same word.
  EXPECT_TRUE(sameObject(fn, atom, 1, relaxed, 0));
  EXPECT_TRUE(mayAlias(fn, atom, 1, relaxed, 0));
  EXPECT_EQ(v.addressSpace(relaxed, 0), Space::Global);
  // Two different params may still point to the same memory.
  EXPECT_FALSE(sameObject(fn, atom, 1, data, 0));
  EXPECT_TRUE(mayAlias(fn, atom, 1, data, 0));
}

TEST(ModelValues, BarrierWordsAndDataInOneDynamicArray) {
  FENCELINE_LOAD_PROGRAM(p, "model_values");
  const auto& fn = p.fn("extern_shared");
  const auto& v = *fn.values;
  InstId init = findOne(fn, "mbarrier.init");
  InstId arrive = findOne(fn, "mbarrier.arrive");
  InstId store = findOne(fn, "st.shared");
  auto bar = v.operandValue(init, 0);
  auto data = v.operandValue(store, 0);
  EXPECT_EQ(bar.baseKind, AbstractValue::BaseKind::SharedSymbol) << bar.toString();
  EXPECT_EQ(data.base, bar.base) << data.toString();
  ASSERT_TRUE(bar.offsetRange().has_value()) << bar.toString();
  EXPECT_EQ(bar.offsetRange()->first, 0);
  EXPECT_EQ(bar.offsetRange()->second, 24);
  EXPECT_TRUE(sameObject(fn, init, 0, store, 0));
  EXPECT_FALSE(mayAlias(fn, init, 0, store, 0)) << bar.toString() << " vs " << data.toString();
  EXPECT_TRUE(mayAlias(fn, init, 0, arrive, 1));
  EXPECT_EQ(fn.memory->accessSize(init, 0), 8);
  EXPECT_EQ(fn.memory->accessSize(store, 0), 4);
}

TEST(ModelValues, LoopCarriedPointer) {
  FENCELINE_LOAD_PROGRAM(p, "model_values");
  const auto& fn = p.fn("loop_pointer");
  InstId store = findOne(fn, "st.global");
  ASSERT_GE(fn.loopOf[fn.blockOf[store]], 0) << dump(fn);
  auto address = fn.values->operandValue(store, 0);
  EXPECT_EQ(address.baseKind, AbstractValue::BaseKind::Param) << address.toString();
  bool loopTerm = false;
  for (const auto& t : address.terms) loopTerm |= t.name.starts_with("loop:");
  EXPECT_TRUE(loopTerm) << address.toString();
}

TEST(ModelValues, ConstantsAndDefinitions) {
  FENCELINE_LOAD_PROGRAM(p, "model_values");
  const auto& fn = p.fn("shared_offsets");
  InstId global = findOne(fn, "st.global");
  const auto& addr = fn.instructions[global].operands[0];
  ASSERT_EQ(addr.base.kind, ptx::Operand::Kind::Register);
  InstId def = fn.values->definition(addr.base.reg, global);
  ASSERT_GE(def, 0);
  EXPECT_LT(def, global);
  EXPECT_EQ(fn.values->operandValue(global, 0).baseKind, AbstractValue::BaseKind::Param);
}

TEST(ModelValues, StructParamFields) {
  FENCELINE_LOAD_PROGRAM(p, "model_values");
  const auto& fn = p.fn("struct_params");
  const auto& v = *fn.values;
  InstId atom = findOne(fn, "atom");
  auto stores = find(fn, "st.global");
  ASSERT_EQ(stores.size(), 2u) << dump(fn);
  auto flag = v.operandValue(atom, 1);
  EXPECT_EQ(flag.baseKind, AbstractValue::BaseKind::Param) << flag.toString();
  InstId flagStore = -1, dataStore = -1;
  for (InstId s : stores) (sameObject(fn, s, 0, atom, 1) ? flagStore : dataStore) = s;
  ASSERT_GE(flagStore, 0);
  ASSERT_GE(dataStore, 0);
  EXPECT_EQ(v.operandValue(flagStore, 0).constant, flag.constant + 4);
  EXPECT_FALSE(mayAlias(fn, flagStore, 0, atom, 1));  // flag[1] vs flag[0]
  // Two pointers held in different fields of one struct are different objects
  // unless something says they alias (issue 11, "pointers loaded from memory").
  EXPECT_FALSE(mayAlias(fn, dataStore, 0, atom, 1));
}

TEST(ModelValues, MapaReachesSharedCluster) {
  FENCELINE_LOAD_PROGRAM(p, "model_values");
  const auto& fn = p.fn("remote_shared");
  const auto& v = *fn.values;
  InstId remote = findOne(fn, "st.shared::cluster");
  auto value = v.operandValue(remote, 0);
  EXPECT_EQ(value.space, Space::SharedCluster) << value.toString();
  EXPECT_EQ(value.baseKind, AbstractValue::BaseKind::SharedSymbol);
  EXPECT_EQ(v.addressSpace(remote, 0), Space::SharedCluster);
  InstId local = findOne(fn, "ld.shared");
  EXPECT_TRUE(sameObject(fn, remote, 0, local, 1));
  EXPECT_TRUE(mayAlias(fn, remote, 0, local, 1));
}
