// The cosine schedule (torch's CosineAnnealingLR over its first half-period, then held at the floor):
// min + (lr0 - min) * (1 + cos(pi * min(s, decay_steps) / decay_steps)) / 2.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/optim/lr_schedule.hpp"

namespace iputrain::optim {

const LrScheduleDef kCosineSchedule{
    "cosine",
    "min + (lr0 - min) * (1 + cos(pi * min(s, decay_steps) / decay_steps)) / 2",
    {"decay_steps", "min_learning_rate"},
    "the number of updates the cosine decay lasts",
    [](const Settings& run, double s) {
      const auto steps = static_cast<double>(std::max<int64_t>(1, run.plain.optimizer_decay_steps));
      const double progress = std::min(s, steps) / steps;
      return run.plain.optimizer_min_learning_rate +
             (run.plain.optimizer_learning_rate - run.plain.optimizer_min_learning_rate) * 0.5 *
                 (1.0 + std::cos(std::numbers::pi * progress));
    }};

}  // namespace iputrain::optim
