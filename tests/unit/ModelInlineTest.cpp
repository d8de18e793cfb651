// Inlining of noinline helpers (Inputs/model_inline.cu): bodies, parameter
// and return-value binding, source chains through the call.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/Paths.h"
#include "model/Memory.h"
#include "model/Values.h"
#include "model/CallSummaries.h"

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

TEST(ModelInline, HelperBodyIsInlinedIntoTheKernel) {
  FENCELINE_LOAD_PROGRAM(p, "model_inline");
  const auto& fn = p.fn("split_hazard");
  EXPECT_FALSE(fn.hasUnanalyzedCalls);
  InstId call = findOne(fn, "call");
  InstId store = findOne(fn, "st.shared");
  InstId barrier = findOne(fn, "bar.sync");
  InstId load = findOne(fn, "ld.shared");
  EXPECT_EQ(fn.instructions[store].callSite, call);
  EXPECT_EQ(fn.instructions[store].inlineDepth, 1);
  EXPECT_EQ(fn.instructions[call].effect.kind, EffectKind::None);
  // One flat path: helper store, then the barrier, then the load.
  EXPECT_TRUE(reachable(fn, store, barrier));
  EXPECT_TRUE(fn.dominatesInst(store, load));
  EXPECT_TRUE(everyPathPasses(fn, store, load, [&](InstId i) { return i == barrier; }));
  // The inlined `ret` continues after the call instead of leaving the kernel.
  for (InstId r : find(fn, "ret"))
    if (fn.instructions[r].callSite >= 0) {
      EXPECT_EQ(fn.instructions[r].effect.kind, EffectKind::None);
      EXPECT_FALSE(fn.blocks[fn.blockOf[r]].successors.empty());
    }
}

TEST(ModelInline, ParametersBindToTheCallersValues) {
  FENCELINE_LOAD_PROGRAM(p, "model_inline");
  const auto& fn = p.fn("split_hazard");
  InstId store = findOne(fn, "st.shared");
  // fill(buf, 3) stores 3 to buf + 4 * tid through the caller's pointer.
  AbstractValue address = fn.values->operandValue(store, 0);
  EXPECT_EQ(address.baseKind, AbstractValue::BaseKind::SharedSymbol) << address.toString();
  EXPECT_EQ(address.base, "_ZZ12split_hazardE3buf");
  EXPECT_EQ(address.toString(), "shared:_ZZ12split_hazardE3buf + 4*%tid.x");
  AbstractValue stored = fn.values->operandValue(store, 1);
  EXPECT_TRUE(stored.isConstant());
  EXPECT_EQ(stored.constant, 3);
  EXPECT_EQ(fn.values->addressSpace(store, 0), Space::SharedCta);
  // The kernel's own load reads the same array.
  InstId load = findOne(fn, "ld.shared");
  EXPECT_TRUE(sameObject(fn, store, 0, load, 1));
  EXPECT_TRUE(mayAlias(fn, store, 0, load, 1));
}

TEST(ModelInline, ReturnValueBindsToTheCallee) {
  FENCELINE_LOAD_PROGRAM(p, "model_inline");
  const auto& fn = p.fn("returns_value");
  InstId retLoad = -1;
  for (InstId i : find(fn, "ld.param"))
    if (fn.instructions[i].callSite < 0 && fn.instructions[i].boundStore >= 0) retLoad = i;
  ASSERT_GE(retLoad, 0) << dump(fn);
  const Inst& bound = fn.instructions[fn.instructions[retLoad].boundStore];
  EXPECT_EQ(dotted(bound).substr(0, 8), "st.param");
  EXPECT_GE(bound.callSite, 0);
}

TEST(ModelInline, TwoLevelsOfCalls) {
  FENCELINE_LOAD_PROGRAM(p, "model_inline");
  const auto& fn = p.fn("two_levels");
  InstId store = findOne(fn, "st.shared");
  EXPECT_EQ(fn.instructions[store].inlineDepth, 2);
  InstId inner = fn.instructions[store].callSite;
  ASSERT_GE(inner, 0);
  EXPECT_GE(fn.instructions[inner].callSite, 0);
  AbstractValue address = fn.values->operandValue(store, 0);
  EXPECT_EQ(address.base, "_ZZ10two_levelsE3buf") << address.toString();
  // Source chain: the helper's line, then each call site, demangled.
  auto chain = fn.sourceChain(store);
  ASSERT_GE(chain.size(), 3u);
  EXPECT_EQ(chain[0].function, "fill(int*, int)");
  EXPECT_EQ(chain.back().function, "two_levels");
  bool sawOuter = false;
  for (const auto& f : chain) sawOuter |= f.function == "outer_helper(int*, int)";
  EXPECT_TRUE(sawOuter);
  for (const auto& f : chain) EXPECT_NE(f.file.find("model_inline.cu"), std::string::npos);
}

TEST(ModelInline, FunctionsAlsoHaveTheirOwnModels) {
  FENCELINE_LOAD_PROGRAM(p, "model_inline");
  const auto& helper = p.fn("_Z4fillPii");
  EXPECT_FALSE(helper.function->isEntry);
  InstId store = findOne(helper, "st.shared");
  EXPECT_EQ(helper.instructions[store].callSite, -1);
  // Without a caller the pointer is an unknown parameter, but still shared.
  EXPECT_EQ(helper.values->addressSpace(store, 0), Space::SharedCta);
}

TEST(ModelInline, RecursionStaysACall) {
  FENCELINE_LOAD_PROGRAM(p, "model_inline");
  const auto& fn = p.fn("recursive");
  EXPECT_TRUE(fn.hasUnanalyzedCalls);
  // The kernel's call to depth() is inlined once; its recursive calls are not.
  auto calls = find(fn, "call");
  ASSERT_GE(calls.size(), 3u) << dump(fn);
  EXPECT_EQ(fn.instructions[calls[0]].callSite, -1);
  EXPECT_EQ(fn.instructions[calls[0]].effect.kind, EffectKind::None);
  for (size_t k = 1; k < calls.size(); ++k) {
    EXPECT_EQ(fn.instructions[calls[k]].effect.kind, EffectKind::Call);
    EXPECT_EQ(fn.instructions[calls[k]].callSite, calls[0]);
  }
  // The .func on its own: every recursive call stays a call.
  const auto& self = p.fn("_Z5depthPKii");
  EXPECT_TRUE(self.hasUnanalyzedCalls);
  for (InstId c : find(self, "call")) EXPECT_EQ(self.instructions[c].effect.kind, EffectKind::Call);
}

TEST(ModelInline, IndirectCallStaysACall) {
  FENCELINE_LOAD_PROGRAM(p, "model_inline");
  const auto& fn = p.fn("indirect");
  EXPECT_TRUE(fn.hasUnanalyzedCalls);
  InstId call = findOne(fn, "call");
  EXPECT_EQ(fn.instructions[call].effect.kind, EffectKind::Call);
  EXPECT_EQ(fn.blockOf[call], fn.blockOf[call + 1]);  // execution continues after it
  // Kernels without calls or with inlinable ones are fully analyzed.
  EXPECT_FALSE(p.fn("two_levels").hasUnanalyzedCalls);
}

// Calls kept as calls in a function over its limits (model/CallSummaries.h):
// which callees are synchronization-free, and that only their calls stay.
namespace {
const char* kSummaryPtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.func (.param .b32 r) reader(.param .b64 p)
{
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  ld.param.b64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  ld.global.u32 %r2, [%rd1+4];
  add.s32 %r1, %r1, %r2;
  st.param.b32 [r], %r1;
  ret;
}
.func (.param .b32 r) framed(.param .b64 p)
{
  .local .align 4 .b8 __local_depot1[8];
  .reg .b32 %r<3>; .reg .b64 %rd<3>;
  mov.u64 %rd2, __local_depot1;
  ld.param.b64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  st.local.u32 [%rd2], %r1;
  {
  .param .b64 a;
  .param .b32 b;
  st.param.b64 [a], %rd1;
  call.uni (b), reader, (a);
  ld.param.b32 %r2, [b];
  }
  st.param.b32 [r], %r2;
  ret;
}
.func fenced(.param .b64 p)
{
  .reg .b32 %r<2>; .reg .b64 %rd<2>;
  ld.param.b64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  membar.gl;
  ret;
}
.func writer(.param .b64 p)
{
  .reg .b32 %r<2>; .reg .b64 %rd<2>;
  ld.param.b64 %rd1, [p];
  st.global.u32 [%rd1], 1;
  ret;
}
.func polls(.param .b64 p)
{
  .reg .b32 %r<2>; .reg .b64 %rd<2>;
  ld.param.b64 %rd1, [p];
  ld.volatile.global.u32 %r1, [%rd1];
  ret;
}
.func calls_fenced(.param .b64 p)
{
  .reg .b64 %rd<2>;
  ld.param.b64 %rd1, [p];
  {
  .param .b64 a;
  st.param.b64 [a], %rd1;
  call.uni fenced, (a);
  }
  ret;
}
.func recursive(.param .b64 p)
{
  .reg .b64 %rd<2>;
  ld.param.b64 %rd1, [p];
  {
  .param .b64 a;
  st.param.b64 [a], %rd1;
  call.uni recursive, (a);
  }
  ret;
}
.visible .entry caller(.param .u64 out)
{
  .reg .b32 %r<5>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  {
  .param .b64 a;
  .param .b32 b;
  st.param.b64 [a], %rd1;
  call.uni (b), framed, (a);
  ld.param.b32 %r1, [b];
  }
  {
  .param .b64 a;
  .param .b32 b;
  st.param.b64 [a], %rd1;
  call.uni (b), framed, (a);
  ld.param.b32 %r2, [b];
  }
  {
  .param .b64 a;
  st.param.b64 [a], %rd1;
  call.uni fenced, (a);
  }
  add.s32 %r3, %r1, %r2;
  st.volatile.global.u32 [%rd1], %r3;
  ret;
}
)";
}  // namespace

TEST(ModelInline, SynchronizationFreeCallees) {
  ptx::Module module = ptx::parseModule(kSummaryPtx, "summaries.ptx");
  detail::CallSummaries summaries(module, 16);
  auto freeOf = [&](const char* name) { return summaries.synchronizationFree(*module.function(name)); };
  EXPECT_TRUE(freeOf("reader"));        // weak loads, its return value
  EXPECT_TRUE(freeOf("framed"));        // its own frame, and a call to reader
  EXPECT_FALSE(freeOf("fenced"));       // a fence
  EXPECT_FALSE(freeOf("writer"));       // a global store
  EXPECT_FALSE(freeOf("polls"));        // a volatile load
  EXPECT_FALSE(freeOf("calls_fenced"));  // through its callee
  EXPECT_FALSE(freeOf("recursive"));
  auto size = [&](const char* name) { return module.function(name)->instructions.size(); };
  const ptx::Function& caller = *module.function("caller");
  // framed (with reader) twice and fenced once; kept as calls, framed adds nothing.
  EXPECT_EQ(summaries.inlinedSize(caller, false), size("caller") + 2 * (size("framed") + size("reader")) + size("fenced"));
  EXPECT_EQ(summaries.inlinedSize(caller, true), size("caller") + size("fenced"));
}

TEST(ModelInline, OverTheLimitSynchronizationFreeCallsStayCalls) {
  ptx::Module module = ptx::parseModule(kSummaryPtx, "summaries.ptx");
  // Whole, `caller` fits the default limits: every call is inlined.
  Program whole = buildProgram(module);
  for (const auto& fn : whole.functions) EXPECT_EQ(fn.summarizedCalls, 0u) << fn.function->name;
  // Over --max-instructions whole (46): framed's calls stay calls, fenced is inlined (16).
  Limits limits;
  limits.maxInstructions = 40;
  Program small = buildProgram(module, limits);
  const FunctionModel* fn = nullptr;
  for (const auto& f : small.functions)
    if (f.function->name == "caller") fn = &f;
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->summarizedCalls, 2u);
  EXPECT_EQ(fn->inlinedWhole, 46u);
  EXPECT_EQ(fn->instructions.size(), 16u);
  EXPECT_FALSE(fn->hasUnanalyzedCalls);
  std::vector<InstId> calls = find(*fn, "call");
  ASSERT_EQ(calls.size(), 3u) << dump(*fn);
  EXPECT_TRUE(fn->instructions[calls[0]].summarizedCall);
  EXPECT_TRUE(fn->instructions[calls[1]].summarizedCall);
  EXPECT_FALSE(fn->instructions[calls[2]].summarizedCall);
  // Kept calls have no memory effect (not an opaque call, not a barrier).
  EXPECT_EQ(fn->instructions[calls[0]].effect.kind, EffectKind::None);
  InstId fence = findOne(*fn, "membar");
  EXPECT_EQ(fn->instructions[fence].callSite, calls[2]);
  EXPECT_EQ(find(*fn, "ld.global").size(), 1u);  // fenced's; framed's and reader's are not in the model
}
