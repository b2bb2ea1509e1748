#include "engine/cluster/spread_tuner.hpp"

namespace iputrain::engine {

int64_t SpreadTuner::next() {
  const int64_t e = started_++;
  switch (mode_) {
    case SpreadKernels::Always:
      running_ = 0;
      break;
    case SpreadKernels::LargeOnly:
      running_ = 1;
      break;
    case SpreadKernels::Auto:
      // Execution 0 warms up (first touch of the arenas) and is not compared; 1 and 2 time each
      // limit; then the kept one runs, and the other once every kRecheckEvery executions.
      if (e <= 2) {
        running_ = e == 2 ? 1 : 0;
      } else {
        running_ = (e - 2) % kRecheckEvery == 0 ? 1 - current_ : current_;
      }
      break;
  }
  ++executions_[static_cast<size_t>(running_)];
  return kLimits[static_cast<size_t>(running_)];
}

void SpreadTuner::measured(double seconds, int64_t updates) {
  if (mode_ != SpreadKernels::Auto || started_ == 1 || updates <= 0) {
    return;
  }
  per_update_[static_cast<size_t>(running_)] = seconds / static_cast<double>(updates);
  const double kept = per_update_[static_cast<size_t>(current_)];
  const double other = per_update_[static_cast<size_t>(1 - current_)];
  if (running_ != current_ && kept > 0 && other < kept * kMargin) {
    current_ = running_;  // the trial (execution 2 the first) beat the kept limit's latest time
  }
}

}  // namespace iputrain::engine
