#include "core/optim/loss_scale.hpp"

namespace iputrain::optim {

LossScaleState initial_loss_scale(const Settings& run) {
  LossScaleState s;
  s.scale = run.plain.optimizer_loss_scaling;
  return s;
}

void advance_loss_scale(LossScaleState& s, bool overflow, const Settings& run) {
  if (overflow) {
    s.scale *= run.plain.optimizer_loss_scaling_backoff_factor;
    s.good_steps = 0;
    ++s.skipped;
    return;
  }
  if (++s.good_steps >= run.plain.optimizer_loss_scaling_growth_interval) {
    s.scale *= run.plain.optimizer_loss_scaling_growth_factor;
    s.good_steps = 0;
  }
}

}  // namespace iputrain::optim
