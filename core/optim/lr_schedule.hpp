// Learning-rate schedules: the rate of each weight update, from `optimizer.learning_rate`,
// `lr_schedule`, `warmup_steps`, `decay_steps`, `decay_rate` and `min_learning_rate`.
//
// With t = step - 1 updates already done and W = warmup_steps:
//   t < W        lr0 * (t + 1) / W                      (linear warmup, reaching lr0 at update W)
//   otherwise    the schedule at s = t - W (the decay starts where the warmup ends):
//     constant     lr0
//     step         lr0 * decay_rate ^ floor(s / decay_steps)                    (torch StepLR)
//     exponential  lr0 * decay_rate ^ (s / decay_steps)                (ExponentialLR when 1)
//     cosine       min + (lr0 - min) * (1 + cos(pi * min(s, decay_steps) / decay_steps)) / 2
//                  (torch CosineAnnealingLR over its first half-period, then held at min)
#pragma once

#include <cstdint>

#include "iputrain/settings.hpp"

namespace iputrain::optim {

//! The learning rate of weight update number `step` (1-based).
float learning_rate_at(const OptimizerSettings& o, int64_t step);

}  // namespace iputrain::optim
