// Helpers shared by op files: broadcasting shape rules and kernels, and gradient reduction.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op.hpp"

namespace iputrain::ir {

//! Type of a broadcasting elementwise op: inputs must share a dtype (unless `any_dtype`); the
//! output has the broadcast shape and `out` dtype (or the inputs' dtype when `out` is empty).
TensorType infer_broadcast(std::span<const TensorType* const> in, std::optional<DType> out = {});

//! The strides (in elements) with which a tensor of `shape` is read when broadcast to `out`:
//! 0 along broadcast dimensions. Result has out.size() entries.
std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out);

//! Applies `f(a, b)` elementwise with NumPy broadcasting, writing `out`. Fast paths for equal
//! shapes, a scalar operand and a trailing-dimension operand (bias), general strided loop otherwise.
template <typename A, typename B, typename O, typename F>
void broadcast_binary(const Tensor& a, const Tensor& b, const Tensor& out, F f) {
  const A* pa = static_cast<const A*>(a.data);
  const B* pb = static_cast<const B*>(b.data);
  O* po = static_cast<O*>(out.data);
  const int64_t n = out.numel();
  const int64_t na = a.numel();
  const int64_t nb = b.numel();
  if (na == n && nb == n) {
    for (int64_t i = 0; i < n; ++i) {
      po[i] = f(pa[i], pb[i]);
    }
    return;
  }
  if (na == n && nb == 1) {
    const B s = pb[0];
    for (int64_t i = 0; i < n; ++i) {
      po[i] = f(pa[i], s);
    }
    return;
  }
  if (nb == n && na == 1) {
    const A s = pa[0];
    for (int64_t i = 0; i < n; ++i) {
      po[i] = f(s, pb[i]);
    }
    return;
  }
  // b repeats along the leading dimensions of a (the bias case): b's shape is a suffix of out's.
  const Shape& os = out.shape();
  const Shape& bs = b.shape();
  auto is_suffix = [&](const Shape& s) {
    if (s.size() > os.size()) {
      return false;
    }
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[s.size() - 1 - i] != os[os.size() - 1 - i]) {
        return false;
      }
    }
    return true;
  };
  if (na == n && nb > 0 && is_suffix(bs)) {
    for (int64_t r = 0; r < n / nb; ++r) {
      for (int64_t j = 0; j < nb; ++j) {
        po[r * nb + j] = f(pa[r * nb + j], pb[j]);
      }
    }
    return;
  }
  // General case: walk the output index with per-operand strides.
  const std::vector<int64_t> sa = broadcast_strides(a.shape(), os);
  const std::vector<int64_t> sb = broadcast_strides(b.shape(), os);
  const size_t rank = os.size();
  std::vector<int64_t> idx(rank, 0);
  int64_t ia = 0;
  int64_t ib = 0;
  for (int64_t i = 0; i < n; ++i) {
    po[i] = f(pa[ia], pb[ib]);
    for (size_t d = rank; d-- > 0;) {
      ++idx[d];
      ia += sa[d];
      ib += sb[d];
      if (idx[d] < os[d]) {
        break;
      }
      ia -= sa[d] * os[d];
      ib -= sb[d] * os[d];
      idx[d] = 0;
    }
  }
}

//! Gradient plumbing for broadcasting: sums `grad` (shaped like the broadcast output) over the
//! dimensions along which an operand of shape `target` was broadcast, and reshapes to `target`.
//! Returns `grad` unchanged when the shapes already agree.
ValueId reduce_to_shape(Graph& g, ValueId grad, const Shape& target);

//! Cost of an elementwise op: `flops_per_element` per output element, inputs read once.
Cost elementwise_cost(const Graph& g, const Node& node, double flops_per_element = 1.0);

}  // namespace iputrain::ir
