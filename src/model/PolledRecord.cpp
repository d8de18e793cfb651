// The record a wait polls its flag in (see PolledRecord.h).
#include "model/PolledRecord.h"

#include <algorithm>

#include "model/Values.h"

namespace fenceline::model {

namespace {

// The same pointer read from memory, at the same index terms: one record.
bool sameBase(const AbstractValue& a, const AbstractValue& b) {
  return a.known && b.known && a.baseKind == AbstractValue::BaseKind::Loaded && a.baseKind == b.baseKind &&
         a.base == b.base && a.alternatives == b.alternatives;
}

bool sameRecord(const AbstractValue& a, const AbstractValue& b) {
  auto sameTerm = [](const AbstractValue::Term& x, const AbstractValue::Term& y) {
    return x.name == y.name && x.coefficient == y.coefficient;
  };
  return sameBase(a, b) && std::ranges::equal(a.terms, b.terms, sameTerm);
}

}  // namespace

bool readsUnwrittenFieldOfPolledRecord(const ProtocolModel& ctx, InstId read, InstId poll) {
  const FunctionModel& fn = ctx.function();
  if (!fn.values) return false;
  const int ro = protocolAddress(fn, read), po = protocolAddress(fn, poll);
  if (ro < 0 || po < 0) return false;
  const AbstractValue &r = fn.values->keptOperandValue(read, ro), &p = fn.values->keptOperandValue(poll, po);
  if (!sameRecord(r, p) || ctx.callPassing(read) >= 0) return false;
  bool writesRecord = false;
  for (InstId w : ctx.globalWrites()) {
    const int wo = protocolAddress(fn, w);
    if (wo < 0) continue;
    const AbstractValue& v = fn.values->keptOperandValue(w, wo);
    if (!sameBase(v, r)) continue;
    if (ctx.alias(w, read) != Alias::No) return false;
    writesRecord = writesRecord || sameRecord(v, r);
  }
  return writesRecord;
}

}  // namespace fenceline::model
