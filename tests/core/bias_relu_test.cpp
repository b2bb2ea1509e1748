// The fused bias + relu kernel (core/ops/bias_relu.hpp) against add then relu run one after the
// other, bit for bit, on the buffer layouts the engine's buffer assignment produces: apart, in
// place, and relu's output starting below the sum's input (accepted only where the kernel stays on
// one thread), for 1 and 2 threads and special values (nan, ±inf, ±0).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "core/ops/bias_relu.hpp"
#include "core/parallel.hpp"

using namespace iputrain;
using namespace iputrain::ir;

namespace {

struct Layout {
  int64_t x, sum, y;  // offsets in floats into one pool
};

std::vector<float> values(int64_t n, uint32_t seed) {
  const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           0.0f,
                           -0.0f,
                           1e-40f,
                           -1e-40f};
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = seed;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[static_cast<size_t>(i)] =
        i % 97 < 7 ? special[i % 97] : static_cast<float>(static_cast<int32_t>(s >> 8) % 2001 - 1000) / 377.0f;
  }
  return v;
}

// The pair the engine fuses: add(x, bias) as value 2, then relu reading it.
std::pair<Node, Node> add_then_relu() {
  Node add;
  add.op = OpKind::Add;
  add.inputs = {0, 1};
  Node relu;
  relu.op = OpKind::Relu;
  relu.inputs = {2};
  return {add, relu};
}

// Runs add(x, bias) then relu on `pool` (the reference) or bias_relu, returns the pool.
std::vector<float> run(bool fused, const Shape& shape, const Layout& at, int64_t pool_floats) {
  const int64_t c = shape.back();
  const TensorType t{DType::F32, shape};
  const TensorType tb{DType::F32, Shape{c}};
  std::vector<float> pool = values(pool_floats, 7);
  std::vector<float> bias = values(c, 11);
  const Tensor x{&t, pool.data() + at.x};
  const Tensor b{&tb, bias.data()};
  const Tensor sum{&t, pool.data() + at.sum};
  const Tensor y{&t, pool.data() + at.y};
  const auto [add, relu] = add_then_relu();
  if (fused) {
    REQUIRE(bias_relu_buffers_fit(x, b, sum, y));
    bias_relu(x, b, sum, y);
  } else {
    const Tensor add_in[] = {x, b};
    op_def(OpKind::Add).forward(KernelArgs{add, add_in, sum});
    const Tensor relu_in[] = {sum};
    op_def(OpKind::Relu).forward(KernelArgs{relu, relu_in, y});
  }
  return pool;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("bias_relu writes the bits of add then relu on every layout the engine uses") {
  for (int64_t threads : {1, 2}) {
    par::set_threads(threads);
    // [3, 5]: one block; [100, 1024]: 204,800 floats on one thread; [512, 1000]: parallel blocks.
    for (const Shape& shape : {Shape{3, 5}, Shape{100, 32, 32}, Shape{512, 1000}}) {
      const int64_t n = numel(shape);
      const bool serial = 2 * n < par::kParallelWork;
      std::vector<Layout> layouts = {{0, n, 2 * n}, {0, n, 0}, {0, n, n}, {0, 0, 2 * n}, {0, 0, 0}};
      if (serial) {
        layouts.push_back({n + 5, 0, n});      // y starts below x, overlapping it (x dead after add)
        layouts.push_back({2 * n, 0, n + 3});  // the same, by 3 floats less than a row
      }
      for (const Layout& at : layouts) {
        CAPTURE(threads);
        CAPTURE(n);
        CAPTURE(at.x);
        CAPTURE(at.sum);
        CAPTURE(at.y);
        const int64_t pool = 3 * n + 8;
        CHECK(same_bits(run(true, shape, at, pool), run(false, shape, at, pool)));
      }
    }
  }
  par::set_threads(0);
}

TEST_CASE("bias_relu refuses what it cannot fuse") {
  const TensorType t{DType::F32, Shape{512, 1000}};
  const TensorType tb{DType::F32, Shape{1000}};
  const TensorType wide_bias{DType::F32, Shape{512, 1000}};
  std::vector<float> pool(4 * 512 * 1000), bias(512 * 1000);
  const int64_t n = 512 * 1000;
  auto at = [&](const TensorType& type, int64_t offset) { return Tensor{&type, pool.data() + offset}; };
  const Tensor b{&tb, bias.data()};
  CHECK(bias_relu_buffers_fit(at(t, 0), b, at(t, n), at(t, 2 * n)));
  // Parallel blocks could overwrite x another block has still to read.
  CHECK_FALSE(bias_relu_buffers_fit(at(t, n + 5), b, at(t, 2 * n + 8), at(t, n)));
  // Even while this thread keeps such work on itself (engine.spread_kernels' large_only limit): the
  // check is made once, and later executions may split the kernel again.
  par::set_parallel_work(64 * n);
  CHECK_FALSE(bias_relu_buffers_fit(at(t, n + 5), b, at(t, 2 * n + 8), at(t, n)));
  par::set_parallel_work(par::kParallelWork);
  // y above x, overlapping it: a row's y lands on x rows not yet read, even on one thread.
  CHECK_FALSE(bias_relu_buffers_fit(at(t, 0), b, at(t, 2 * n), at(t, 5)));
  // Not a bias along the last dimension: refused by the buffers' check too.
  CHECK_FALSE(bias_relu_buffers_fit(at(t, 0), Tensor{&wide_bias, bias.data()}, at(t, n), at(t, 2 * n)));
}

TEST_CASE("bias_relu_types_fit: f32, one shape, a bias along the last dimension") {
  const TensorType t{DType::F32, Shape{4, 3}};
  const TensorType tb{DType::F32, Shape{3}};
  CHECK(bias_relu_types_fit(t, tb, t, t));
  CHECK_FALSE(bias_relu_types_fit(t, TensorType{DType::F32, Shape{4}}, t, t));      // along the first
  CHECK_FALSE(bias_relu_types_fit(t, TensorType{DType::F32, Shape{1, 3}}, t, t));   // broadcast, not [C]
  CHECK_FALSE(bias_relu_types_fit(t, t, t, t));                                     // two full operands
  CHECK_FALSE(bias_relu_types_fit(TensorType{DType::F32, Shape{1, 3}}, tb, t, t));  // x broadcast
  CHECK_FALSE(bias_relu_types_fit(TensorType{DType::F16, Shape{4, 3}}, tb, t, t));
  CHECK_FALSE(bias_relu_types_fit(t, TensorType{DType::I32, Shape{3}}, t, t));
  const TensorType empty{DType::F32, Shape{0, 3}};
  CHECK_FALSE(bias_relu_types_fit(empty, tb, empty, empty));
  const TensorType scalar{DType::F32, Shape{}};
  CHECK_FALSE(bias_relu_types_fit(scalar, scalar, scalar, scalar));
}
