// The hyper-parameters several optimizers read, declared once so that their shared keys agree
// (doc, range, kind); an optimizer's file lists the ones it reads, with its own default where it
// differs (with_default). A hyper-parameter only one optimizer reads is declared in its file.
#pragma once

#include "core/optim_table.hpp"

namespace iputrain::optim::hyper {

// [0, 1): a decay factor; 1 would freeze the average at its start.
inline constexpr ParamRange kDecay{0, false, 1, true};
inline constexpr ParamRange kPositive{0, true};
inline constexpr ParamRange kNonNegative{0, false};

inline constexpr HyperParam kMomentum{"momentum", "Momentum coefficient.", 0.9, kDecay};
inline constexpr HyperParam kNesterov{"use_nesterov", "Nesterov momentum.", 0, {}, true};
inline constexpr HyperParam kBeta1{"beta1", "Decay of the first-moment estimate.", 0.9, kDecay};
inline constexpr HyperParam kBeta2{"beta2", "Decay of the second-moment estimate.", 0.999, kDecay};
inline constexpr HyperParam kEpsilon{"epsilon", "Added to denominators for stability.", 1e-8, kPositive};
//! Weight decay added to the gradient (L2), or applied to the weights apart from it (decoupled).
inline constexpr HyperParam kWeightDecay{"weight_decay", "Weight decay: L2 added to the gradient.", 0.0, kNonNegative};
inline constexpr HyperParam kDecoupledWeightDecay{
    "weight_decay", "Weight decay: L2 added to the gradient.", 0.0, kNonNegative, false, "decoupled"};

}  // namespace iputrain::optim::hyper
