// The model's own collectives (ops with OpDef::traffic: cross_replica_sum, all_gather,
// reduce_scatter, all_to_all): their groups checked against the plan's replicas, and their traffic
// priced over the system as built (planner/topology.hpp), on the IPU that runs them, every time
// they run (each micro-batch, in the forward and the backward pass alike).
#pragma once

#include <optional>

#include "planner/plan.hpp"
#include "planner/topology.hpp"

namespace iputrain::planner {

//! Refuses a collective whose group does not divide `replicas`, at the node's place in the model.
void check_collectives(const ir::Graph& g, int32_t replicas);

//! What a collective node exchanges, over the topology of its group's copies of the IPU.
struct NodeCollective {
  Topology topology;  //!< replicas 0 .. G - 1 (every group alike); its levels are all 1 for G = 1
  Collective kind = Collective::AllReduce;
  double bytes = 0;
};

//! Node `id`'s exchange (OpDef::traffic), or nullopt for a node that exchanges nothing.
std::optional<NodeCollective> node_collective(const Plan& plan, ir::ValueId id);

//! Bytes one replica sends in the collectives among `nodes` (one run of a task), as the rings of
//! topology.hpp send them: (G - 1) / G of the tensor, twice for an all-reduce.
double model_collective_bytes(const Plan& plan, const std::vector<ir::ValueId>& nodes);

}  // namespace iputrain::planner
