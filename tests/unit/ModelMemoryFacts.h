// Assertions for the memory- and value-analysis unit tests: typed facts
// (ranges, byte ranges, alias results) that print what the analysis computed
// (values, locations, the function dump) when they fail.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "ModelInputs.h"
#include "model/Memory.h"
#include "model/Values.h"

namespace fenceline::testing {

inline const char* aliasName(model::AliasResult r) {
  switch (r) {
    case model::AliasResult::No: return "No";
    case model::AliasResult::May: return "May";
    case model::AliasResult::Must: return "Must";
  }
  return "?";
}

// "[lo, hi]" of a value's offset from its base, "unbounded", or "unknown".
inline std::string rangeText(const model::AbstractValue& v) {
  if (!v.known) return "unknown";
  auto r = v.offsetRange();
  if (!r) return "unbounded";
  return "[" + std::to_string(r->first) + ", " + std::to_string(r->second) + "]";
}

// The range of the term multiplied by `coefficient` (a stage index scaled by
// the stage size), "none" when there is no such term.
inline std::string termRange(const model::AbstractValue& v, int64_t coefficient) {
  for (const auto& t : v.terms)
    if (t.coefficient == coefficient)
      return t.bounded() ? "[" + std::to_string(t.low) + ", " + std::to_string(t.high) + "]" : "unbounded";
  return "none";
}

// The memory operand of an access (MemoryEffect::address).
inline int addressOf(const model::FunctionModel& fn, model::InstId i) { return fn.instructions[i].effect.address; }

// The location's object kind and byte range are exactly these.
inline ::testing::AssertionResult hasBytes(const model::MemoryLocation& loc, model::MemoryObject::Kind kind,
                                           int64_t begin, int64_t end) {
  if (loc.object.kind == kind && loc.bytes && loc.bytes->begin == begin && loc.bytes->end == end)
    return ::testing::AssertionSuccess();
  model::MemoryLocation want;
  want.object.kind = kind;
  want.bytes = model::ByteRange{begin, end};
  return ::testing::AssertionFailure() << "location " << loc.toString() << ", expected " << want.toString()
                                       << " (object names aside)";
}

// The location starts at `start` and ends within [minEnd, maxEnd]: for
// extents the analysis may over-approximate soundly (a matrix operand tile is
// bounded by its rows times the widest swizzle, not decoded from its strides).
inline ::testing::AssertionResult startsAtWithin(const model::MemoryLocation& loc, model::MemoryObject::Kind kind,
                                                 int64_t start, int64_t minEnd, int64_t maxEnd) {
  if (loc.object.kind == kind && loc.bytes && loc.bytes->begin == start && loc.bytes->end >= minEnd &&
      loc.bytes->end <= maxEnd)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "location " << loc.toString() << ", expected to start at " << start
                                       << " and end in [" << minEnd << ", " << maxEnd << "]";
}

// alias(a, b) of two memory operands (sizes as for MemoryAnalysis::alias:
// 0 = the access's own size, -1 = unknown).
inline ::testing::AssertionResult aliasIs(const model::FunctionModel& fn, model::AliasResult expected, model::InstId a,
                                          int oa, int64_t sa, model::InstId b, int ob, int64_t sb) {
  const auto& m = *fn.memory;
  const model::AliasResult got = m.alias(a, oa, sa, b, ob, sb);
  const model::AliasResult mirrored = m.alias(b, ob, sb, a, oa, sa);
  if (got == expected && mirrored == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "alias(" << a << " " << dotted(fn.instructions[a]) << ", " << b << " " << dotted(fn.instructions[b])
         << ") = " << aliasName(got) << " (mirrored " << aliasName(mirrored) << "), expected " << aliasName(expected)
         << "\n  a: " << m.location(a, oa, sa).toString() << "  value " << fn.values->operandValue(a, oa).toString()
         << "\n  b: " << m.location(b, ob, sb).toString() << "  value " << fn.values->operandValue(b, ob).toString();
}

inline ::testing::AssertionResult aliasIs(const model::FunctionModel& fn, model::AliasResult expected,
                                          const model::MemoryLocation& a, const model::MemoryLocation& b) {
  const model::AliasResult got = fn.memory->alias(a, b), mirrored = fn.memory->alias(b, a);
  if (got == expected && mirrored == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "alias(" << a.toString() << ", " << b.toString() << ") = " << aliasName(got)
                                       << " (mirrored " << aliasName(mirrored) << "), expected "
                                       << aliasName(expected);
}

// The value of operand `k` of `at`, for failure messages.
inline std::string valueText(const model::FunctionModel& fn, model::InstId at, int k) {
  return std::to_string(at) + " " + dotted(fn.instructions[at]) + " operand " + std::to_string(k) + " = " +
         fn.values->operandValue(at, k).toString();
}

}  // namespace fenceline::testing

// A fact the analysis gets wrong today: the test states it as it should be
// and skips (listed in the test's report) while the model lacks it, so that
// the test asserts it once the model is fixed.
#define FENCELINE_MODEL_GAP_IF(condition, what) \
  if (condition) GTEST_SKIP() << "model gap: " << what
