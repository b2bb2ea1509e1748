// Grouped: micro-batch m runs T[j] at timestep m + j, so once the pipeline is full every position
// works every timestep, a forward and a backward of different micro-batches together.
#include <fmt/format.h>

#include <algorithm>

#include "core/pipeline_schedules/schedule_def.hpp"

namespace iputrain::pipeline_schedules {

namespace {
namespace impl_grouped {

AccumulationRule accumulation(int64_t positions, int64_t /*ipus_per_replica*/, bool training) {
  const int64_t need = training ? 2 * positions : positions;
  return {need, need,
          fmt::format("grouped {} with {} stages needs a multiple of {}", training ? "training" : "inference",
                      positions, need)};
}

int64_t step(int64_t m, int64_t j, int64_t /*len*/, int64_t /*slices*/) { return m + j; }

Timeline timeline(const Pipeline& p, int64_t micro_batches, bool training, int64_t slices) {
  return place_stage_list(p, ScheduleKind::Grouped, micro_batches, training, step, slices);
}

int64_t in_flight(const Pipeline& p, int32_t position, int64_t micro_batches) {
  // A micro-batch stays from its forward at timestep m + i to its backward at m + 2P - 1 - i.
  return std::min(micro_batches, 2 * (static_cast<int64_t>(p.positions.size()) - position));
}

}  // namespace impl_grouped
}  // namespace

const ScheduleDef kGroupedSchedule{
    .kind = ScheduleKind::Grouped,
    .name = "grouped",
    .summary = "every position busy each timestep: a forward and a backward together",
    .splits_backward = false,
    .one_position_per_ipu = false,
    .accumulation = impl_grouped::accumulation,
    .accumulation_doc = "a multiple of 2 x stages (stages for inference)",
    .timeline = impl_grouped::timeline,
    .bubble = fill_drain_bubble,
    .in_flight = impl_grouped::in_flight,
};

}  // namespace iputrain::pipeline_schedules
