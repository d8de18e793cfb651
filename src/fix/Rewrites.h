// The fix planner's rewrites beyond one inserted line (fix/Planner.h):
//
// * a scope widened through a helper: the operation's scope is spelled in a
//   helper other callers share (`ld_acquire_gpu(flag)`), so the call site
//   calls the helper's wider-scope twin (`ld_acquire_sys(flag)`): the one the
//   file already defines (the same body, the scope widened), or one added
//   right after the helper (its definition copied, the name's scope word and
//   the operation's scope widened);
// * a scope widened through a declaration: the operation is a member call of
//   a libcu++ atomic (`f.store(1, ...)`) whose scope is spelled where the
//   variable is declared (`cuda::atomic_ref<unsigned, cuda::thread_scope_block> f(*flag);`);
// * the phase-bit rewrite of a fixed-threshold counter barrier: every use of
//   the counter in the function keeps its arrival's old value and waits for
//   the counter's top bit to flip relative to it (block 0 adds
//   0x80000000 - (gridDim.x - 1), every other block 1), the barrier of
//   cooperative groups' grid sync; reusable on one counter without a reset.
//
// Each returns "" with `edits` filled, or the reason there is no edit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fix/Planner.h"
#include "fix/SourceLines.h"

namespace fenceline::fix {

// Shared by the planner's parts (Planner.cpp).
std::optional<std::string> machineGenerated(const std::string& file, const SourceLines& source);
std::string ownershipProblem(const std::string& file, const FixSettings& settings);
const std::string& canonicalPath(const std::string& path);
report::Edit makeEdit(const std::string& file, const SourceLines& source, size_t offset, size_t length,
                      std::string text);

// The lines [first, last] of the definition of the function `demangled` (a frame's function) that
// holds line `containing` of `source`; nullopt when it is not found.
std::optional<std::pair<uint32_t, uint32_t>> functionLines(const SourceLines& source, const std::string& demangled,
                                                           uint32_t containing);

// `helper` is the frame of the operation inside the helper (file canonical), `call` the frame
// that calls the helper.
std::string widenThroughHelper(const report::FixRequest& request, const model::SourceFrame& helper,
                               const model::SourceFrame& call, const SourceLines& helperSource, SourceCache& sources,
                               const FixSettings& settings, std::vector<report::Edit>& edits);

// `at`: the operation's statement [first, last] in `source`, at.line in it.
std::string widenThroughDeclaration(const report::FixRequest& request, const model::SourceFrame& at,
                                    uint32_t first, const SourceLines& source, std::vector<report::Edit>& edits);

std::string planPhaseBitBarrier(const report::FixRequest& request, SourceCache& sources, const FixSettings& settings,
                                std::vector<report::Edit>& edits);

}  // namespace fenceline::fix
