// Views of a slot's float arrays as Eigen arrays, so each update is a few fused, vectorised
// element-wise expressions over memory the caller owns (no temporaries, no allocation).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "core/parallel.hpp"

#include "core/optim/optimizer.hpp"

namespace iputrain::optim::optim_detail {

using Vec = Eigen::Map<Eigen::ArrayXf>;
using ConstVec = Eigen::Map<const Eigen::ArrayXf>;

inline Vec weights(const ParamSlot& p) { return Vec(p.weights, p.size); }
inline ConstVec grad(const ParamSlot& p) { return ConstVec(p.grad, p.size); }
//! State array number `k` of a slot of an element-wise optimizer (each a copy of the weight's size).
inline Vec state(const ParamSlot& p, int k) {
  return Vec(p.state + k * (p.state_stride > 0 ? p.state_stride : p.size), p.size);
}

//! Calls f(block) for blocks of every slot, split on the shared arena (core/parallel.hpp). For
//! elementwise update rules only: each element's update reads nothing else, and the blocks depend
//! on the slot's size only, so the bits are the same for any thread count.
//! The blocks are as equal as can be (whole cache lines), so that halves of a slot fall on the
//! same rows as the halves of a weight-gradient product (core/ops/gemm.cpp): each core updates
//! the rows its kernels wrote and read.
template <typename F>
void for_each_block(const std::vector<ParamSlot>& params, F f) {
  constexpr int64_t kBlock = 32768;
  for (const ParamSlot& p : params) {
    const int64_t stride = p.state_stride > 0 ? p.state_stride : p.size;
    const int64_t blocks = (p.size + kBlock - 1) / kBlock;
    const int64_t grain = blocks > 0 ? ((p.size + blocks - 1) / blocks + 15) / 16 * 16 : 1;
    par::for_blocks(p.size, grain, p.size * 4, [&](int64_t b, int64_t e) {
      f(ParamSlot{p.weights + b, p.grad + b, p.state != nullptr ? p.state + b : nullptr, e - b, stride, p.shape});
    });
  }
}

}  // namespace iputrain::optim::optim_detail
