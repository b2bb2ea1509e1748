// The search space of `iputrain tune`: pipeline layouts (depth, cuts, device mapping) and the knob
// axes on top of them, each candidate expressed as `key=value` overrides of the input config.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "iputrain/config.hpp"

namespace iputrain::api::tune {

using Sets = std::vector<std::string>;

//! One pipeline structure: IPUs per replica, where the model is cut, which IPU runs each stage.
struct Layout {
  int32_t ipus = 1;  //!< per replica
  int32_t replicas = 1;
  int32_t positions = 1;    //!< pipeline positions (what the schedules' accumulation rules count)
  bool shares_ipu = false;  //!< a stage back on an IPU that runs another (the tied head on IPU 0)
  Sets sets;                //!< the keys that express it
  std::string label;
};

//! What a candidate's figures are, as planned; nullopt figures = it did not place.
struct Figures {
  bool fits = false;
  double samples_per_second = 0;
  double bubble = 0;
  int64_t peak = 0;       //!< the fullest IPU's peak (also when it does not fit in memory)
  int64_t capacity = 0;   //!< bytes per IPU
  int32_t over_ipu = -1;  //!< when it does not fit in memory: the IPU of a replica that misses by the most
  int64_t micro_batch = 0;
  int64_t accumulation = 0;
  int32_t replicas = 1;
  int32_t ipus_per_replica = 1;
  std::string schedule;
  std::vector<double> stage_cycles;  //!< per declared stage: forward + backward cycles of a micro-batch
  std::string error;
  double seconds = 0;  //!< how long planning it took
};

//! Plans the config with `sets` on top (the base's own sets first).
using Evaluate = std::function<Figures(const Sets& sets)>;

//! What the model's IR says of its stages (tune_model.cpp): the compile-time parameters that size
//! them with equal blocks, whatever their names, and the tied weights.
struct StageSizes {
  std::vector<std::string> params;  //!< in stage order, one per sized stage
  std::vector<int32_t> stages;      //!< the declared stage each sizes
  int64_t layers = 0;               //!< their values' sum: the blocks the search spreads
  //! (reader, owner): a declared stage that reads a weight an earlier one owns (a tied head).
  std::vector<std::pair<int32_t, int32_t>> ties;
  //! A model without declared stages: its repeated blocks (planner/blocks.hpp), which
  //! pipeline.auto_stage_blocks spreads, and whether what follows them reads a weight what precedes
  //! them reads (a head tied to the embedding).
  int64_t blocks = 0;
  bool tied_tail = false;
};

//! Lowers the model under `config` and probes its compile-time integer parameters (tune_model.cpp).
StageSizes find_stage_sizes(const std::string& path, const Config& config);

//! The model's facts the layouts need.
struct ModelFacts {
  std::vector<std::string> stages;  //!< declared stage names
  StageSizes sizes;
  bool layout_fixed = false;             //!< the config fixes the layout: only its own is searched
  int64_t min_depth = 1;                 //!< IPUs per replica searched ([tune] ipus_per_replica)
  int64_t max_depth = INT64_MAX;
};

//! The layouts for `ipus` IPUs in all whose replica count divides `global_batch` (within the
//! tolerance, checked later per micro-batch). For models with declared stage sizes, the cut of each
//! depth comes from a dynamic programme over the layers per IPU, its costs measured on one
//! calibration plan (`evaluate`).
std::vector<Layout> make_layouts(const ModelFacts& facts, int64_t ipus, const Evaluate& evaluate);

//! Layers per IPU that minimise the costliest IPU: `fixed[i]` cycles IPU i runs whatever its layers,
//! `per_layer` cycles per layer, `layers` in all. Ties go to the split nearest an even one.
std::vector<int64_t> split_layers(const std::vector<double>& fixed, double per_layer, int64_t layers);

}  // namespace iputrain::api::tune
