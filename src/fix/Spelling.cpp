// Fence spellings per style and scope-widening replacements: see Spelling.h.
#include "fix/Spelling.h"

#include <cctype>
#include <cstring>
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

// ---- The file's own wrappers of one instruction -------------------------------------------

bool isWordCharacter(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// An asm template's instruction, compared loosely: braces, line breaks, tabs and the
// trailing ';' dropped, runs of spaces made one.
std::string normalizedInstruction(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == 'n' || text[i + 1] == 't')) {
      ++i;
      c = ' ';
    }
    if (c == '{' || c == '}' || c == '\n' || c == '\t' || c == ';') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The text of lines [1, beforeLine) with a brace depth per byte (comments and literals
// skipped: their bytes get depth -1).
struct ScannedText {
  std::string text;
  std::vector<int> depth;
};

ScannedText scanAbove(const std::vector<std::string>& lines, uint32_t beforeLine) {
  ScannedText out;
  for (uint32_t l = 0; l + 1 < beforeLine && l < lines.size(); ++l) out.text += lines[l] + "\n";
  const std::string& t = out.text;
  out.depth.assign(t.size(), -1);
  int depth = 0;
  for (size_t i = 0; i < t.size();) {
    if (t.compare(i, 2, "//") == 0) {
      i = std::min(t.find('\n', i), t.size());
      continue;
    }
    if (t.compare(i, 2, "/*") == 0) {
      size_t end = t.find("*/", i + 2);
      i = end == std::string::npos ? t.size() : end + 2;
      continue;
    }
    if (t[i] == '"' || t[i] == '\'') {
      const char quote = t[i];
      size_t j = i + 1;
      while (j < t.size() && t[j] != quote && t[j] != '\n') j += t[j] == '\\' ? 2 : 1;
      for (size_t k = i; k <= j && k < t.size(); ++k) out.depth[k] = depth;  // literals keep their depth
      i = j + 1;
      continue;
    }
    if (t[i] == '}') --depth;
    out.depth[i] = depth;
    if (t[i] == '{') ++depth;
    ++i;
  }
  return out;
}

// The call of a function the file defines at file scope above `beforeLine` whose body is
// exactly one asm statement of `instruction` (`void fence_barrier_init() { asm volatile(
// "fence.mbarrier_init.release.cluster;" ::: "memory"); }`), or of a `template <int N>`
// function whose asm names N as an "n" operand (`tma_store_wait<N>()` for wait_group.read N).
std::optional<std::string> wrapperCall(const std::vector<std::string>& lines, uint32_t beforeLine,
                                       const std::string& instruction, int count) {
  if (instruction.empty()) return std::nullopt;
  const ScannedText scanned = scanAbove(lines, beforeLine);
  const std::string& t = scanned.text;
  const std::string wanted = normalizedInstruction(instruction);
  for (size_t at = t.find("asm"); at != std::string::npos; at = t.find("asm", at + 3)) {
    if (scanned.depth[at] != 1 || (at > 0 && isWordCharacter(t[at - 1])) || isWordCharacter(t[at + 3])) continue;
    // The body's '{' with nothing but blanks before the asm.
    size_t open = at;
    while (open > 0 && std::isspace(static_cast<unsigned char>(t[open - 1]))) --open;
    if (open == 0 || t[open - 1] != '{' || scanned.depth[open - 1] != 0) continue;
    --open;
    // asm [volatile|__volatile__] ( "..." "..." operands ) ; }
    size_t i = at + 3;
    auto skipBlanks = [&] { while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i; };
    skipBlanks();
    for (const char* word : {"volatile", "__volatile__"})
      if (t.compare(i, std::strlen(word), word) == 0 && !isWordCharacter(t[i + std::strlen(word)])) i += std::strlen(word);
    skipBlanks();
    if (i >= t.size() || t[i] != '(') continue;
    ++i;
    std::string templ;
    for (skipBlanks(); i < t.size() && t[i] == '"'; skipBlanks()) {
      size_t j = i + 1;
      while (j < t.size() && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
      templ += t.substr(i + 1, j - i - 1);
      i = j + 1;
    }
    size_t close = i;
    for (int parens = 1; close < t.size() && parens > 0; ++close) {
      if (t[close] == '(') ++parens;
      if (t[close] == ')') --parens;
    }
    if (close >= t.size()) continue;
    const std::string operands = t.substr(i, close - 1 - i);
    i = close;
    skipBlanks();
    if (i >= t.size() || t[i] != ';') continue;
    ++i;
    skipBlanks();
    if (i >= t.size() || t[i] != '}' || scanned.depth[i] != 0) continue;
    // The header: from the end of the previous declaration to the body's '{'.
    size_t start = open;
    while (start > 0 && !((t[start - 1] == ';' || t[start - 1] == '}') && scanned.depth[start - 1] == 0)) --start;
    std::string header = t.substr(start, open - start);
    static const std::regex function(R"((?:^|\s)(\w+)\s*\(\s*(?:void)?\s*\)\s*$)");
    static const std::regex templateInt(R"(^\s*template\s*<\s*(?:int|unsigned|uint32_t|size_t)\s+(\w+)\s*>)");
    std::smatch name, parameter;
    if (!std::regex_search(header, name, function) || header.find("::") != std::string::npos) continue;
    const bool isTemplate = std::regex_search(header, parameter, templateInt);
    if (!isTemplate && header.find("template") != std::string::npos) continue;
    std::string instructionText = normalizedInstruction(templ);
    if (isTemplate) {
      // "...%0..." :: "n"(N): the template parameter is the instruction's immediate.
      static const std::regex immediate(R"(^\s*:\s*:\s*"n"\s*\(\s*(\w+)\s*\))");
      std::smatch operand;
      if (count < 0 || !std::regex_search(operands, operand, immediate) || operand[1].str() != parameter[1].str())
        continue;
      const size_t percent = instructionText.find("%0");
      if (percent == std::string::npos) continue;
      instructionText.replace(percent, 2, std::to_string(count));
    } else if (templ.find('%') != std::string::npos) {
      continue;
    }
    if (instructionText != wanted) continue;
    return isTemplate ? fmt::format("{}<{}>();", name[1].str(), count) : name[1].str() + "();";
  }
  return std::nullopt;
}

bool mentionsPtx(const std::vector<std::string>& lines) { return mentions(lines, {"cuda::ptx::", "<cuda/ptx>"}); }

// The style's statement for one instruction of a request, without the file's wrappers.
std::string styleStatement(report::FenceToInsert fence, const report::FixRequest& request, int count, SyncStyle style,
                           const std::vector<std::string>& lines) {
  using report::FenceToInsert;
  const bool cutlass = style == SyncStyle::Cutlass;
  const bool ptx = style == SyncStyle::Libcuxx && mentionsPtx(lines);
  switch (fence) {
    case FenceToInsert::ProxyAsyncGlobal:
      if (ptx) return "cuda::ptx::fence_proxy_async(cuda::ptx::space_global);";
      break;
    case FenceToInsert::MbarrierInitFence:
      if (cutlass) return "cutlass::arch::fence_barrier_init();";
      if (ptx) return "cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);";
      break;
    case FenceToInsert::WarpSync: return "__syncwarp();";
    case FenceToInsert::CtaSync: return "__syncthreads();";
    case FenceToInsert::NamedBarrier:
      if (cutlass) return fmt::format("cutlass::arch::NamedBarrier::sync({}, {});", request.count, request.barrierId);
      break;
    case FenceToInsert::BulkWaitRead:
      if (cutlass) return count < 0 ? "cute::tma_store_arrive();" : fmt::format("cute::tma_store_wait<{}>();", count);
      [[fallthrough]];
    case FenceToInsert::BulkWait:
      if (ptx && count < 0) return "cuda::ptx::cp_async_bulk_commit_group();";
      if (ptx)
        return fmt::format("cuda::ptx::cp_async_bulk_wait_group{}(cuda::ptx::n32_t<{}>());",
                           fence == FenceToInsert::BulkWaitRead ? "_read" : "", count);
      break;
    case FenceToInsert::Tcgen05WaitLoad:
      if (cutlass) return "cutlass::arch::fence_view_async_tmem_load();";
      if (ptx) return "cuda::ptx::tcgen05_wait_ld();";
      break;
    case FenceToInsert::Tcgen05WaitStore:
      if (cutlass) return "cutlass::arch::fence_view_async_tmem_store();";
      if (ptx) return "cuda::ptx::tcgen05_wait_st();";
      break;
    case FenceToInsert::Tcgen05FenceBefore:
      if (ptx) return "cuda::ptx::tcgen05_fence_before_thread_sync();";
      break;
    case FenceToInsert::Tcgen05FenceAfter:
      if (ptx) return "cuda::ptx::tcgen05_fence_after_thread_sync();";
      break;
    default: break;
  }
  return "";
}

// The PTX of one instruction of a request; count < 0 for a bulk wait: its commit.
std::string instructionText(report::FenceToInsert fence, const report::FixRequest& request, int count) {
  using report::FenceToInsert;
  switch (fence) {
    case FenceToInsert::ProxyAsyncShared: return "fence.proxy.async.shared::cta";
    case FenceToInsert::AcquireRelease: return "fence.acq_rel." + request.scope;
    case FenceToInsert::ProxyAsyncGlobal: return "fence.proxy.async.global";
    case FenceToInsert::MbarrierInitFence: return "fence.mbarrier_init.release.cluster";
    case FenceToInsert::WarpSync: return "bar.warp.sync -1";
    case FenceToInsert::CtaSync: return "bar.sync 0";
    case FenceToInsert::NamedBarrier: return fmt::format("bar.sync {}, {}", request.barrierId, request.count);
    case FenceToInsert::BulkWaitRead:
    case FenceToInsert::BulkWait:
      if (count < 0) return "cp.async.bulk.commit_group";
      return fmt::format("cp.async.bulk.wait_group{} {}", fence == FenceToInsert::BulkWaitRead ? ".read" : "", count);
    case FenceToInsert::Tcgen05WaitLoad: return "tcgen05.wait::ld.sync.aligned";
    case FenceToInsert::Tcgen05WaitStore: return "tcgen05.wait::st.sync.aligned";
    case FenceToInsert::Tcgen05FenceBefore: return "tcgen05.fence::before_thread_sync";
    case FenceToInsert::Tcgen05FenceAfter: return "tcgen05.fence::after_thread_sync";
    case FenceToInsert::None: break;
  }
  return "";
}

}  // namespace

std::string instructionOf(const report::FixRequest& request) {
  std::string text;
  if (request.commitFirst &&
      (request.fence == report::FenceToInsert::BulkWait || request.fence == report::FenceToInsert::BulkWaitRead))
    text = instructionText(request.fence, request, -1) + "; ";
  text += instructionText(request.fence, request, request.count);
  if (request.barrierAfter &&
      (request.fence == report::FenceToInsert::BulkWait || request.fence == report::FenceToInsert::BulkWaitRead))
    text += "; " + instructionText(report::FenceToInsert::CtaSync, request, 0);
  return text;
}

std::vector<std::string> spellStatements(const report::FixRequest& request, SyncStyle style,
                                         const SpellingSettings& settings, const std::vector<std::string>& lines,
                                         uint32_t beforeLine) {
  using report::FenceToInsert;
  if (request.fence == FenceToInsert::ProxyAsyncShared || request.fence == FenceToInsert::AcquireRelease)
    return {spellFence(request.fence, request.scope, style, settings, lines)};
  if (auto named = namedStyle(settings.style)) style = *named;
  std::vector<int> counts = {request.count};
  if (request.commitFirst && (request.fence == FenceToInsert::BulkWait || request.fence == FenceToInsert::BulkWaitRead))
    counts.insert(counts.begin(), -1);
  std::vector<std::string> statements;
  for (int count : counts) {
    const std::string instruction = instructionText(request.fence, request, count);
    std::string statement;
    if (request.fence != FenceToInsert::WarpSync && request.fence != FenceToInsert::CtaSync)
      if (auto wrapper = wrapperCall(lines, beforeLine, instruction, count < 0 ? -1 : count)) statement = *wrapper;
    if (statement.empty()) statement = styleStatement(request.fence, request, count, style, lines);
    if (statement.empty()) statement = asmStatement(instruction);
    statements.push_back(statement);
  }
  if (request.barrierAfter && (request.fence == FenceToInsert::BulkWait || request.fence == FenceToInsert::BulkWaitRead)) {
    report::FixRequest barrier = request;
    barrier.fence = FenceToInsert::CtaSync;
    barrier.commitFirst = barrier.barrierAfter = false;
    for (std::string& statement : spellStatements(barrier, style, settings, lines, beforeLine))
      statements.push_back(std::move(statement));
  }
  return statements;
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
