// Gradient clipping by global norm, as torch.nn.utils.clip_grad_norm_: when the norm of all
// gradients together exceeds `optimizer.gradient_clip_norm`, every gradient is scaled by
// clip / (norm + 1e-6). The norm may span several virtual IPUs: each sums its own squares and the
// caller adds the sums in a fixed order, so the result does not depend on thread timing. Each
// tensor's sum is taken grain by grain (tensor_sums.hpp), so a tensor whose gradient is split over
// replicas (sharded optimizer state) sums to the same bits.
#pragma once

#include <vector>

#include "core/optim/optimizer.hpp"

namespace iputrain::optim {

//! Sum of the squared gradients (as stored, before any grad_scale) of `params`, in double: each
//! slot's tensor_squares(), added in the slots' order.
double sum_of_squares(const std::vector<ParamSlot>& params);

//! The factor to multiply gradients by so their global norm sqrt(`global_norm_squared`) does not
//! exceed `optimizer.gradient_clip_norm`; 1 when clipping is off or the norm is within bounds.
float clip_scale(double global_norm_squared, const Settings& run);

}  // namespace iputrain::optim
