// The IR behind a public Model, for the planner, the engine and tests: the public header names no
// internal type (include/iputrain/model.hpp), so the way in is this friend.
#pragma once

#include "core/ir/graph.hpp"
#include "iputrain/model.hpp"

namespace iputrain {

struct ModelAccess {
  static const ir::Graph& graph(const Model& m);
};

//! The model's forward IR.
inline const ir::Graph& graph_of(const Model& m) { return ModelAccess::graph(m); }

}  // namespace iputrain
