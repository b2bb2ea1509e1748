// Helpers shared by the reductions (sum, mean, max): axis parsing, output shapes and a reduction kernel
// that folds any set of axes into at most three loops over merged dimensions.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! The `ints` attribute `key` by reference (kernels must not copy it: that would allocate);
//! an empty list when absent.
const std::vector<int64_t>& ints_attr(const Attrs& attrs, std::string_view key);

//! Which dimensions of a tensor of rank `rank` the `axes` attribute reduces (empty = all).
//! Negative axes count from the end; duplicates and out-of-range axes throw OpError.
std::array<bool, kMaxRank> reduced_dims(const std::vector<int64_t>& axes, int64_t rank);

//! Output type of a reduction of `in` over `axes`, keeping reduced dimensions as 1 if `keepdims`.
TensorType infer_reduce(const TensorType& in, const Attrs& attrs);

//! Number of input elements folded into each output element.
int64_t reduce_count(const TensorType& in, const Attrs& attrs);

//! out = sum of `in` over the reduced dimensions given by the node's `axes` (T = float or int32_t),
//! then multiplied by `scale` (1 for sum, 1/count for mean). Never allocates.
template <typename T>
void reduce_sum(const KernelArgs& args, T scale);

//! out = the maximum of `in` over the reduced dimensions (T = float or int32_t); nan wins. The
//! input must not be empty along a reduced dimension (infer rejects it). Never allocates.
template <typename T>
void reduce_max(const KernelArgs& args);

//! The gradient of a reduction: dy reshaped to the keepdims shape, then broadcast to `input`'s shape.
ValueId unreduce(Graph& g, ValueId dy, ValueId input, const Attrs& attrs);

}  // namespace iputrain::ir
