#include "model/ClusterEvidence.h"

#include <algorithm>

namespace fenceline::model {

namespace {

// The cluster the function's directives declare: One for
// `.reqnctapercluster 1, 1, 1`, Several for more CTAs, `.maxclusterrank`
// above one or `.explicitcluster`, Unknown when it declares none.
ClusterCtas declared(const ptx::Function* function) {
  if (!function) return ClusterCtas::Unknown;
  ClusterCtas found = ClusterCtas::Unknown;
  for (const auto& [directive, sizes] : function->performanceDirectives) {
    if (directive == ".reqnctapercluster" && !sizes.empty()) {
      int64_t ctas = 1;
      for (int64_t s : sizes) ctas *= std::max<int64_t>(s, 1);
      return ctas > 1 ? ClusterCtas::Several : ClusterCtas::One;  // exact: it decides
    }
    if ((directive == ".maxclusterrank" && !sizes.empty() && sizes[0] > 1) || directive == ".explicitcluster")
      found = ClusterCtas::Several;
  }
  return found;
}

bool isPositionInCluster(const ptx::Operand& op) {
  if (op.kind != ptx::Operand::Kind::Special) return false;
  return op.text.starts_with("%cluster_ctarank") || op.text.starts_with("%cluster_nctarank") ||
         op.text.starts_with("%cluster_ctaid") || op.text.starts_with("%cluster_nctaid");
}

// The instruction uses the cluster's structure: another CTA's shared memory,
// the cluster barrier, a CTA pair, or the CTA's position in the cluster.
bool usesCluster(const Inst& inst) {
  const std::string_view op = inst.opcode();
  if (op == "mapa") return true;
  if (op == "barrier" && inst.hasModifier("cluster")) return true;
  if (op.starts_with("tcgen05") && inst.hasModifier("cta_group::2")) return true;
  return std::any_of(inst.operands.begin(), inst.operands.end(), isPositionInCluster);
}

}  // namespace

ClusterCtas clusterCtas(const FunctionModel& fn) {
  const ClusterCtas declaredCtas = declared(fn.function);
  if (declaredCtas != ClusterCtas::Unknown) return declaredCtas;
  for (const Inst& inst : fn.instructions)
    if (inst.block >= 0 && usesCluster(inst)) return ClusterCtas::Several;
  return ClusterCtas::Unknown;
}

int64_t declaredClusterSize(const FunctionModel& fn) {
  if (!fn.function) return 0;
  for (const auto& [name, values] : fn.function->performanceDirectives)
    if (name == ".reqnctapercluster") {
      int64_t size = 1;
      for (int64_t v : values) size *= v;
      return size;
    }
  return 0;
}

}  // namespace fenceline::model
