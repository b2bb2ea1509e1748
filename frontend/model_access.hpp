// The IR behind a public Model, for the planner, the engine and tests: the public header names no
// internal type (include/iputrain/model.hpp), so the way in is this friend.
#pragma once

#include "core/ir/graph.hpp"
#include "iputrain/model.hpp"
#include "iputrain/settings.hpp"

namespace iputrain {

struct ModelAccess {
  static const ir::Graph& graph(const Model& m);
  static const ir::Graph& graph_for(const Model& m, const Settings& settings);
};

//! The model's forward IR.
inline const ir::Graph& graph_of(const Model& m) { return ModelAccess::graph(m); }
//! The model's forward IR to plan under `settings`: refuses (at the key) a model whose batch norms
//! were elaborated for another distributed batch-norm group than the settings' (loaded without
//! its config), which would leave the key without effect.
inline const ir::Graph& graph_for(const Model& m, const Settings& settings) {
  return ModelAccess::graph_for(m, settings);
}

}  // namespace iputrain
