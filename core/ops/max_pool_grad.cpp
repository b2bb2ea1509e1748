// max_pool_grad: (x f32[N, H, W, C], dy f32[N, OH, OW, C]) -> f32[N, H, W, C]: each dy element is
// added at the first position (row-major within the window) holding its window's maximum, per
// channel; the gradient of max_pool (same attributes). Not differentiable.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "core/ops/pool_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_max_pool_grad {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType out = infer_pool(*in[0], attrs);
  if (*in[1] != out) {
    throw OpError{fmt::format("dy must be {} for input {}, got {}", out.str(), in[0]->str(), in[1]->str()),
                  ""};
  }
  return *in[0];
}

// Channels are handled in blocks whose best values and positions live on the stack.
constexpr int64_t kBlock = 128;

void forward(const KernelArgs& args) {
  const ConvGeom g = pool_geom(args.inputs[0].shape(), args.node.attrs);
  const float* x = args.inputs[0].f32();
  const float* dy = args.inputs[1].f32();
  float* dx = args.output.f32();
  const int64_t image = g.h * g.w * g.c;
  // Images in parallel: a window never leaves its image, so each block writes its own images'
  // gradient, in the same order as one thread would.
  par::for_blocks(g.n, 1, g.n * g.oh * g.ow * g.kh * g.kw * g.c, [&](int64_t n0, int64_t n1) {
    for (int64_t i = n0 * image; i < n1 * image; ++i) {
      dx[i] = 0.0f;
    }
    std::array<float, kBlock> best{};
    std::array<int64_t, kBlock> where{};
    for (int64_t c0 = 0; c0 < g.c; c0 += kBlock) {
      const int64_t w = std::min(kBlock, g.c - c0);
      for_each_window(
          g,
          [&](int64_t, int64_t in, int64_t count) {
            const float* src = x + in + c0;
            const int64_t at = in + c0;
            for (int64_t c = 0; c < w; ++c) {
              // Branch-free: the first maximum of the window wins (a later equal value does not).
              const float v = src[c];
              const bool take = count == 0 || v > best[c];
              best[c] = take ? v : best[c];
              where[c] = take ? at + c : where[c];
            }
          },
          [&](int64_t out, int64_t count) {
            if (count == 0) {
              return;
            }
            for (int64_t c = 0; c < w; ++c) {
              dx[where[c]] += dy[out + c0 + c];
            }
          },
          n0, n1);
    }
  });
}

}  // namespace impl_max_pool_grad
}  // namespace

const OpDef kMaxPoolGradOp{
    .kind = OpKind::MaxPoolGrad,
    .name = "max_pool_grad",
    .arity = 2,
    .infer = impl_max_pool_grad::infer,
    .forward = impl_max_pool_grad::forward,
    .backward = nullptr,
    .cost = pool_cost,
    .doc = "max_pool_grad(x, dy; max_pool's attrs): dy added at the first maximum of each window.",
    .edges = "dy to the first maximum of each window.",
};

}  // namespace iputrain::ir
