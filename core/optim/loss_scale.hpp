// Loss scaling: the loss is multiplied by a scale before the backward pass so that small fp16
// gradients do not flush to zero, and the update divides the gradients by the same scale.
// Static scaling keeps `optimizer.loss_scaling`; dynamic scaling halves the scale and skips the
// update when a gradient overflows, and grows it after a run of clean updates.
#pragma once

#include <cstdint>

#include "iputrain/settings.hpp"

namespace iputrain::optim {

//! What loss scaling carries from one update to the next (and what a checkpoint must keep). Every
//! worker holds an identical copy: each takes the same decision from the same global overflow flag.
struct LossScaleState {
  double scale = 1.0;      //!< the current loss scale
  int64_t good_steps = 0;  //!< clean updates since the scale last changed
  int64_t skipped = 0;     //!< updates skipped because a gradient overflowed (for the report)
};

//! The state before the first update: `optimizer.loss_scaling` (the rules make it 65536 for
//! dynamic scaling when it is unset).
LossScaleState initial_loss_scale(const Settings& run);

//! Advances `s` after an update under dynamic scaling, as torch.cuda.amp.GradScaler.update():
//! an overflow multiplies the scale by `loss_scaling_backoff_factor`, counts a skipped update and
//! restarts the count of clean updates; the `loss_scaling_growth_interval`-th clean update in a
//! row multiplies it by `loss_scaling_growth_factor`. Called only under dynamic scaling
//! (`optimizer.loss_scaling_mode`); static scaling never changes `s`.
void advance_loss_scale(LossScaleState& s, bool overflow, const Settings& run);

}  // namespace iputrain::optim
