// The frontend's entry point: a model file (and what it imports) -> the checked forward IR.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "iputrain/config.hpp"
#include "iputrain/error.hpp"
#include "iputrain/settings.hpp"

namespace iputrain::frontend {

//! The compile-time parameter values a caller sets: a config's `[model]` table, or the API's map.
struct ParamOverrides {
  std::map<std::string, ParamValue> values;  //!< by parameter name
  //! Where a config set each `model.NAME` (null when the values come from no config): a bad
  //! override is an error at its key, else at the model's declaration.
  const KeyLocations* keys = nullptr;
  //! The value of the model's int parameter `batch` when `values` leaves it alone (0: its
  //! default): Settings::model_batch, data.batch_size per slice.
  int64_t batch = 0;
  //! `ipu.norms.experimental.distributed_batch_norm_replica_group_size`: the replicas whose
  //! batch-norm statistics nn.batch_norm shares by default (the builtin int batch_norm_replica_group).
  int64_t batch_norm_group = 1;
};

//! A model file parsed, checked and lowered.
struct LoadedModel {
  std::string name;                          //!< the model's declared name
  std::string path;                          //!< the model file as given
  ir::Graph graph;                           //!< the forward graph (inputs, params, loss, outputs)
  std::map<std::string, ParamValue> params;  //!< final values of the model's compile-time parameters
  std::vector<Diagnostic> warnings;          //!< located warnings (unused inputs, …)
  std::shared_ptr<SourceManager> sources;    //!< every file read: the model and its modules
  int64_t batch_norm_group = 1;              //!< ParamOverrides::batch_norm_group it was built with
};

//! Loads the model in `path`, or in `*text` (then `path` is only used in messages and to find
//! modules next to it) when `text` is not null. `overrides` set compile-time parameters (`[model]`).
//! Throws iputrain::Error (Syntax, Semantic, Config, Io) with the sources attached, so
//! `render()` quotes the offending line.
LoadedModel load_model(const std::string& path, const std::string* text, const ParamOverrides& overrides = {});

}  // namespace iputrain::frontend
