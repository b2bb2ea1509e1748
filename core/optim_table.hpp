// The optimizer table: every optimizer's name, the hyper-parameters it reads (with their
// defaults, valid ranges and docs), the state it keeps per weight tensor and its update kernel.
//
// Each optimizer declares all of it in its own file, core/optim/X.cpp (its OptimizerDef
// kXOptimizer), and core/optim/optimizer_list.hpp lists them: adding an optimizer is that file
// and that line. Every stage reads this one table: the config schema builds `optimizer.type` and
// the `optimizer.*` hyper-parameter keys from it (type, default, range, doc), the rules refuse a
// hyper-parameter the chosen optimizer does not read, resolve fills OptimizerSettings::hyper, the
// planner's memory model counts the state of each weight from its shape, and the engine builds
// the kernel. The declarations are here, in core, so that the frontend and the planner may read
// the table; it is defined with the optimizers (core/optim/optimizer_table.cpp, the
// iputrain_optim library every stage links).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string_view>
#include <vector>

#include "core/types.hpp"
#include "iputrain/settings.hpp"

namespace iputrain {

namespace optim {
class Optimizer;
}

//! Accepted values of a float hyper-parameter (same meaning as config::Range).
struct ParamRange {
  double min = -std::numeric_limits<double>::infinity();
  bool min_open = false;  //!< true: value must be > min
  double max = std::numeric_limits<double>::infinity();
  bool max_open = false;  //!< true: value must be < max
};

//! A hyper-parameter an optimizer reads: key `optimizer.<name>`. Optimizers that read the same
//! name share the key, so they declare the same doc, range and kind (core/optim/hyper_params.hpp
//! holds the shared ones); each may have its own default.
struct HyperParam {
  std::string_view name;  //!< "beta1"
  std::string_view doc;   //!< one sentence; the schema adds the optimizers that read it
  double default_value;   //!< this optimizer's default (0 or 1 for a flag)
  ParamRange range = {};  //!< floats only
  bool flag = false;      //!< a boolean key
  //! How this optimizer applies it when the readers differ ("decoupled"): the key's doc then
  //! ends "…, decoupled for adamw, lamb and lion."
  std::string_view variant = {};
};

//! `p` with another default.
constexpr HyperParam with_default(HyperParam p, double value) {
  p.default_value = value;
  return p;
}

using OptimizerFactory = std::unique_ptr<optim::Optimizer> (*)(const OptimizerSettings&);
//! The state arrays an optimizer keeps for a weight of shape `weight`, in the order its kernel
//! lays them out one after the other (OptimizerSettings gives the hyper-parameters that decide it).
using StateShapes = std::vector<Shape> (*)(const Shape& weight, const OptimizerSettings& o);

//! A pass an update makes before its step to take whole-tensor norms (LAMB's |w| and |u|, LARS's
//! |w| and |g|), for the planner's cycle model: it reads `arrays_read` f32 arrays of the weight's
//! size again at `flops` per element, and with sharded optimizer state the replicas gather each
//! other's sums of squares (`norms` per grain of kShardGrain elements, in double). The default:
//! no such pass.
struct NormPass {
  int32_t norms = 0;        //!< whole-tensor norms taken per weight
  int32_t arrays_read = 0;  //!< arrays read again (the weight, its gradient or state)
  double flops = 0;         //!< per element: the squares and whatever the pass recomputes
};

//! One optimizer: its row of the table.
struct OptimizerDef {
  std::string_view name;  //!< the value of `optimizer.type`
  std::vector<HyperParam> params;
  StateShapes state;
  //! Every state array has the weight's shape and the update is element-wise (or takes sums over
  //! the whole tensor through TensorSums): a replica may keep and update a block of each tensor
  //! (replicated optimizer-state sharding). False: whole tensors only.
  bool shardable;
  OptimizerFactory make;
  NormPass norm_pass = {};  //!< the pass its norms take, if it takes any

  //! The hyper-parameter `name` this optimizer reads, or nullptr.
  const HyperParam* find(std::string_view param) const;
};

//! Every optimizer, in the order of core/optim/optimizer_list.hpp.
const std::vector<const OptimizerDef*>& optimizer_table();
//! The optimizers' names, in the table's order (`optimizer.type`'s values).
std::vector<std::string> optimizer_names();
//! The optimizer named `name` (exact spelling), or nullptr.
const OptimizerDef* find_optimizer(std::string_view name);
//! The optimizer of resolved settings (an unknown name is a bug: resolve checked it).
const OptimizerDef& optimizer_def(const OptimizerSettings& o);

//! One `optimizer.<name>` key: every optimizer that reads the name, and the first declaration
//! (its doc, range, kind and the key's default).
struct HyperKey {
  std::string_view name;
  const HyperParam* first;
  std::vector<const OptimizerDef*> readers;
  //! The key's doc: the declaration's, with the readers (unless every optimizer reads it), the
  //! variants and the defaults that differ from the key's.
  std::string doc() const;
};
//! Every hyper-parameter key, in the order the table first names them.
const std::vector<HyperKey>& optimizer_hyper_keys();
//! The key of hyper-parameter `name`, or nullptr.
const HyperKey* find_hyper_key(std::string_view name);

//! The state arrays of a weight of shape `weight` (optimizer_def(o).state).
std::vector<Shape> optimizer_state_shapes(const OptimizerSettings& o, const Shape& weight);
//! Floats of state kept for a weight of shape `weight`: what the memory model counts and the
//! engine allocates (2 n for adam; rows + columns for adafactor's factored matrices).
int64_t optimizer_state_floats(const OptimizerSettings& o, const Shape& weight);
//! State arrays kept for a weight matrix: copies of the weights for a shardable optimizer (sgd 0,
//! adam 2); what checkpoints record and the reports print.
int32_t optimizer_state_slots(const OptimizerSettings& o);

}  // namespace iputrain
