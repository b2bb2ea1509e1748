#include "core/optim/lr_schedule.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "iputrain/error.hpp"

namespace iputrain::optim {

#define IPUTRAIN_LR_SCHEDULE(Name) extern const LrScheduleDef k##Name##Schedule;
#include "core/optim/lr_schedule_list.hpp"
#undef IPUTRAIN_LR_SCHEDULE

bool LrScheduleDef::reads_key(std::string_view key) const {
  return std::find(reads.begin(), reads.end(), key) != reads.end();
}

const std::vector<const LrScheduleDef*>& lr_schedule_table() {
  static const std::vector<const LrScheduleDef*> table = {
#define IPUTRAIN_LR_SCHEDULE(Name) &k##Name##Schedule,
#include "core/optim/lr_schedule_list.hpp"
#undef IPUTRAIN_LR_SCHEDULE
  };
  return table;
}

std::vector<std::string> lr_schedule_names() {
  std::vector<std::string> out;
  for (const LrScheduleDef* def : lr_schedule_table()) {
    out.emplace_back(def->name);
  }
  return out;
}

const LrScheduleDef* find_lr_schedule(std::string_view name) {
  for (const LrScheduleDef* def : lr_schedule_table()) {
    if (def->name == name) {
      return def;
    }
  }
  return nullptr;
}

std::vector<std::string> lr_schedules_reading(std::string_view key) {
  std::vector<std::string> out;
  for (const LrScheduleDef* def : lr_schedule_table()) {
    if (def->reads_key(key)) {
      out.emplace_back(def->name);
    }
  }
  return out;
}

float learning_rate_at(const Settings& run, int64_t step) {
  const int64_t done = std::max<int64_t>(0, step - 1);
  if (done < run.plain.optimizer_warmup_steps) {
    return static_cast<float>(run.plain.optimizer_learning_rate * static_cast<double>(done + 1) /
                              static_cast<double>(run.plain.optimizer_warmup_steps));
  }
  const LrScheduleDef* def = find_lr_schedule(run.plain.optimizer_lr_schedule);
  if (def == nullptr) {  // a Config built in code (the loader admits the table's names only)
    run.keys.fail_at("optimizer.lr_schedule",
                     fmt::format("no learning-rate schedule is named \"{}\"", run.plain.optimizer_lr_schedule),
                     fmt::format("name one of: {}", fmt::join(lr_schedule_names(), ", ")));
  }
  return static_cast<float>(def->rate(run, static_cast<double>(done - run.plain.optimizer_warmup_steps)));
}

}  // namespace iputrain::optim
