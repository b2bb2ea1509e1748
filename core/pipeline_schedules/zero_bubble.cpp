// Zero bubble (ZB-H1 of Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024). Each backward is
// split in two: B, the part the previous stage waits for (the input gradients), and W, the
// parameter gradients, which nothing downstream waits for. W passes are deferred into what would be
// the pipeline's drain bubble, while every position keeps at most P micro-batches (P positions),
// the peak 1F1B has at its first stage.
//
// Position i of P runs split_backward_order with a warm-up of min(P - i, M) forwards: B, F pairs
// until it has run P forwards; one B; W, F, B triples while forwards remain; W, B pairs while
// backwards remain; the W passes left. Each task starts as soon as its position is free and its
// input is there (place_as_soon_as_possible). With F, B and W equally long and M >= P the idle
// share is (P - 1) / (3M + P - 1), a third of 1F1B's.
#include <fmt/format.h>

#include <algorithm>

#include "core/pipeline_schedules/schedule_def.hpp"

namespace iputrain::pipeline_schedules {

namespace {
namespace impl_zero_bubble {

AccumulationRule accumulation(int64_t positions, int64_t /*ipus_per_replica*/, bool training) {
  if (!training) {
    return {1, 1, "zero_bubble inference accepts any count"};
  }
  return {1, positions, fmt::format("zero_bubble training with {} stages needs at least {}", positions, positions)};
}

Timeline timeline(const Pipeline& p, int64_t micro_batches, bool training, int64_t /*slices*/) {
  const auto P = static_cast<int32_t>(p.positions.size());
  std::vector<std::vector<Task>> order;
  for (int32_t i = 0; i < P; ++i) {
    order.push_back(split_backward_order(i, std::min<int64_t>(P - i, micro_batches), micro_batches, training));
  }
  return place_as_soon_as_possible(p, ScheduleKind::ZeroBubble, micro_batches, order);
}

int64_t in_flight(const Pipeline& p, int32_t /*position*/, int64_t micro_batches) {
  return std::min<int64_t>(micro_batches, static_cast<int64_t>(p.positions.size()));
}

}  // namespace impl_zero_bubble
}  // namespace

const ScheduleDef kZeroBubbleSchedule{
    .kind = ScheduleKind::ZeroBubble,
    .name = "zero_bubble",
    .summary = "ZB-H1: backward split into input and weight gradients, weight gradients deferred into the bubble",
    .splits_backward = true,
    .one_position_per_ipu = true,
    .accumulation = impl_zero_bubble::accumulation,
    .accumulation_doc = "at least the stages when training",
    .timeline = impl_zero_bubble::timeline,
    .bubble = split_backward_bubble,
    .in_flight = impl_zero_bubble::in_flight,
};

}  // namespace iputrain::pipeline_schedules
