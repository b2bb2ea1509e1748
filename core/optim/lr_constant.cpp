// The constant schedule: lr0 throughout (after any warmup).
#include "core/optim/lr_schedule.hpp"

namespace iputrain::optim {

const LrScheduleDef kConstantSchedule{
    "constant", "lr0", {}, {}, [](const Settings& run, double) { return run.plain.optimizer_learning_rate; }};

}  // namespace iputrain::optim
