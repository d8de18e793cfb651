// Fence spellings per style and scope-widening replacements: see Spelling.h.
#include "fix/Spelling.h"

#include <regex>
#include <string_view>

#include <fmt/format.h>

namespace fenceline::fix {

namespace {

// Does code (not a // comment) on some line hold one of the markers?
bool mentions(const std::vector<std::string>& lines, const std::vector<std::string>& markers) {
  for (const auto& line : lines) {
    const std::string_view code = std::string_view(line).substr(0, line.find("//"));
    for (const auto& marker : markers)
      if (code.find(marker) != std::string::npos) return true;
  }
  return false;
}

// Evidence of each style, in the order it is tried.
struct StyleMarkers {
  SyncStyle style;
  std::vector<std::string> markers;
};

const std::vector<StyleMarkers>& styleMarkers() {
  static const std::vector<StyleMarkers> table = {
      {SyncStyle::Cutlass, {"cutlass::arch::", "#include <cutlass/", "#include \"cutlass/"}},
      {SyncStyle::Libcuxx, {"cuda::ptx::", "cuda::atomic", "cuda::std::atomic", "#include <cuda/"}},
      {SyncStyle::Intrinsics, {"__threadfence"}},
      {SyncStyle::InlineAsm, {"asm volatile", "asm(", "asm ("}},
  };
  return table;
}

std::string asmStatement(const std::string& instruction) {
  return fmt::format("asm volatile(\"{};\" ::: \"memory\");", instruction);
}

std::string proxyFence(SyncStyle style, const std::vector<std::string>& lines) {
  if (style == SyncStyle::Cutlass) return "cutlass::arch::fence_view_async_shared();";
  // cuda::ptx needs <cuda/ptx>: used only where the file already uses it.
  if (style == SyncStyle::Libcuxx && mentions(lines, {"cuda::ptx::", "<cuda/ptx>"}))
    return "cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);";
  return asmStatement("fence.proxy.async.shared::cta");
}

// libcu++'s name of a scope (cuda::thread_scope_*), and the intrinsic fence of a scope; empty: none.
std::string libcuxxScope(const std::string& scope) {
  if (scope == "cta") return "cuda::thread_scope_block";
  if (scope == "gpu") return "cuda::thread_scope_device";
  if (scope == "sys") return "cuda::thread_scope_system";
  return "";
}

std::string intrinsicFence(const std::string& scope) {
  if (scope == "cta") return "__threadfence_block();";
  if (scope == "gpu") return "__threadfence();";
  if (scope == "sys") return "__threadfence_system();";
  return "";
}

std::string acqRelFence(SyncStyle style, const std::string& scope, const std::vector<std::string>& lines) {
  // cuda::atomic_thread_fence needs <cuda/atomic>: used only where the file already uses it.
  if (style == SyncStyle::Libcuxx && !libcuxxScope(scope).empty() && mentions(lines, {"cuda::atomic", "<cuda/atomic>"}))
    return fmt::format("cuda::atomic_thread_fence(cuda::memory_order_acq_rel, {});", libcuxxScope(scope));
  if (style != SyncStyle::InlineAsm && !intrinsicFence(scope).empty()) return intrinsicFence(scope);
  return asmStatement("fence.acq_rel." + scope);
}

std::optional<SyncStyle> namedStyle(const std::optional<std::string>& name) {
  if (!name || *name == "auto") return std::nullopt;
  if (*name == "cutlass") return SyncStyle::Cutlass;
  if (*name == "libcu++") return SyncStyle::Libcuxx;
  if (*name == "intrinsics") return SyncStyle::Intrinsics;
  return SyncStyle::InlineAsm;
}

}  // namespace

SyncStyle detectStyle(std::string_view text) {
  // mentions() over the whole text at once: a hit counts unless a `//` comes
  // before it on its line (one search per marker, not one per line).
  auto mentionsInCode = [&](const std::vector<std::string>& markers) {
    for (const auto& marker : markers)
      for (size_t at = text.find(marker); at != std::string_view::npos; at = text.find(marker, at + 1)) {
        const size_t newline = text.rfind('\n', at);
        const size_t lineStart = newline == std::string_view::npos ? 0 : newline + 1;
        if (text.substr(lineStart, at - lineStart).find("//") == std::string_view::npos) return true;
      }
    return false;
  };
  for (const auto& entry : styleMarkers())
    if (mentionsInCode(entry.markers)) return entry.style;
  return SyncStyle::Intrinsics;
}

std::string spellFence(report::FenceToInsert fence, const std::string& scope, SyncStyle style,
                       const SpellingSettings& settings, const std::vector<std::string>& lines) {
  if (auto named = namedStyle(settings.style)) style = *named;
  if (fence == report::FenceToInsert::ProxyAsyncShared)
    return settings.proxyFence ? *settings.proxyFence : proxyFence(style, lines);
  if (settings.acqRelFence) {
    std::string text = *settings.acqRelFence;
    for (size_t at = text.find("{scope}"); at != std::string::npos; at = text.find("{scope}", at + scope.size()))
      text.replace(at, 7, scope);
    return text;
  }
  return acqRelFence(style, scope, lines);
}

namespace {

// One way of spelling a scope on a source line: a pattern with the scope's
// word in it, and the word of each scope.
struct ScopeSpelling {
  std::string pattern;  // regular expression; "{}" is the scope's word
  std::string cta, cluster, gpu, sys;

  const std::string& word(const std::string& scope) const {
    static const std::string none;
    return scope == "cta" ? cta : scope == "cluster" ? cluster : scope == "gpu" ? gpu : scope == "sys" ? sys : none;
  }
};

const std::vector<ScopeSpelling>& scopeSpellings() {
  static const std::vector<ScopeSpelling> table = {
      // PTX in inline asm: ld.acquire.cta, atom.release.gpu, fence.acq_rel.cta, red.relaxed...
      {R"(\.(?:acquire|release|acq_rel|relaxed|sc)\.({})\b)", "cta", "cluster", "gpu", "sys"},
      {R"(\bmembar\.({})\b)", "cta", "", "gl", "sys"},
      // libcu++ scopes and cuda::ptx scope tags.
      {R"(\bcuda::thread_scope_({})\b)", "block", "cluster", "device", "system"},
      {R"(\bcuda::ptx::scope_({})\b)", "cta", "cluster", "gpu", "sys"},
  };
  return table;
}

std::optional<ScopeReplacement> intrinsicWidening(const std::string& line, const std::string& from,
                                                  const std::string& to, int& matches) {
  // __threadfence_block() / __threadfence() / __threadfence_system(); atomicAdd_block / atomicAdd / atomicAdd_system.
  static const std::regex intrinsic(R"(\b(__threadfence|atomic(?:Add|Sub|Exch|Min|Max|Inc|Dec|CAS|And|Or|Xor))(_block|_system)?\s*\()");
  auto suffixOf = [](const std::string& scope) -> std::optional<std::string> {
    if (scope == "cta") return "_block";
    if (scope == "gpu") return "";
    if (scope == "sys") return "_system";
    return std::nullopt;
  };
  auto fromSuffix = suffixOf(from), toSuffix = suffixOf(to);
  if (!fromSuffix || !toSuffix) return std::nullopt;
  std::optional<ScopeReplacement> found;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), intrinsic); it != std::sregex_iterator(); ++it) {
    if ((*it)[2].str() != *fromSuffix) continue;
    ++matches;
    size_t nameEnd = it->position(1) + it->length(1);
    found = ScopeReplacement{nameEnd, static_cast<size_t>(it->length(2)), *toSuffix};
  }
  return found;
}

}  // namespace

std::optional<ScopeReplacement> widenScopeOnLine(const std::string& line, const std::string& from,
                                                 const std::string& to, std::string& why) {
  int matches = 0;
  std::optional<ScopeReplacement> found;
  for (const auto& spelling : scopeSpellings()) {
    const std::string& fromWord = spelling.word(from);
    const std::string& toWord = spelling.word(to);
    if (fromWord.empty() || toWord.empty()) continue;
    std::regex pattern(fmt::format(fmt::runtime(spelling.pattern), fromWord));
    for (auto it = std::sregex_iterator(line.begin(), line.end(), pattern); it != std::sregex_iterator(); ++it) {
      ++matches;
      found = ScopeReplacement{static_cast<size_t>(it->position(1)), static_cast<size_t>(it->length(1)), toWord};
    }
  }
  if (auto intrinsic = intrinsicWidening(line, from, to, matches)) found = intrinsic;
  // The remote mbarrier arrive without .release.cluster: the qualifier is added.
  static const std::regex remoteArrive(R"(\bmbarrier\.arrive(\.release\.cta)?(?=\.shared::cluster))");
  if (to == "cluster")
    for (auto it = std::sregex_iterator(line.begin(), line.end(), remoteArrive); it != std::sregex_iterator(); ++it) {
      ++matches;
      size_t end = it->position(0) + it->length(0);
      size_t begin = it->length(1) > 0 ? static_cast<size_t>(it->position(1)) : end;
      found = ScopeReplacement{begin, end - begin, ".release.cluster"};
    }
  if (matches == 1) return found;
  why = matches == 0 ? fmt::format("the {} scope is not spelled on this line (it is chosen where the operation is "
                                   "defined, or by a default)",
                                   from)
                     : fmt::format("the line spells a {} scope in {} places; which one is the operation's is not "
                                   "clear",
                                   from, matches);
  return std::nullopt;
}

}  // namespace fenceline::fix
