// Views of a slot's float arrays as Eigen arrays, so each update is a few fused, vectorised
// element-wise expressions over memory the caller owns (no temporaries, no allocation).
#pragma once

#include <Eigen/Core>

#include "engine/optim/optimizer.hpp"

namespace iputrain::engine::optim_detail {

using Vec = Eigen::Map<Eigen::ArrayXf>;
using ConstVec = Eigen::Map<const Eigen::ArrayXf>;

inline Vec weights(const ParamSlot& p) {
  return Vec(p.weights, p.size);
}
inline ConstVec grad(const ParamSlot& p) {
  return ConstVec(p.grad, p.size);
}
//! State array number `k` of a slot (k < state_slots()).
inline Vec state(const ParamSlot& p, int k) {
  return Vec(p.state + k * p.size, p.size);
}

}  // namespace iputrain::engine::optim_detail
