// Whether a kernel runs in clusters of more than one CTA, as far as its PTX
// shows (issue 34, shape N: cuDNN's attention kernels send their
// cluster-launch-control requests with `.multicast::cluster::all`, yet read no
// cluster rank, map no address and have no cluster barrier; each CTA arms its
// own barrier for one 16-byte response and issues its own request, which is
// consistent only with a cluster of one CTA).
//
// A multicast to the cluster, or an arrive through a `.shared::cluster`
// address, reaches another CTA only when the cluster has more than one. The
// launch decides that, outside the PTX; the kernel shows it when it declares
// the cluster (`.reqnctapercluster` of more than one CTA, `.maxclusterrank`
// above one, `.explicitcluster`) or uses the cluster's structure: a read of
// its position in the cluster (`%cluster_ctarank`, `%cluster_nctarank`,
// `%cluster_ctaid`, `%cluster_nctaid`), a `mapa` (an address in some CTA's shared
// memory), a cluster barrier (`barrier.cluster`), or a tcgen05 operation of a
// CTA pair (`.cta_group::2`). A kernel that declares one CTA per cluster
// (`.reqnctapercluster 1, 1, 1`) has none to reach.
#pragma once

#include <cstdint>

#include "model/Program.h"

namespace fenceline::model {

// Several: the kernel shows a cluster of more than one CTA; One: it
// declares one CTA per cluster; Unknown: it shows neither.
enum class ClusterCtas { Several, One, Unknown };

ClusterCtas clusterCtas(const FunctionModel& fn);

// The CTAs per cluster the kernel declares (the product of
// `.reqnctapercluster`), or 0 when the size is left to the launch.
int64_t declaredClusterSize(const FunctionModel& fn);

}  // namespace fenceline::model
