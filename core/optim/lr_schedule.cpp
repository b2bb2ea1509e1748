#include "core/optim/lr_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace iputrain::optim {

namespace {
namespace impl_lr_schedule {

double decayed(const OptimizerSettings& o, double s) {
  const double lr0 = o.learning_rate;
  // The rules guarantee decay_steps >= 1 for every schedule that reads it.
  const auto steps = static_cast<double>(std::max<int64_t>(1, o.decay_steps));
  if (o.schedule == LrSchedule::Step) {
    return lr0 * std::pow(o.decay_rate, std::floor(s / steps));
  }
  if (o.schedule == LrSchedule::Exponential) {
    return lr0 * std::pow(o.decay_rate, s / steps);
  }
  if (o.schedule == LrSchedule::Cosine) {
    const double progress = std::min(s, steps) / steps;
    return o.min_learning_rate + (lr0 - o.min_learning_rate) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
  }
  return lr0;
}

}  // namespace impl_lr_schedule
}  // namespace

float learning_rate_at(const OptimizerSettings& o, int64_t step) {
  const int64_t done = std::max<int64_t>(0, step - 1);
  if (done < o.warmup_steps) {
    return static_cast<float>(o.learning_rate * static_cast<double>(done + 1) / static_cast<double>(o.warmup_steps));
  }
  return static_cast<float>(impl_lr_schedule::decayed(o, static_cast<double>(done - o.warmup_steps)));
}

}  // namespace iputrain::optim
