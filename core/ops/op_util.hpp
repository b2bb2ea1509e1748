// Helpers shared by op files: broadcasting shape rules and kernels, and gradient reduction.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/broadcast_rows.hpp"
#include "core/ops/op.hpp"
// Declares every kXxxOp extern: without it the `const OpDef` definitions in the op files would
// have internal linkage and the op table would not link.
#include "core/ops/ops.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

//! Type of a broadcasting elementwise op: inputs must share a dtype (unless `any_dtype`); the
//! output has the broadcast shape and `out` dtype (or the inputs' dtype when `out` is empty).
TensorType infer_broadcast(std::span<const TensorType* const> in, std::optional<DType> out = {});

//! Type of add/sub/mul: broadcasting over f32 or i32 operands (the dtypes their kernels handle);
//! `verb` names the operation in the error ("add", "subtract", "multiply").
TensorType infer_arithmetic(std::span<const TensorType* const> in, std::string_view verb);

//! Throws OpError when `t` has a rank above kMaxRank.
void check_rank(const TensorType& t);

//! True when `s` equals the trailing dimensions of `out` (a bias-like operand).
bool is_suffix_of(const Shape& s, const Shape& out);

//! Applies `f(a, b)` elementwise with NumPy broadcasting, writing `out`. Fast paths for equal
//! shapes, a scalar operand and a trailing-dimension operand on either side (bias), a general
//! strided loop otherwise. Never allocates.
template <typename A, typename B, typename O, typename F>
void broadcast_binary(const Tensor& a, const Tensor& b, const Tensor& out, F f) {
  const A* pa = static_cast<const A*>(a.data);
  const B* pb = static_cast<const B*>(b.data);
  O* po = static_cast<O*>(out.data);
  const int64_t n = out.numel();
  const int64_t na = a.numel();
  const int64_t nb = b.numel();
  if (n == 0) {
    return;
  }
  // The fast paths split into blocks on the shared arena (elementwise: any split gives the same bits).
  if (na == n && nb == n) {
    par::for_elements(n, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        po[i] = f(pa[i], pb[i]);
      }
    });
    return;
  }
  if (na == n && nb == 1) {
    const B s = pb[0];
    par::for_elements(n, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        po[i] = f(pa[i], s);
      }
    });
    return;
  }
  if (nb == n && na == 1) {
    const A s = pa[0];
    par::for_elements(n, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        po[i] = f(s, pb[i]);
      }
    });
    return;
  }
  const Shape& os = out.shape();
  // One operand repeats along the leading dimensions of the other (the bias case).
  if (na == n && nb > 0 && is_suffix_of(b.shape(), os)) {
    par::for_blocks(n / nb, std::max<int64_t>(1, 16384 / nb), n, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const A* ra = pa + r * nb;
        O* ro = po + r * nb;
        for (int64_t j = 0; j < nb; ++j) {
          ro[j] = f(ra[j], pb[j]);
        }
      }
    });
    return;
  }
  if (nb == n && na > 0 && is_suffix_of(a.shape(), os)) {
    par::for_blocks(n / na, std::max<int64_t>(1, 16384 / na), n, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const B* rb = pb + r * na;
        O* ro = po + r * na;
        for (int64_t j = 0; j < na; ++j) {
          ro[j] = f(pa[j], rb[j]);
        }
      }
    });
    return;
  }
  // Any other broadcast ([b, s, d] against [b, s, 1], ...): coalesced rows.
  const RowLoop<2> loop = row_loop<2>({&a.shape(), &b.shape()}, os);
  with_steps(loop.step, [&](auto sa, auto sb) {
    for_rows(loop, 1, [&](int64_t o, const std::array<int64_t, 2>& off) {
      const A* ra = pa + off[0];
      const B* rb = pb + off[1];
      O* ro = po + o;
      for (int64_t j = 0; j < loop.inner; ++j) {
        ro[j] = f(ra[j * sa], rb[j * sb]);
      }
    });
  });
}

//! Copies `in` broadcast to the shape of `out` (same element type T). Never allocates.
template <typename T>
void broadcast_copy(const Tensor& in, const Tensor& out) {
  const T* pi = static_cast<const T*>(in.data);
  T* po = static_cast<T*>(out.data);
  const int64_t n = out.numel();
  const int64_t ni = in.numel();
  if (n == 0) {
    return;
  }
  if (ni == 1) {
    const T s = pi[0];
    for (int64_t i = 0; i < n; ++i) {
      po[i] = s;
    }
    return;
  }
  const RowLoop<1> loop = row_loop<1>({&in.shape()}, out.shape());
  with_steps(loop.step, [&](auto si) {
    for_rows(loop, 1, [&](int64_t o, const std::array<int64_t, 1>& off) {
      const T* ri = pi + off[0];
      T* ro = po + o;
      for (int64_t j = 0; j < loop.inner; ++j) {
        ro[j] = ri[j * si];
      }
    });
  });
}

//! Throws OpError unless `t` is f32 (`what` names the operand in the message).
void require_f32(const TensorType& t, std::string_view what = "operand");

//! Typed attribute getters for shape functions: a present attribute of the wrong type throws
//! OpError (a user mistake), unlike Attrs' getters (a programming error).
int64_t int_attr(const Attrs& attrs, std::string_view key, int64_t def);
double float_attr(const Attrs& attrs, std::string_view key, double def);
std::string_view str_attr(const Attrs& attrs, std::string_view key, std::string_view def);

//! Gradient plumbing for broadcasting: sums `grad` (shaped like the broadcast output) over the
//! dimensions along which an operand of shape `target` was broadcast, and reshapes to `target`.
//! Returns `grad` unchanged when the shapes already agree.
ValueId reduce_to_shape(Graph& g, ValueId grad, const Shape& target);

//! OpDef::inputs of the ops that take one tensor `x` (the unary ops, softmax, …).
//! relu of one element: max(v, 0) with nan kept and -0 made +0. The relu op and the fused bias_relu
//! kernel (bias_relu.cpp) both compute it here, so their bits cannot drift apart.
inline float relu_value(float v) { return (v > 0.0f || v != v) ? v : 0.0f; }

inline constexpr std::string_view kInputX[] = {"x"};

//! Cost of an elementwise op: `flops_per_element` per output element, inputs read once.
Cost elementwise_cost(const Graph& g, const Node& node, double flops_per_element = 1.0);

//! Shape rule of the leaves (input, param, constant, loop_arg): Graph::add_<name> makes them, never
//! Graph::add, so they have no shape function, kernel, gradient or cost of their own.
template <OpKind kLeaf>
TensorType infer_leaf(std::span<const TensorType* const>, const Attrs&) {
  throw OpError{"is a leaf", "use Graph::add_" + std::string(op_name(kLeaf))};
}

//! elementwise_cost with `kFlops` per element, as a row's cost function (OpDef::cost).
template <int kFlops = 1>
Cost elementwise_cost_of(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, kFlops);
}

}  // namespace iputrain::ir
