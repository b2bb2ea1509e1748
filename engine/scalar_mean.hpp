// The mean of a tensor's elements as a double: what the host reports for an output (a loss, an
// accuracy) whatever its dtype.
#pragma once

#include <Eigen/Core>

#include <cstdint>

#include "core/ops/op.hpp"

namespace iputrain::engine {

inline double scalar_mean(const ir::Tensor& t) {
  const int64_t n = t.numel();
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    switch (t.type->dtype) {
      case DType::I32: sum += t.i32()[i]; break;
      case DType::Bool:
      case DType::U8:
        sum += t.u8()[i];
        break;
      case DType::F16:
        sum += static_cast<float>(static_cast<const Eigen::half*>(t.data)[i]);
        break;
      case DType::BF16:
        sum += static_cast<float>(static_cast<const Eigen::bfloat16*>(t.data)[i]);
        break;
      case DType::F32:
        sum += t.f32()[i];
        break;
    }
  }
  return n > 0 ? sum / static_cast<double>(n) : 0.0;
}

}  // namespace iputrain::engine
