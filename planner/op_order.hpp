// The order of the ops inside each task (ipu.scheduling.*): Poplar's schedulers choose the order
// of a program's ops, which sets how many values are alive at once. Here the training program's
// nodes are reordered inside each (stage, pass) group, dependencies kept; lowering, the buffer
// assignment and the engine all follow the program, so the planned and the measured activation
// memory move together and the trained values do not change (an op's result does not depend on
// when it runs).
//
// The algorithms, each deterministic (ties go to the order the model writes):
//   post_order     depth first from the group's results, each op's inputs in order;
//   clustering     the next op is one that reads the value made last, so a value's readers follow
//                  it and it dies young;
//   shortest_path  ops with the longest chain of dependent ops after them first (the critical
//                  path), the order that shortens a task most on parallel hardware;
//   look_ahead     greedy on live bytes: each ready op (at most maximum_scheduler_search_space_size
//                  of them) is tried with maximum_scheduler_lookahead_depth greedy steps after it,
//                  and the one whose horizon holds the fewest bytes at its peak runs;
//   choose_best    all of the above and the written order, per group: the lowest peak of live
//                  bytes wins (the default).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/ir/graph.hpp"
#include "iputrain/settings.hpp"

namespace iputrain::planner {

struct OpOrderSettings {
  SchedulerAlgorithm algorithm = SchedulerAlgorithm::ChooseBest;
  int64_t lookahead_depth = 5;
  int64_t search_space = 64;
  //! Working memory an op holds while it runs (matmul and convolution temporaries); none if empty.
  std::function<int64_t(ir::ValueId)> temporary_bytes;
};

//! `program` with the nodes of each (stage, phase) group reordered as `s` says; every node keeps
//! its group's positions in the program.
std::vector<ir::ValueId> order_ops(const ir::Graph& g, const std::vector<ir::ValueId>& program,
                                   const OpOrderSettings& s);

//! Peak bytes alive within one group's order: a value made in the group lives from its op to its
//! last reader in the group (to the end if something outside the group reads it).
int64_t group_peak_bytes(const ir::Graph& g, const std::vector<ir::ValueId>& order,
                         const std::vector<ir::ValueId>& program);

}  // namespace iputrain::planner
