#include "core/optim_table.hpp"

#include <algorithm>
#include <string>

#include "iputrain/error.hpp"

namespace iputrain {

namespace {

// [0, 1): a decay factor; 1 would freeze the average at its start.
constexpr ParamRange kDecay{0, false, 1, true};
constexpr ParamRange kPositive{0, true};
constexpr ParamRange kNonNegative{0, false};

using S = OptimizerSettings;

}  // namespace

const std::vector<OptimizerParam>& optimizer_params() {
  static const std::vector<OptimizerParam> all = {
      {"momentum", "Momentum coefficient.", 0.9, kDecay, &S::momentum},
      {"use_nesterov", "Nesterov momentum.", 0, {}, nullptr, &S::use_nesterov},
      {"beta1", "Decay of the first-moment estimate.", 0.9, kDecay, &S::beta1},
      {"beta2", "Decay of the second-moment estimate.", 0.999, kDecay, &S::beta2},
      {"epsilon", "Added to denominators for stability.", 1e-8, kPositive, &S::epsilon},
      {"weight_decay", "Weight decay: L2 added to the gradient, decoupled for adamw, lamb and lion.", 0.0, kNonNegative,
       &S::weight_decay},
      {"rho", "Decay of the squared-gradient average.", 0.9, kDecay, &S::rho},
      {"centered", "Normalise by the gradient's estimated variance.", 0, {}, nullptr, &S::centered},
      {"initial_accumulator_value", "Starting value of the squared-gradient sums.", 0.1, kNonNegative,
       &S::initial_accumulator_value},
  };
  return all;
}

// One row per optimizer, in OptimizerKind order; update rules in docs/training.md.
const std::vector<OptimizerRow>& optimizer_table() {
  // clang-format off
  static const std::vector<OptimizerRow> all = {
      {OptimizerKind::Sgd, "sgd", 0, {{"weight_decay"}}},
      {OptimizerKind::Momentum, "momentum", 1, {{"momentum"}, {"use_nesterov"}, {"weight_decay"}}},
      {OptimizerKind::Adam, "adam", 2, {{"beta1"}, {"beta2"}, {"epsilon"}, {"weight_decay"}}},
      {OptimizerKind::AdamW, "adamw", 2, {{"beta1"}, {"beta2"}, {"epsilon"}, {"weight_decay"}}},
      {OptimizerKind::Lamb, "lamb", 2, {{"beta1"}, {"beta2"}, {"epsilon"}, {"weight_decay"}}},
      {OptimizerKind::RmsProp, "rmsprop", 1, {{"rho"}, {"centered"}, {"epsilon"}, {"weight_decay"}}, "centered"},
      {OptimizerKind::Adagrad, "adagrad", 1, {{"initial_accumulator_value"}, {"epsilon"}, {"weight_decay"}}},
      {OptimizerKind::Lion, "lion", 1, {{"beta1"}, {"beta2", 0.99}, {"weight_decay"}}},
  };
  // clang-format on
  return all;
}

bool OptimizerRow::reads(std::string_view param) const {
  return std::any_of(params.begin(), params.end(), [&](const ParamUse& u) { return u.name == param; });
}

double OptimizerRow::default_of(const OptimizerParam& param) const {
  for (const ParamUse& u : params) {
    if (u.name == param.name && u.default_value) {
      return *u.default_value;
    }
  }
  return param.default_value;
}

const OptimizerRow& optimizer_row(OptimizerKind kind) {
  const auto& rows = optimizer_table();
  const auto i = static_cast<size_t>(kind);
  // The rows are kept in enum order so that this is an index; a missing row is a bug.
  if (i >= rows.size() || rows[i].kind != kind) {
    throw Error(ErrorKind::Internal, "core/optim_table.cpp: an OptimizerKind without its row, or rows out of order");
  }
  return rows[i];
}

const OptimizerRow* find_optimizer(std::string_view name) {
  for (const OptimizerRow& r : optimizer_table()) {
    if (r.name == name) {
      return &r;
    }
  }
  return nullptr;
}

const OptimizerParam* find_optimizer_param(std::string_view name) {
  for (const OptimizerParam& p : optimizer_params()) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

int32_t optimizer_state_slots(const OptimizerSettings& o) {
  const OptimizerRow& row = optimizer_row(o.kind);
  if (row.extra_slot_flag.empty()) {
    return row.state_slots;
  }
  const OptimizerParam* flag = find_optimizer_param(row.extra_slot_flag);
  return row.state_slots + (flag != nullptr && flag->flag != nullptr && o.*(flag->flag) ? 1 : 0);
}

std::string name_of(OptimizerKind k) { return std::string(optimizer_row(k).name); }

}  // namespace iputrain
