// Shared by tril and triu: the shape rule and the kernel, which keep the elements of each matrix
// (the last two dimensions) on one side of diagonal k and write zeros elsewhere (any dtype).
#pragma once

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! Rank >= 2, any dtype: the type is kept. tril's rule when `kLower`, triu's otherwise (the rows
//! name the shape rule and the kernel with their flag; both instantiated in triangle_util.cpp).
template <bool kLower>
TensorType infer_triangle(std::span<const TensorType* const> in, const Attrs& attrs);

//! Keeps element (i, j) of every matrix where j - i <= k (`kLower`) or j - i >= k (upper).
template <bool kLower>
void triangle_forward(const KernelArgs& args);

//! The gradient: the same triangle of dy.
std::vector<ValueId> triangle_backward(Graph& g, ValueId id, ValueId dy);

//! Attribute k: the diagonal (0 the main one, > 0 above it, < 0 below it).
inline constexpr AttrSpec kTriangleAttrs[] = {{.name = "k", .type = AttrType::Int, .number = 0}};

}  // namespace iputrain::ir
