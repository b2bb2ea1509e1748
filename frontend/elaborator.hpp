// Elaboration: a checked syntax tree plus compile-time parameter values -> the forward IR graph.
//
// Functions and layers are expanded at every call site (like templates), `if` and `for` are
// evaluated at compile time, scalar arithmetic is folded, and every tensor operation becomes an IR
// node carrying the span of the expression that asked for it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "frontend/frontend.hpp"
#include "frontend/scope.hpp"
#include "iputrain/config.hpp"

namespace iputrain::frontend {

struct Elaborated {
  std::string model_name;
  ir::Graph graph;
  std::map<std::string, ParamValue> params;  //!< the model parameters' final values
  std::vector<Diagnostic> warnings;
};

//! Elaborates the single `model` of `main` with `overrides`, the one place they are checked:
//! unknown names or wrong types raise Error(Config). Other errors are Error(Semantic), located.
//! `sources` is used only to quote source text in hints (function signatures, shape patterns).
Elaborated elaborate(const ModuleScope& main, const ParamOverrides& overrides, const SourceManager& sources);

}  // namespace iputrain::frontend
