// Reverse-mode automatic differentiation over the IR.
#pragma once

#include <vector>

#include "core/ir/graph.hpp"

namespace iputrain::planner {

//! A parameter's gradient for one micro-batch, in parts: one per model stage that reads the
//! parameter (a tied weight read by two stages has two), in the order of those stages. Each part
//! is accumulated over the micro-batches on its own and the parts are summed at the weight update,
//! so a stage's contribution goes into its accumulator when the stage makes it instead of waiting
//! for the other stages' backward passes. The grouping follows the stages the model declares, so
//! every plan of one model sums the same numbers in the same order. Empty: the loss does not
//! depend on the parameter, or it is not trainable.
using GradParts = std::vector<ir::ValueId>;

//! Appends to `g` the gradient of the scalar `g.loss` with respect to every parameter, using each
//! op's backward rule. Backward nodes take the stage of the forward node they differentiate and
//! its source span. Returns the gradient parts of every g.params entry.
std::vector<GradParts> differentiate(ir::Graph& g);

}  // namespace iputrain::planner
