// The Adam step shared by adam (L2 folded into the gradient) and adamw (decay applied to the
// weights apart from the gradient).
#pragma once

#include <cstdint>

#include "core/optim/optimizer.hpp"

namespace iputrain::optim {

struct AdamHyper {
  float beta1, beta2, epsilon;
};

//! One Adam update of slot `p` (state: first moment m, second moment v), as torch.optim.Adam:
//!   g = grad_scale * grad + l2 * w;  m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
//!   w <- w - (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
void adam_step(const ParamSlot& p, const AdamHyper& h, int64_t step, float lr, float grad_scale, float l2);

}  // namespace iputrain::optim
