#include "core/ops/bias_relu.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/ops/op_util.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {

const std::byte* begin_of(const Tensor& t) { return static_cast<const std::byte*>(t.data); }
const std::byte* end_of(const Tensor& t) { return begin_of(t) + t.numel() * static_cast<int64_t>(sizeof(float)); }
bool apart(const Tensor& a, const Tensor& b) { return end_of(a) <= begin_of(b) || end_of(b) <= begin_of(a); }
// The kernel's cost estimate for par::for_blocks: two passes' worth of elementwise work.
int64_t work_of(const Tensor& sum) { return sum.numel() * 2; }

}  // namespace

bool fused_kernels_enabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("IPUTRAIN_FUSE");
    return env == nullptr || std::strcmp(env, "off") != 0;
  }();
  return enabled;
}

bool bias_relu_types_fit(const TensorType& x, const TensorType& bias, const TensorType& sum, const TensorType& y) {
  const Shape& s = sum.shape;
  return !s.empty() && sum.numel() != 0 && x.dtype == DType::F32 && bias.dtype == DType::F32 &&
         sum.dtype == DType::F32 && y.dtype == DType::F32 && x.shape == s && bias.shape == Shape{s.back()} &&
         y.shape == s;
}

bool bias_relu_buffers_fit(const Tensor& x, const Tensor& bias, const Tensor& sum, const Tensor& y) {
  if (!bias_relu_types_fit(*x.type, *bias.type, *sum.type, *y.type)) {
    return false;
  }
  // Run one after the other, add has read every x before relu writes y. Fused, an element's y is
  // written right after its x is read: the same where y lies on x exactly or apart from it, and,
  // when the rows run in order on one thread (the work, a function of the shape, is below the
  // arena's threshold), also where y starts below x (the buffer assignment gives relu the memory
  // of the dead x at an offset): y[i] then lands on an x[j < i] already read. The fixed threshold,
  // not the thread's limit now: this is decided once, before the executions that raise the limit
  // or not (engine.spread_kernels), and work below kParallelWork stays on one thread under any.
  const bool serial = work_of(sum) < par::kParallelWork;
  const bool y_on_x = apart(y, x) || y.data == x.data || (serial && begin_of(y) < begin_of(x));
  const bool y_ok = y_on_x && (apart(y, sum) || y.data == sum.data) && apart(y, bias);
  const bool sum_ok = (apart(sum, x) || sum.data == x.data) && apart(sum, bias);
  return y_ok && sum_ok;
}

void bias_relu(const Tensor& x, const Tensor& bias, const Tensor& sum, const Tensor& y) {
  const int64_t c = bias.numel();
  const int64_t rows = sum.numel() / c;
  const float* xs = x.f32();
  const float* b = bias.f32();
  float* s = sum.f32();
  float* out = y.f32();
  // Blocks of whole rows, about as many elements as an elementwise kernel's (any split gives the
  // same bits: every element is computed alone).
  const int64_t grain = std::max<int64_t>(1, par::elementwise_grain(rows * c) / c);
  par::for_blocks(rows, grain, work_of(sum), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = xs + r * c;
      float* sr = s + r * c;
      float* yr = out + r * c;
      // Two loops over the row (its sum stays in L1 between them), each simple enough to vectorise.
      for (int64_t j = 0; j < c; ++j) {
        sr[j] = xr[j] + b[j];  // add's operation, x first
      }
      for (int64_t j = 0; j < c; ++j) {
        yr[j] = relu_value(sr[j]);  // relu's
      }
    }
  });
}

}  // namespace iputrain::ir
