// Interleaved (1F1B): micro-batch m runs T[j] at timestep 2m + j, so each IPU alternates a forward
// and a backward and keeps fewer micro-batches than grouped; in inference, m + j.
#include <fmt/format.h>

#include <algorithm>

#include "core/pipeline_schedules/schedule_def.hpp"

namespace iputrain::pipeline_schedules {

namespace {
namespace impl_interleaved {

AccumulationRule accumulation(int64_t /*positions*/, int64_t ipus_per_replica, bool /*training*/) {
  const int64_t need = std::max<int64_t>(1, ipus_per_replica);
  return {need, need,
          fmt::format("interleaved with {} IPUs per replica needs a multiple of {}", ipus_per_replica, need)};
}

int64_t step(int64_t m, int64_t j, int64_t /*len*/, int64_t /*slices*/) { return 2 * m + j; }

// Inference has no backward to alternate with: the forwards run back to back, one timestep apart,
// as the IPUs' programs run them and the simulation costs them (every other slot idle was drawn).
int64_t forward_step(int64_t m, int64_t j, int64_t /*len*/, int64_t /*slices*/) { return m + j; }

Timeline timeline(const Pipeline& p, int64_t micro_batches, bool training, int64_t slices) {
  return place_stage_list(p, ScheduleKind::Interleaved, micro_batches, training, training ? step : forward_step,
                          slices);
}

int64_t in_flight(const Pipeline& p, int32_t position, int64_t micro_batches) {
  // A micro-batch starts every second timestep and stays 2P - 2i timesteps at position i.
  return std::min(micro_batches, static_cast<int64_t>(p.positions.size()) - position);
}

}  // namespace impl_interleaved
}  // namespace

const ScheduleDef kInterleavedSchedule{
    .kind = ScheduleKind::Interleaved,
    .name = "interleaved",
    .summary = "1F1B: each IPU alternates a forward and a backward",
    .splits_backward = false,
    .one_position_per_ipu = true,
    .recompute_then_backpropagate = true,
    .recompute_and_backpropagate_interleaved = false,
    .accumulation = impl_interleaved::accumulation,
    .accumulation_doc = "a multiple of the IPUs per replica",
    .timeline = impl_interleaved::timeline,
    .bubble = fill_drain_bubble,
    .in_flight = impl_interleaved::in_flight,
};

}  // namespace iputrain::pipeline_schedules
