// See Scopes.h.
#include "ptx/Scopes.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace fenceline::ptx {

void BlockScopes::push() { scopes_.emplace_back(); }

std::optional<BlockScopes::LabelUse> BlockScopes::pop() {
  Scope scope = std::move(scopes_.back());
  scopes_.pop_back();
  std::vector<LabelUse> unresolved;
  for (const auto& use : scope.pendingUses) {
    auto it = scope.labels.find(use.name);
    if (it == scope.labels.end()) {
      unresolved.push_back(use);
      continue;
    }
    if (use.instruction < 0) {
      function_.branchTargets[-1 - use.instruction].labels[use.operand] = it->second;
      continue;
    }
    Operand& op = function_.instructions[use.instruction].operands[use.operand];
    op.label = it->second;
  }
  if (scopes_.empty()) {
    if (!unresolved.empty()) return unresolved.front();
    return std::nullopt;
  }
  auto& parent = scopes_.back().pendingUses;
  parent.insert(parent.end(), unresolved.begin(), unresolved.end());
  return std::nullopt;
}

RegisterId BlockScopes::lookupIn(const Scope& scope, std::string_view name) const {
  if (scope.registerClasses & nameClass(name)) {
    auto it = scope.registers.find(name);
    if (it != scope.registers.end()) return it->second;
  }
  if (scope.ranges.empty()) return -1;
  // Split "%r123" into "%r" and 123 (no leading zeros, so "%r01" is not %r1),
  // reading the digits once, from the end.
  size_t digits = name.size();
  int64_t number = 0, scale = 1;
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') {
    if (name.size() - digits == 9) return -1;  // a tenth digit
    number += (name[digits - 1] - '0') * scale;
    scale *= 10;
    --digits;
  }
  if (digits == name.size()) return -1;
  if (name[digits] == '0' && name.size() - digits > 1) return -1;
  std::string_view prefix = name.substr(0, digits);
  const uint64_t packed = pack(prefix);
  for (const auto& range : scope.ranges) {
    if (range.prefix.size() != prefix.size() || range.packed != packed) continue;
    if ((packed != 0 || range.prefix == prefix) && number < range.count)
      return range.first + static_cast<RegisterId>(number);
  }
  return -1;
}

RegisterId BlockScopes::lookupRegister(std::string_view name) const {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    RegisterId id = lookupIn(*scope, name);
    if (id >= 0) return id;
  }
  return -1;
}

BlockScopes::Problem BlockScopes::declareRegister(std::string_view name, std::string_view type) {
  Scope& scope = scopes_.back();
  if (lookupIn(scope, name) >= 0) return "register '" + std::string(name) + "' is already declared in this block";
  if (Problem problem = tooManyRegisters(1); !problem.empty()) return problem;
  RegisterId id = static_cast<RegisterId>(function_.registers.size());
  function_.registers.push_back(Register{function_.intern(name), function_.intern(type)});
  scope.registers.emplace(name, id);
  scope.registerClasses |= nameClass(name);
  return {};
}

BlockScopes::Problem BlockScopes::declareRegisterRange(std::string_view prefix, int64_t count,
                                                       std::string_view type) {
  Scope& scope = scopes_.back();
  for (const auto& range : scope.ranges)
    if (range.prefix == prefix) return "registers '" + std::string(prefix) + "<N>' are already declared in this block";
  if (count < 0 || count > kMaxRegisters - static_cast<int64_t>(function_.registers.size()))
    return "register range is too large";
  if (Problem problem = tooManyRegisters(count); !problem.empty()) return problem;
  RegisterId first = static_cast<RegisterId>(function_.registers.size());
  // Room for this range, growing geometrically (a body declares several
  // ranges; an exact reserve per range would move all earlier ones), with
  // the slack bounded so that one huge range is still allocated exactly.
  auto& registers = function_.registers;
  const size_t needed = registers.size() + static_cast<size_t>(count);
  if (needed > registers.capacity())
    registers.reserve(std::max(needed, std::min(2 * registers.capacity(), needed + kMaxRangeSlack)));
  // Names built in place: `%r<5000>` is thousands of these per function.
  // The prefix stays in a buffer; each name is the buffer with its digits.
  std::string buffer(prefix);
  buffer.resize(prefix.size() + 24);
  char* digits = buffer.data() + prefix.size();
  const std::string_view interned = function_.intern(type);
  for (int64_t i = 0; i < count; ++i) {
    auto [end, error] = std::to_chars(digits, digits + 24, i);
    Register& added = registers.emplace_back();
    added.name = function_.store(std::string_view(buffer.data(), static_cast<size_t>(end - buffer.data())));
    added.type = interned;
  }
  scope.ranges.push_back(Range{prefix, count, first, pack(prefix)});
  return {};
}

BlockScopes::Problem BlockScopes::tooManyRegisters(int64_t count) const {
  auto declared = static_cast<int64_t>(function_.registers.size());
  if (declared + count > kMaxRegisters) return "too many registers in one function (the limit is " + std::to_string(kMaxRegisters) + ")";
  if (declared + count > registersLeft_)
    return "too many registers in this file: its functions may declare " + std::to_string(kModuleRegisterBase) +
           " plus one per two bytes of PTX together";
  return {};
}

BlockScopes::Problem BlockScopes::defineLabel(std::string_view name, TextPos pos) {
  Scope& scope = scopes_.back();
  if (scope.labels.count(name)) return "label '" + std::string(name) + "' is already defined in this block";
  LabelId id = static_cast<LabelId>(function_.labels.size());
  function_.labels.push_back(Label{std::string(name), static_cast<int32_t>(function_.instructions.size()), pos});
  scope.labels.emplace(name, id);
  return {};
}

void BlockScopes::useLabel(const LabelUse& use) { scopes_.back().pendingUses.push_back(use); }

}  // namespace fenceline::ptx
