// The exponential schedule: lr0 * decay_rate ^ (s / decay_steps) (torch's ExponentialLR when
// decay_steps is 1).
#include <algorithm>
#include <cmath>

#include "core/optim/lr_schedule.hpp"

namespace iputrain::optim {

const LrScheduleDef kExponentialSchedule{
    "exponential",
    "lr0 * decay_rate ^ (s / decay_steps)",
    {"decay_steps", "decay_rate"},
    "the number of updates per decay by `decay_rate`",
    [](const Settings& run, double s) {
      return run.plain.optimizer_learning_rate *
             std::pow(run.plain.optimizer_decay_rate,
                      s / static_cast<double>(std::max<int64_t>(1, run.plain.optimizer_decay_steps)));
    }};

}  // namespace iputrain::optim
