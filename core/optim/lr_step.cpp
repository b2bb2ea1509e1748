// The step schedule (torch's StepLR): lr0 * decay_rate ^ floor(s / decay_steps).
#include <algorithm>
#include <cmath>

#include "core/optim/lr_schedule.hpp"

namespace iputrain::optim {

const LrScheduleDef kStepSchedule{
    "step",
    "lr0 * decay_rate ^ floor(s / decay_steps)",
    {"decay_steps", "decay_rate"},
    "the number of updates per decay by `decay_rate`",
    [](const Settings& run, double s) {
      return run.plain.optimizer_learning_rate *
             std::pow(run.plain.optimizer_decay_rate,
                      std::floor(s / static_cast<double>(std::max<int64_t>(1, run.plain.optimizer_decay_steps))));
    }};

}  // namespace iputrain::optim
