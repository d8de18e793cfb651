#include "model/ClusterEvidence.h"

namespace fenceline::model {

namespace {

// The cluster the function's directives declare: One for
// `.reqnctapercluster 1, 1, 1`, Several for more CTAs, `.maxclusterrank`
// above one or `.explicitcluster`, Unknown when it declares none.
ClusterEvidence::Ctas declared(const ptx::Function* function) {
  if (!function) return ClusterEvidence::Ctas::Unknown;
  ClusterEvidence::Ctas found = ClusterEvidence::Ctas::Unknown;
  for (const auto& [directive, sizes] : function->performanceDirectives) {
    if (directive == ".reqnctapercluster" && !sizes.empty()) {
      int64_t ctas = 1;
      for (int64_t s : sizes) ctas *= std::max<int64_t>(s, 1);
      return ctas > 1 ? ClusterEvidence::Ctas::Several : ClusterEvidence::Ctas::One;  // exact: it decides
    }
    if ((directive == ".maxclusterrank" && !sizes.empty() && sizes[0] > 1) || directive == ".explicitcluster")
      found = ClusterEvidence::Ctas::Several;
  }
  return found;
}

bool isPositionInCluster(const ptx::Operand& op) {
  if (op.kind != ptx::Operand::Kind::Special) return false;
  return op.text.starts_with("%cluster_ctarank") || op.text.starts_with("%cluster_nctarank") ||
         op.text.starts_with("%cluster_ctaid") || op.text.starts_with("%cluster_nctaid");
}

// The instruction's own evidence of other CTAs in the cluster, or "".
std::string_view evidenceOf(const Inst& inst) {
  const std::string_view op = inst.opcode();
  if (op == "mapa") return "mapa";
  if (op == "barrier" && inst.hasModifier("cluster")) return "cluster-barrier";
  if (op.starts_with("tcgen05") && inst.hasModifier("cta_group::2")) return "cta-pair";
  for (const ptx::Operand& o : inst.operands)
    if (isPositionInCluster(o)) return "cluster-position";
  return {};
}

}  // namespace

ClusterEvidence clusterEvidence(const FunctionModel& fn) {
  ClusterEvidence e;
  e.ctas = declared(fn.function);
  if (e.ctas != ClusterEvidence::Ctas::Unknown) {
    e.what = "cluster-directive";
    return e;
  }
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    std::string_view what = evidenceOf(fn.instructions[i]);
    if (what.empty()) continue;
    e = {ClusterEvidence::Ctas::Several, i, std::string(what)};
    return e;
  }
  return e;
}

}  // namespace fenceline::model
