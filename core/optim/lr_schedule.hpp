// Learning-rate schedules: the rate of each weight update, from `optimizer.learning_rate`,
// `lr_schedule`, `warmup_steps` and the keys the chosen schedule reads (`decay_steps`,
// `decay_rate`, `min_learning_rate`).
//
// With t = step - 1 updates already done and W = warmup_steps:
//   t < W        lr0 * (t + 1) / W                      (linear warmup, reaching lr0 at update W)
//   otherwise    the schedule at s = t - W (the decay starts where the warmup ends)
//
// The schedules are one table: each file of this folder named lr_<name>.cpp defines one row
// (LrScheduleDef: its name, formula, the keys it reads and its rate), and lr_schedule_list.hpp lists
// them. The config's spellings of `optimizer.lr_schedule`, its rules (a key set for a schedule that
// does not read it, `decay_steps` missing, a floor not below the rate) and the keys' docs are
// generated from the rows: adding a schedule is its file and its line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "iputrain/settings.hpp"

namespace iputrain::optim {

//! One learning-rate schedule: its row of the table.
struct LrScheduleDef {
  std::string_view name;     //!< the value of `optimizer.lr_schedule`
  std::string_view formula;  //!< the rate at s updates after the warmup, for docs and `config explain`
  //! The schedule keys it reads, of decay_steps, decay_rate and min_learning_rate (a schedule that
  //! reads decay_steps needs it; one that reads min_learning_rate decays to it, below the rate).
  std::vector<std::string_view> reads;
  //! What `decay_steps` counts for it (the hint when it is missing); empty when it reads none.
  std::string_view decay_steps_means;
  //! The rate s updates after the warmup (s >= 0); decay_steps >= 1 when the schedule reads it.
  double (*rate)(const Settings& run, double s);

  bool reads_key(std::string_view key) const;
};

//! Every schedule, in the order of lr_schedule_list.hpp (`optimizer.lr_schedule`'s spellings).
const std::vector<const LrScheduleDef*>& lr_schedule_table();
//! The schedules' names, in the table's order.
std::vector<std::string> lr_schedule_names();
//! The schedule named `name`, or nullptr.
const LrScheduleDef* find_lr_schedule(std::string_view name);
//! The names of the schedules that read `key` (decay_steps, decay_rate, min_learning_rate).
std::vector<std::string> lr_schedules_reading(std::string_view key);

//! The learning rate of weight update number `step` (1-based).
float learning_rate_at(const Settings& run, int64_t step);

}  // namespace iputrain::optim
