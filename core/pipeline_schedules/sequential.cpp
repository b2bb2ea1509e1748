// Sequential: one stage at a time, no overlap; micro-batch m runs T[j] at timestep m * len(T) + j.
// With batch serialization (`slices` > 1) each stage runs `slices` consecutive micro-batches back
// to back before the next stage starts.
#include "core/pipeline_schedules/schedule_def.hpp"

namespace iputrain::pipeline_schedules {

namespace {
namespace impl_sequential {

AccumulationRule accumulation(int64_t /*positions*/, int64_t /*ipus_per_replica*/, bool /*training*/) {
  return {1, 1, "sequential accepts any count"};
}

int64_t step(int64_t m, int64_t j, int64_t len, int64_t slices) {
  return slices > 1 ? (m / slices) * len * slices + j * slices + m % slices : m * len + j;
}

Timeline timeline(const Pipeline& p, int64_t micro_batches, bool training, int64_t slices) {
  return place_stage_list(p, ScheduleKind::Sequential, micro_batches, training, step, slices);
}

double bubble(const Pipeline& p, int64_t /*micro_batches*/, bool /*training*/) {
  return 1.0 - 1.0 / static_cast<double>(p.ipus_per_replica);
}

int64_t in_flight(const Pipeline& /*p*/, int32_t /*position*/, int64_t /*micro_batches*/) { return 1; }

}  // namespace impl_sequential
}  // namespace

const ScheduleDef kSequentialSchedule{
    .kind = ScheduleKind::Sequential,
    .name = "sequential",
    .summary = "one stage at a time, no overlap",
    .splits_backward = false,
    .one_position_per_ipu = false,
    .timesteps_in_turn = true,
    .unpipelined = true,
    .recompute_then_backpropagate = false,
    .recompute_and_backpropagate_interleaved = true,
    .accumulation = impl_sequential::accumulation,
    .accumulation_doc = "any count",
    .timeline = impl_sequential::timeline,
    .bubble = impl_sequential::bubble,
    .in_flight = impl_sequential::in_flight,
};

}  // namespace iputrain::pipeline_schedules
