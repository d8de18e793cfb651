// The one demangler (see Demangle.h). Demangling is a pure function of the
// name and costs tens of thousands of instructions for a CUTLASS template;
// the checks ask it for the same few names once per frame of every candidate
// site (a FlashInfer kernel asked 40,000 times), so the answers are memoized
// per thread.
#include "model/Demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <unordered_map>

namespace fenceline::model {
namespace {

// Bounds the memo on inputs of many distinct names (the 100 MB module has
// 10,000 kernels): it starts over once this full.
constexpr size_t kMaxMemoized = 16384;

std::string demangleOnce(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !text) return mangled;
  return std::string(text.get());
}

}  // namespace

std::string demangle(std::string_view name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return std::string(name);
  thread_local std::unordered_map<std::string, std::string> memo;
  std::string mangled(name);
  if (auto found = memo.find(mangled); found != memo.end()) return found->second;
  if (memo.size() >= kMaxMemoized) memo.clear();
  std::string text = demangleOnce(mangled);
  memo.emplace(std::move(mangled), text);
  return text;
}

}  // namespace fenceline::model
