// Builtin functions of the model language: ops (relu, mean, matmul, …), initializers (zeros,
// glorot_uniform, …) and a few compile-time helpers (len). They are the leaves stdlib/ is written in.
#pragma once

#include <functional>
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
  std::string scope_path;         //!< the caller's scope path ("body/block_1/dropout"), may be empty
  //! Returns `base`, `base_1`, … unique under scope_path (random ops key their streams by it).
  std::function<std::string(const std::string& base)> unique_name;
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

//! Binds every builtin, the dtype names (`f32` = "f32", …) and the module `ops` (every builtin
//! again, so a stdlib layer named like a primitive can still reach it: `ops.conv2d`) in `scope`.
void install_builtins(Scope& scope);

//! The builtins that lower to ops (builtin_ops.cpp), appended to `table`.
void add_tensor_builtins(std::vector<Builtin>& table);
//! The plain builtins, generated from the op list (plain_builtins.cpp), appended to `table`.
void add_plain_builtins(std::vector<Builtin>& table);
//! einsum(equation, a, b), lowered to transpose, reshape and matmul (einsum_builtin.cpp).
void add_einsum_builtin(std::vector<Builtin>& table);
//! cumsum, argsort, sort, top_k and scatter_add (scan_builtins.cpp).
void add_scan_builtins(std::vector<Builtin>& table);
//! dynamic_slice, sequence_slice (and its pack / unpack forms) and scatter_update (slice_builtins.cpp).
void add_slice_builtins(std::vector<Builtin>& table);
//! candidate_sampler, the draw of the sampled losses (sampling_builtins.cpp).
void add_sampling_builtins(std::vector<Builtin>& table);
//! The builtins of the ops registered in C++ so far (custom_builtins.cpp), made once per op.
std::vector<const Builtin*> custom_builtins();
//! cross_replica_mean and replication_index (collective_builtins.cpp).
void add_collective_builtins(std::vector<Builtin>& table);
//! matmul(a, b, transpose_a = false, transpose_b = false) (matmul_builtin.cpp).
void add_matmul_builtin(std::vector<Builtin>& table);

//! a @ b (transposed as asked) with NumPy's broadcasting of the batch dimensions; the one lowering
//! of both the `@` operator and the matmul builtin. Throws a located Error(Semantic).
ir::ValueId add_matmul(ir::Graph& g, ir::ValueId a, ir::ValueId b, bool ta, bool tb, const SourceSpan& span);

//! Helpers shared by the builtin files. Each throws a located Error(Semantic) naming the argument.
namespace builtin_args {
ir::ValueId tensor(CallArgs& c, size_t k, const std::string& param);
//! A tensor, or a number/bool turned into a scalar constant of dtype `like`.
ir::ValueId tensor_or_scalar(CallArgs& c, size_t k, const std::string& param, DType like);
int64_t integer(CallArgs& c, size_t k, const std::string& param);
bool boolean(CallArgs& c, size_t k, const std::string& param);
//! A string that must be one of `allowed` (the hint lists them or suggests the nearest).
std::string choice(CallArgs& c, size_t k, const std::string& param, const std::vector<std::string>& allowed);
std::string what(const CallArgs& c, const std::string& param);
//! A parameter of a builtin's signature: required, or optional with its default.
BuiltinParam req(std::string name);
BuiltinParam opt(std::string name, Value def);
//! A node of op `op` in the caller's graph, located at the call.
ir::ValueId add(CallArgs& c, ir::OpKind op, std::vector<ir::ValueId> inputs, ir::Attrs attrs = {});
}  // namespace builtin_args

}  // namespace iputrain::frontend
