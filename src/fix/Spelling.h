// How a machine fix is spelled in the file it edits: the way that file
// already spells synchronization. A file that uses CUTLASS gets
// `cutlass::arch::fence_view_async_shared()`, one that uses libcu++'s
// cuda::ptx or cuda::atomic gets `cuda::ptx::fence_proxy_async(...)` or
// `cuda::atomic_thread_fence(...)`, one that uses the CUDA intrinsics gets
// `__threadfence()`, and one written in inline asm gets an asm statement
// like its own. The configuration file (`fix-spelling`, `fix-proxy-fence`,
// `fix-acq-rel-fence`) overrides the detection.
//
// Widening a scope replaces the scope's spelling on the operation's line:
// a PTX qualifier in inline asm (`.cta` -> `.gpu`), a libcu++ thread scope
// (`cuda::thread_scope_block`), a cuda::ptx scope tag, or an intrinsic's
// suffix (`__threadfence_block()`, `atomicAdd_block`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/Diagnostic.h"

namespace fenceline::fix {

enum class SyncStyle { InlineAsm, Intrinsics, Cutlass, Libcuxx };

// The configuration's choices; unset = detect from the file.
struct SpellingSettings {
  std::optional<std::string> style;           // "auto", "cutlass", "libcu++", "intrinsics", "asm"
  std::optional<std::string> proxyFence;      // the statement to insert for fence.proxy.async.shared::cta
  std::optional<std::string> acqRelFence;     // the statement for fence.acq_rel; "{scope}" is replaced
};

// The style the file's text uses (the first that appears: CUTLASS, libcu++, intrinsics, inline asm;
// none: intrinsics).
SyncStyle detectStyle(std::string_view text);

// The statement (without indentation or newline) that performs `fence` at `scope` ("cta", "cluster",
// "gpu", "sys") in `style`, with the settings' overrides.
std::string spellFence(report::FenceToInsert fence, const std::string& scope, SyncStyle style,
                       const SpellingSettings& settings, const std::vector<std::string>& lines);

// The statements (each without indentation or newline, in order) that perform a request's `fence`
// in `style`: a function of the file itself that wraps exactly that instruction in one asm
// statement, defined at file scope above line `beforeLine` (`fence_barrier_init()`,
// `tma_store_wait<0>()`), else the style's spelling (CUTLASS, cuda::ptx where the file uses it,
// else inline asm); __syncwarp() and __syncthreads() as they are. A bulk wait with commitFirst
// is two statements: the commit, then the wait; with barrierAfter, __syncthreads() follows.
std::vector<std::string> spellStatements(const report::FixRequest& request, SyncStyle style,
                                         const SpellingSettings& settings, const std::vector<std::string>& lines,
                                         uint32_t beforeLine);

// The PTX instruction (with its operands, without the `;`) that a fence of the request performs:
// what the wrapper search above looks for, and what docs and notes name.
std::string instructionOf(const report::FixRequest& request);

// A replacement of one scope spelling on a line.
struct ScopeReplacement {
  size_t column = 0;  // 0-based byte offset in the line
  size_t length = 0;
  std::string text;
};

// The one place on `line` that spells scope `from` for the operation, replaced by scope `to`; nullopt
// with `why` set when the line spells it nowhere or in more than one place.
std::optional<ScopeReplacement> widenScopeOnLine(const std::string& line, const std::string& from,
                                                 const std::string& to, std::string& why);

}  // namespace fenceline::fix
