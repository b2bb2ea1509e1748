// Moving statistics: non-trainable parameters that follow a statistic of the forward pass, such
// as a batch norm's moving mean and variance (`moving_average(x, state)`, core/ops/moving_average.cpp).
//
// The update rule keeps the determinism contract (planner/device_program.hpp): every plan gives
// the state the same bits as the one-IPU run with the same global batch.
// - The statistic of global micro-batch g = r * A + m of an update (replica r, its micro-batch m)
//   is leaf g of a canonical tree (engine/cluster/grad_tree.hpp), the order gradients are summed
//   in. It is always the canonical order, whatever `pipeline.gradient_accumulation_order` says:
//   the tree costs statistic_buffers() copies of a small vector, and it makes the sum the same
//   for every split of the N = R x A micro-batches over replicas and accumulation.
// - The IPU that holds the state (the one whose stage reads it) pushes each leaf right after the
//   forward task that computes it; at the weight update the replicas' trees are reduced as
//   gradients are, and that IPU sets, in f32,
//     state = state * momentum + (sum / N) * (1 - momentum).
//   So the state moves once per weight update, towards the mean of the update's micro-batch
//   statistics (for a batch norm: the mean of the micro-batches' means and biased variances).
// - An update that dynamic loss scaling skips leaves the state alone too.
// The sums are counted with the weights by the memory model (statistic_sum_bytes()).
#pragma once

#include <cstdint>
#include <vector>

#include "core/ir/graph.hpp"

namespace iputrain::planner {

struct Plan;

//! One state and the statistic it follows.
struct MovingStatistic {
  ir::ValueId state = ir::kNoValue;  //!< the non-trainable Param
  ir::ValueId statistic =
      ir::kNoValue;  //!< the moving_average node: its output is the statistic while training
  double momentum = 0.99;
};

//! The moving_average nodes of `program`, in graph order. Throws Error(Plan) for a state that is
//! not a non-trainable parameter or that follows two statistics.
std::vector<MovingStatistic> moving_statistics(const ir::Graph& g, const std::vector<ir::ValueId>& program);

//! Partial-sum buffers each moving statistic keeps on one replica: the canonical tree's most
//! partial sums at once, at least 1; 0 when not training.
int32_t statistic_buffers(const Plan& plan);

//! Bytes of the partial sums the state `param` keeps besides its value (f32), 0 when it follows
//! no statistic. The memory model and the engine both count them with the weights.
int64_t statistic_sum_bytes(const Plan& plan, ir::ValueId param);

}  // namespace iputrain::planner
