// The cross-replica reduction when the replicas live in several instances (mpirun -n P).
//
// Instance k holds replicas k L .. (k + 1) L - 1 (L = R / P) and reduces the elements its replicas
// would reduce in one process: [total k L / R, total (k + 1) L / R). Around the in-process
// reduction of ClusterShared::trees, the first replica of each instance
// - sends every other instance its replicas' partial sums (the trees' stacks: blocks and values)
//   for that instance's elements, and fills stand-in trees for the other instances' replicas with
//   theirs (send_stacks), so reduce_slice() sees all R trees and adds in the canonical order;
// - then sends its elements of the root to everyone and writes theirs into its own trees' roots
//   (share_roots).
// The transport moves bytes only; every addition is reduce_slice()'s, so the weights are the same
// bits as with one instance.
#pragma once

#include <cstdint>

#include "engine/cluster/worker.hpp"

namespace iputrain::engine {

//! This instance among the others: the link and which of the R replicas it holds.
struct InstanceSpan {
  InstanceLink& link;
  int32_t first_replica;
  int32_t local_replicas;
  int32_t replicas;
  //! Where instance k's elements of `total` begin (k = count: the end).
  int64_t begin(int64_t total, int32_t k) const { return total * k * local_replicas / replicas; }
};
inline InstanceSpan span_of(const ClusterShared& s) {
  return {*s.link, s.first_replica, s.local_replicas, s.replicas};
}

//! Creates the stand-ins for the other instances' replicas' trees (after publish_trees()).
void make_remote_trees(ClusterShared& s);
//! Before reducing `parts` (each list holds all R trees) over `channel`: the reduce-scatter of the
//! partial sums (see above).
void send_stacks(const InstanceSpan& s, int32_t channel, const ReduceParts& parts);
//! After: the all-gather of the roots.
void share_roots(const InstanceSpan& s, int32_t channel, const ReduceParts& parts);
//! True when `mine` is true on any instance: an exact OR, no floating-point reduction.
bool any_instance(InstanceLink& link, int32_t channel, bool mine);

}  // namespace iputrain::engine
