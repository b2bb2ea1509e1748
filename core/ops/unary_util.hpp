// Shared by the f32 unary ops (exp, log, …, gelu, swish, hard_sigmoid) and their common gradient
// op unary_grad: the shape rule, the input name, Eigen-mapped kernel helpers and the backward
// builder. Each op's derivative lives in its own file (OpDef::derivative).
#pragma once

#include <string_view>

// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's AVX-512 math (GCC bug 105593) where
// it is inlined into the kernels that include this header.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>  // erf, for gelu

#include "core/ops/op_util.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

//! Shape rule of every f32 unary op: f32 in, same type out.
TensorType infer_unary_f32(std::span<const TensorType* const> in, const Attrs& attrs);

//! Backward of every f32 unary op: unary_grad(x, dy) with fn = the op's name and the op's own
//! attributes (gelu's form), so unary_grad runs the op's OpDef::derivative.
std::vector<ValueId> unary_backward(Graph& g, ValueId id, ValueId dy);

using ArrayMap = Eigen::Map<Eigen::ArrayXf>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf>;

//! Runs f(x, y) on blocks of the input and the output (ConstArrayMap, ArrayMap) on the shared
//! arena; `per_element` is the rough cost of one element in multiply-adds. Block boundaries depend
//! on the size only, so Eigen's packet/scalar split of every element is the same for any threads.
template <typename F>
void unary_blocks(const KernelArgs& args, int64_t per_element, F f) {
  const float* x = args.inputs[0].f32();
  float* y = args.output.f32();
  par::for_elements(args.output.numel(), per_element, [&](int64_t b, int64_t e) {
    const ConstArrayMap xs(x + b, e - b);
    ArrayMap ys(y + b, e - b);
    f(xs, ys);
  });
}

//! x, dy and dx of one block of a derivative (OpDef::derivative) as Eigen arrays (views).
struct GradBlock {
  GradBlock(const float* px, const float* pdy, float* pdx, int64_t n) : x(px, n), dy(pdy, n), dx(pdx, n) {}
  ConstArrayMap x;
  ConstArrayMap dy;
  ArrayMap dx;
};

//! A row's forward (OpDef::forward) from its function of a block: `kFn` takes the input block x
//! (ConstArrayMap) and gives y's Eigen expression; `kPerElement` as unary_blocks's.
template <auto kFn, int64_t kPerElement>
void unary_forward(const KernelArgs& args) {
  unary_blocks(args, kPerElement, [](const ConstArrayMap& x, ArrayMap& y) { y = kFn(x); });
}

//! A row's derivative (OpDef::derivative) from `kFn`, which takes a GradBlock and gives dx's Eigen
//! expression.
template <auto kFn>
void unary_derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  b.dx = kFn(b);
}

//! 1/sqrt(2), sqrt(2/pi), 1/sqrt(2 pi) and the cubic coefficient: gelu's constants.
inline constexpr float kSqrtHalf = 0.70710678118654752f;
inline constexpr float kSqrt2OverPi = 0.79788456080286536f;
inline constexpr float kInvSqrt2Pi = 0.39894228040143268f;
inline constexpr float kGeluCubic = 0.044715f;

}  // namespace iputrain::ir
