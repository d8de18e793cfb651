// The comparison operators of `setp` (eq, ne, lt, le, gt, ge and the unsigned
// lo, ls, hi, hs) as the value analysis, the guarded ranges and the thread
// roles read them: which one an instruction uses, its negation, its mirror
// (operands swapped) and the signed one an unsigned one agrees with.
#pragma once

#include <string_view>
#include <utility>

#include "ptx/Ast.h"

namespace fenceline::model {

// The comparison of a setp: the first modifier that is one; empty when none is.
inline std::string_view comparisonOf(const ptx::Instruction& setp) {
  static constexpr std::string_view kComparisons[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
  for (const auto& m : setp.modifiers)
    for (auto c : kComparisons)
      if (m == c) return c;
  return {};
}

// !(a <cmp> b) is a <negated> b; empty for an unknown comparison.
inline std::string_view negatedComparison(std::string_view cmp) {
  static constexpr std::pair<std::string_view, std::string_view> kNegated[] = {
      {"eq", "ne"}, {"ne", "eq"}, {"lt", "ge"}, {"ge", "lt"}, {"le", "gt"}, {"gt", "le"},
      {"lo", "hs"}, {"hs", "lo"}, {"ls", "hi"}, {"hi", "ls"}};
  for (auto [a, b] : kNegated)
    if (cmp == a) return b;
  return {};
}

// a <cmp> b is b <swapped> a (eq and ne are their own mirrors).
inline std::string_view swappedComparison(std::string_view cmp) {
  static constexpr std::pair<std::string_view, std::string_view> kSwapped[] = {
      {"lt", "gt"}, {"gt", "lt"}, {"le", "ge"}, {"ge", "le"}, {"lo", "hi"}, {"hi", "lo"}, {"ls", "hs"}, {"hs", "ls"}};
  for (auto [a, b] : kSwapped)
    if (cmp == a) return b;
  return cmp;
}

// The signed comparison an unsigned one (lo, ls, hi, hs) agrees with on
// non-negative operands; any other comparison unchanged.
inline std::string_view signedComparison(std::string_view cmp) {
  static constexpr std::pair<std::string_view, std::string_view> kSigned[] = {
      {"lo", "lt"}, {"ls", "le"}, {"hi", "gt"}, {"hs", "ge"}};
  for (auto [a, b] : kSigned)
    if (cmp == a) return b;
  return cmp;
}

}  // namespace fenceline::model
