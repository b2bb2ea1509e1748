// The update of a moving statistic (planner/moving_statistics.hpp), in one place so that tests
// can compute the same figure by hand.
#pragma once

#include <cstdint>

namespace iputrain::engine {

//! state[i] = state[i] * momentum + (sum[i] / count) * (1 - momentum), in f32: `sum` is the sum of
//! the update's `count` micro-batch statistics.
inline void apply_moving_average(float* state, const float* sum, int64_t size, int64_t count,
                                 double momentum) {
  const auto keep = static_cast<float>(momentum);
  const auto take = static_cast<float>(1.0 - momentum);
  const auto n = static_cast<float>(count);
  for (int64_t i = 0; i < size; ++i) {
    state[i] = state[i] * keep + (sum[i] / n) * take;
  }
}

}  // namespace iputrain::engine
