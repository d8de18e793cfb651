// Calls a function over its inlining limits may keep as calls (issues 34 and
// 35). Inlining copies a callee's body once per call, so a kernel that calls
// a large helper a hundred times (a row comparator that CUB's scan, reduce
// and select kernels call at every step of a tile) grows past
// --max-instructions or the input's inlining budget, and was not checked at
// all. Most such helpers hold nothing the checks read: no fence, atomic,
// barrier, mbarrier, async copy, strong or volatile access, warp collective;
// they read memory and write only their own frame. Such a callee is
// "synchronization-free": left as a call, it orders nothing and publishes
// nothing, so the caller's protocols and proxies are what they were; only its
// reads are not followed (an acquire-missing data read inside it, a generic
// read of shared memory that a later async copy overwrites).
//
// The inliner keeps these calls only for a function whose model would be over
// a limit (inlinedSize against --max-instructions and the budget left): every
// function that fits is inlined whole, as before. The callee itself is
// checked on its own, as every `.func` with a body is.
#pragma once

#include <cstddef>
#include <unordered_set>
#include <unordered_map>
#include <vector>

#include "ptx/Ast.h"

namespace fenceline::model::detail {

// The function a `call` names, when it has a body (null for a call through a
// register or to a declaration): how the inliner resolves calls.
const ptx::Function* calledFunction(const ptx::Module& module, const ptx::Instruction& call);

class CallSummaries {
 public:
  CallSummaries(const ptx::Module& module, int maxCallDepth) : module_(module), maxCallDepth_(maxCallDepth) {}

  // Instructions of `root`'s model once its calls are inlined as the inliner
  // does (recursive calls left out), saturating at kMany; with `summarized`,
  // synchronization-free callees count as their call alone.
  static constexpr size_t kMany = size_t{1} << 62;
  size_t inlinedSize(const ptx::Function& root, bool summarized);

  // Instructions of `root` and of every function it may inline, each counted
  // once however often it is called: the code its model is built from (the
  // function's own inlining budget, model/Limits.h).
  size_t callTreeSize(const ptx::Function& root);

  // `f`, and every function it calls, has no operation a check reads and
  // writes no memory but its own local and parameter space (see above).
  bool synchronizationFree(const ptx::Function& f);

 private:
  size_t sizeOf(const ptx::Function& f, bool summarized, int depth);

  const ptx::Module& module_;
  int maxCallDepth_;
  std::unordered_map<const ptx::Function*, size_t> sizes_[2];  // [summarized]
  std::unordered_map<const ptx::Function*, bool> free_;
  std::vector<const ptx::Function*> stack_;  // the calls being followed (recursion is not inlined)
};

}  // namespace fenceline::model::detail
