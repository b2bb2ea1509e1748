// The optimizer table: every optimizer's name, the state it keeps per weight and the
// hyper-parameters it reads, with their defaults and valid ranges — one row per optimizer.
//
// Every stage reads this one list: the config schema builds the `optimizer.*` keys from it (type,
// default, range, doc), the rules refuse a hyper-parameter the chosen optimizer does not read,
// resolve turns the config into OptimizerSettings with it, the planner's memory model counts the
// state slots, and the engine attaches one factory per row (engine/optim/optimizers.hpp). The
// table lives in core because the planner and the frontend must not depend on the engine.
//
// A new optimizer: its file in engine/optim/, its OptimizerKind, one row here, one factory line
// in engine/optim/optimizers.hpp, its agreement case (tests/engine/optim_test.cpp and
// bench/torch_agreement.py). A new hyper-parameter also needs its field in OptimizerSettings and
// OptimizerSection and its key line in frontend/config/keys_run.cpp.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "iputrain/settings.hpp"

namespace iputrain {

//! Accepted values of a float hyper-parameter (same meaning as config::Range).
struct ParamRange {
  double min = -std::numeric_limits<double>::infinity();
  bool min_open = false;  //!< true: value must be > min
  double max = std::numeric_limits<double>::infinity();
  bool max_open = false;  //!< true: value must be < max
};

//! A hyper-parameter of `[optimizer]`: key `optimizer.<name>`, field `<name>` of OptimizerSettings.
struct OptimizerParam {
  std::string_view name;                        //!< "beta1"
  std::string_view doc;                         //!< one line; the schema appends the optimizers that read it
  double default_value;                         //!< its default (0 or 1 for a flag), unless a row gives its own
  ParamRange range = {};                        //!< floats only
  double OptimizerSettings::*number = nullptr;  //!< the field of a float hyper-parameter
  bool OptimizerSettings::*flag = nullptr;      //!< the field of a boolean one
};

//! A hyper-parameter one optimizer reads, with that optimizer's own default if it differs.
struct ParamUse {
  std::string_view name;
  std::optional<double> default_value = {};
};

//! One optimizer.
struct OptimizerRow {
  OptimizerKind kind;
  std::string_view name;  //!< the value of `optimizer.type`
  int32_t state_slots;    //!< floats of state per weight element
  std::vector<ParamUse> params;
  //! A boolean hyper-parameter that adds one more state slot when on ("centered"), or "".
  std::string_view extra_slot_flag = {};

  //! True if this optimizer reads hyper-parameter `param`.
  bool reads(std::string_view param) const;
  //! This optimizer's default of `param` (its own, else the parameter's).
  double default_of(const OptimizerParam& param) const;
};

//! Every optimizer, in OptimizerKind order.
const std::vector<OptimizerRow>& optimizer_table();
//! Every hyper-parameter, in documentation order.
const std::vector<OptimizerParam>& optimizer_params();
//! The row of `kind`.
const OptimizerRow& optimizer_row(OptimizerKind kind);
//! The row named `name` (exact spelling), or nullptr.
const OptimizerRow* find_optimizer(std::string_view name);
//! The hyper-parameter named `name`, or nullptr.
const OptimizerParam* find_optimizer_param(std::string_view name);

//! Floats of optimizer state kept per weight element (each one a full copy of the weights' size),
//! for the planner's memory model and the engine (make_optimizer gives each optimizer its row's count).
int32_t optimizer_state_slots(const OptimizerSettings& o);

}  // namespace iputrain
