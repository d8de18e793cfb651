// The names of evidence links and tiers (one table for JSON, SARIF and
// text), and how a diagnostic's tier follows from its links.
#include "report/Evidence.h"

#include <array>
#include <utility>

#include "report/Diagnostic.h"

namespace fenceline::report {

namespace {

constexpr std::array<std::pair<LinkKind, std::string_view>, 12> kLinkNames{{
    {LinkKind::Access, "access"},
    {LinkKind::AsyncOperation, "async-operation"},
    {LinkKind::HandOff, "hand-off"},
    {LinkKind::SameBytes, "same-bytes"},
    {LinkKind::DataWrite, "data-write"},
    {LinkKind::Signal, "signal"},
    {LinkKind::Poll, "poll"},
    {LinkKind::GuardedRead, "guarded-read"},
    {LinkKind::Partner, "partner"},
    {LinkKind::Ordering, "ordering"},
    {LinkKind::Barrier, "barrier"},
    {LinkKind::Use, "use"},
}};

}  // namespace

std::string_view toString(LinkKind kind) {
  for (const auto& [k, name] : kLinkNames)
    if (k == kind) return name;
  return "link";
}

std::string_view toString(Tier tier) { return tier == Tier::Strict ? "strict" : "default"; }

const EvidenceLink* Diagnostic::undecidedLink() const {
  for (const EvidenceLink& l : evidence)
    if (!l.decided) return &l;
  return nullptr;
}

Tier Diagnostic::tier() const { return disputed.empty() && !undecidedLink() ? Tier::Default : Tier::Strict; }

EvidenceLink link(const model::FunctionModel& fn, LinkKind kind, model::InstId inst, std::string how,
                  std::string detail, bool decided) {
  EvidenceLink l;
  l.kind = kind;
  l.decided = decided;
  l.how = std::move(how);
  l.detail = std::move(detail);
  if (inst >= 0) l.location = locationOf(fn, inst);
  return l;
}

EvidenceLink undecidedLink(const model::FunctionModel& fn, LinkKind kind, model::InstId inst, std::string how,
                           std::string detail) {
  return link(fn, kind, inst, std::move(how), std::move(detail), false);
}

}  // namespace fenceline::report
