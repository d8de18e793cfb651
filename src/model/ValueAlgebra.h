// Constructors and operations on AbstractValue (AbstractValue.cpp), used by
// the value analysis. An operation that leaves the affine form returns an
// opaque term named `opaqueName`.
#pragma once

#include <string>

#include "model/Values.h"

namespace fenceline::model::values {

AbstractValue top();
AbstractValue constant(int64_t c);
AbstractValue term(std::string name, int64_t low = INT64_MIN, int64_t high = INT64_MAX);
AbstractValue object(AbstractValue::BaseKind kind, std::string name, Space space);
AbstractValue add(const AbstractValue& a, const AbstractValue& b, const std::string& opaqueName);
AbstractValue subtract(const AbstractValue& a, const AbstractValue& b, const std::string& opaqueName);
AbstractValue scale(const AbstractValue& a, int64_t k, const std::string& opaqueName);
// Same value: itself; same base: base + one term `joinName` (bounded when both are);
// bases of one pointer kind (parameters, loaded pointers, symbols) in one space: the
// choice of them (AbstractValue::alternatives, at most kMaxAlternatives) + that term;
// else top.
constexpr size_t kMaxAlternatives = 16;
AbstractValue join(const AbstractValue& a, const AbstractValue& b, const std::string& joinName);

}  // namespace fenceline::model::values
