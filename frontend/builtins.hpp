// Builtin functions of the model language: ops (relu, mean, matmul, …), initializers (zeros,
// glorot_uniform, …) and a few compile-time helpers (len). They are the leaves stdlib/ is written in.
#pragma once

#include <string>
#include <vector>

#include "frontend/scope.hpp"
#include "frontend/value.hpp"

namespace iputrain::frontend {

//! One call of a builtin, its arguments already bound to parameter order (defaults filled in).
struct CallArgs {
  ir::Graph& graph;
  SourceSpan span;                //!< the whole call
  std::vector<Value> args;        //!< one per Builtin::params entry
  std::vector<SourceSpan> spans;  //!< where each argument was written (the call for defaults)
  std::string name;               //!< the builtin's name, for messages
};

struct BuiltinParam {
  std::string name;
  bool required = true;
  Value def;  //!< the default when not required
};

struct Builtin {
  std::string name;
  std::vector<BuiltinParam> params;
  Value (*fn)(CallArgs& call);
  //! Initializers may only appear as a `param`'s initial value.
  bool initializer = false;
};

//! Every builtin, in a stable order.
const std::vector<Builtin>& builtins();

//! Binds every builtin and the dtype names (`f32` = "f32", …) in `scope`.
void install_builtins(Scope& scope);

}  // namespace iputrain::frontend
