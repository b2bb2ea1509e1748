// Reverse-mode automatic differentiation over the IR.
#pragma once

#include <vector>

#include "core/ir/graph.hpp"

namespace iputrain::planner {

//! Appends to `g` the gradient of the scalar `g.loss` with respect to every parameter, using each
//! op's backward rule. Backward nodes take the stage of the forward node they differentiate and
//! its source span. Returns one gradient per g.params entry (kNoValue if the loss does not depend
//! on that parameter).
std::vector<ir::ValueId> differentiate(ir::Graph& g);

}  // namespace iputrain::planner
