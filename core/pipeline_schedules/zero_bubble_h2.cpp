// Zero bubble H2 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024): ZB-H1's split backward
// with a longer warm-up. Position i of P runs 2(P - i) - 1 forwards before its first B (ZB-H1:
// P - i), which is all the forwards it has time for while the first micro-batch goes to the last
// position and its input gradient comes back, then split_backward_order's B, F pairs, W, F, B
// triples and the W passes left, each task as soon as it can run.
//
// It holds more: up to 2P - 1 - i micro-batches at position i (ZB-H1: P everywhere), the price of
// keeping every position's work in one block. In the paper that block lets one step's start overlap
// the previous step's end, because the optimizer step is validated afterwards instead of waited for;
// here a weight update closes every accumulation cycle, so with F, B and W equally long the idle
// share is ZB-H1's, (P - 1) / (3M + P - 1). The timelines differ, and the cycle simulation, which
// times each task from its ops, says what the longer warm-up gains when the phases differ.
#include <fmt/format.h>

#include <algorithm>

#include "core/pipeline_schedules/schedule_def.hpp"

namespace iputrain::pipeline_schedules {

namespace {
namespace impl_zero_bubble_h2 {

AccumulationRule accumulation(int64_t positions, int64_t /*ipus_per_replica*/, bool training) {
  if (!training) {
    return {1, 1, "zero_bubble_h2 inference accepts any count"};
  }
  return {1, positions, fmt::format("zero_bubble_h2 training with {} stages needs at least {}", positions, positions)};
}

Timeline timeline(const Pipeline& p, int64_t micro_batches, bool training, int64_t /*slices*/) {
  const auto P = static_cast<int32_t>(p.positions.size());
  std::vector<std::vector<Task>> order;
  for (int32_t i = 0; i < P; ++i) {
    const int64_t warm = std::min<int64_t>(2 * (P - i) - 1, micro_batches);
    order.push_back(split_backward_order(i, warm, micro_batches, training));
  }
  return place_as_soon_as_possible(p, ScheduleKind::ZeroBubbleH2, micro_batches, order);
}

int64_t in_flight(const Pipeline& p, int32_t position, int64_t micro_batches) {
  return std::min<int64_t>(micro_batches, 2 * static_cast<int64_t>(p.positions.size()) - 1 - position);
}

}  // namespace impl_zero_bubble_h2
}  // namespace

const ScheduleDef kZeroBubbleH2Schedule{
    .kind = ScheduleKind::ZeroBubbleH2,
    .name = "zero_bubble_h2",
    .summary = "ZB-H2: zero_bubble with a warm-up of 2(P - i) - 1 forwards, holding up to 2P - 1 micro-batches",
    .splits_backward = true,
    .one_position_per_ipu = true,
    .accumulation = impl_zero_bubble_h2::accumulation,
    .accumulation_doc = "at least the stages when training",
    .timeline = impl_zero_bubble_h2::timeline,
    .bubble = split_backward_bubble,
    .in_flight = impl_zero_bubble_h2::in_flight,
};

}  // namespace iputrain::pipeline_schedules
