// Reverse-mode differentiation of a whole graph from given output gradients: what a loop's body
// needs (core/ops/loop.cpp), where the model's differentiate (planner/autodiff.hpp) starts from the
// loss alone and splits parameter gradients by stage.
#pragma once

#include <span>
#include <vector>

#include "core/ir/graph.hpp"

namespace iputrain::ir {

//! The gradient `grad` flowing into value `of` from outside the graph.
struct VjpSeed {
  ValueId of = kNoValue;
  ValueId grad = kNoValue;
};

//! Appends to `g` the gradients of the values `wrt` given the seeds, using each op's backward
//! rule over the nodes present when called, from the last down. A node's seeds are summed in the
//! order given before its users' contributions, which are added in reverse node order, as the
//! model's reverse pass adds them. Nothing flows past a `wrt` value into its inputs. Returns one
//! gradient per `wrt` entry (kNoValue where none flows).
std::vector<ValueId> vjp(Graph& g, std::span<const VjpSeed> seeds, std::span<const ValueId> wrt);

}  // namespace iputrain::ir
