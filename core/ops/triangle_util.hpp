// Shared by tril and triu: the shape rule and the kernel, which keep the elements of each matrix
// (the last two dimensions) on one side of diagonal k and write zeros elsewhere (any dtype).
#pragma once

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! Rank >= 2, any dtype: the type is kept.
TensorType infer_triangle(std::span<const TensorType* const> in, const Attrs& attrs, std::string_view name);

//! Keeps element (i, j) of every matrix where j - i <= k (lower) or j - i >= k (upper).
void triangle_forward(const KernelArgs& args, bool lower);

//! The gradient: the same triangle of dy.
std::vector<ValueId> triangle_backward(Graph& g, ValueId id, ValueId dy);

//! Attribute k: the diagonal (0 the main one, > 0 above it, < 0 below it).
inline constexpr AttrSpec kTriangleAttrs[] = {{.name = "k", .type = AttrType::Int, .number = 0}};

}  // namespace iputrain::ir
