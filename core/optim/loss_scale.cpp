#include "core/optim/loss_scale.hpp"

namespace iputrain::optim {

LossScaleState initial_loss_scale(const OptimizerSettings& o) {
  LossScaleState s;
  s.scale = o.loss_scaling;
  return s;
}

void advance_loss_scale(LossScaleState& s, bool overflow, const OptimizerSettings& o) {
  if (overflow) {
    s.scale *= o.loss_scaling_backoff_factor;
    s.good_steps = 0;
    ++s.skipped;
    return;
  }
  if (++s.good_steps >= o.loss_scaling_growth_interval) {
    s.scale *= o.loss_scaling_growth_factor;
    s.good_steps = 0;
  }
}

}  // namespace iputrain::optim
