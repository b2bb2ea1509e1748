// The linear schedule: from lr0 straight down to the floor over decay_steps updates, then held there,
// min + (lr0 - min) * (1 - min(s, decay_steps) / decay_steps). The decay of BERT's pre-training
// (polynomial decay of power 1 to 0) and of Hugging Face's get_linear_schedule_with_warmup.
#include <algorithm>

#include "core/optim/lr_schedule.hpp"

namespace iputrain::optim {

const LrScheduleDef kLinearSchedule{
    "linear",
    "min + (lr0 - min) * (1 - min(s, decay_steps) / decay_steps)",
    {"decay_steps", "min_learning_rate"},
    "the number of updates the linear decay lasts",
    [](const Settings& run, double s) {
      const auto steps = static_cast<double>(std::max<int64_t>(1, run.plain.optimizer_decay_steps));
      return run.plain.optimizer_min_learning_rate +
             (run.plain.optimizer_learning_rate - run.plain.optimizer_min_learning_rate) *
                 (1.0 - std::min(s, steps) / steps);
    }};

}  // namespace iputrain::optim
