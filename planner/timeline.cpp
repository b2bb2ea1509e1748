#include "planner/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "iputrain/error.hpp"

namespace iputrain::planner {

std::string_view schedule_name(ScheduleKind kind) { return schedule_def(kind).name; }

Pipeline make_pipeline(const ir::Graph& g, const std::vector<int32_t>& device_mapping, bool single_ipu) {
  Pipeline p;
  const auto n = static_cast<int32_t>(g.stages.size());
  for (int32_t s = 0; s < n; ++s) {
    const int32_t group = g.stages[static_cast<size_t>(s)].group;
    const bool joins_previous = s > 0 && group >= 0 && g.stages[static_cast<size_t>(s - 1)].group == group;
    if (joins_previous) {
      p.positions.back().push_back(s);
    } else {
      p.positions.push_back({s});
    }
  }
  if (!device_mapping.empty()) {
    if (device_mapping.size() != static_cast<size_t>(n)) {
      throw Error(
          ErrorKind::Plan,
          fmt::format("pipeline.device_mapping has {} entries but the model has {} stages", device_mapping.size(), n),
          {}, "give one IPU index per stage, in model order");
    }
    p.stage_ipu = device_mapping;
  } else {
    p.stage_ipu.resize(static_cast<size_t>(n));
    for (int32_t s = 0; s < n; ++s) {
      p.stage_ipu[static_cast<size_t>(s)] = single_ipu ? 0 : s;
    }
  }
  for (int32_t ipu : p.stage_ipu) {
    if (ipu < 0) {
      throw Error(ErrorKind::Plan, fmt::format("pipeline.device_mapping names IPU {}", ipu), {},
                  "IPU indices start at 0");
    }
    p.ipus_per_replica = std::max(p.ipus_per_replica, ipu + 1);
  }
  return p;
}

AccumulationRule accumulation_rule(const Pipeline& p, ScheduleKind kind, bool training) {
  return schedule_def(kind).accumulation(static_cast<int64_t>(p.positions.size()), p.ipus_per_replica, training);
}

int64_t required_accumulation_multiple(const Pipeline& p, ScheduleKind kind, bool training) {
  return accumulation_rule(p, kind, training).minimum;
}

Timeline make_timeline(const Pipeline& p, ScheduleKind kind, int64_t micro_batches, bool training, int64_t slices) {
  const ScheduleDef& def = schedule_def(kind);
  return def.timeline(p, micro_batches, training, slices);
}

double analytic_bubble(const Pipeline& p, ScheduleKind kind, int64_t micro_batches, bool training) {
  return schedule_def(kind).bubble(p, micro_batches, training);
}

std::string timeline_str(const Pipeline& p, const Timeline& t) {
  const auto ipus = static_cast<size_t>(p.ipus_per_replica);
  std::vector<std::vector<std::string>> cells(ipus, std::vector<std::string>(t.steps.size(), "."));
  // Columns are as wide as the widest cell so that long cycles (F12B9) stay aligned.
  size_t width = 4;
  for (size_t step = 0; step < t.steps.size(); ++step) {
    for (size_t ipu = 0; ipu < ipus && ipu < t.steps[step].size(); ++ipu) {
      std::string cell;
      for (const Task& task : t.steps[step][ipu]) {
        cell += fmt::format("{}{}", work_letter(task.phase), task.micro_batch);
      }
      if (!cell.empty()) {
        cells[ipu][step] = cell;
        width = std::max(width, cell.size());
      }
    }
  }
  std::string out;
  for (size_t ipu = 0; ipu < ipus; ++ipu) {
    out += fmt::format("IPU {:<3}|", ipu);
    for (const std::string& cell : cells[ipu]) {
      out += fmt::format("{:<{}}|", cell, width + 1);
    }
    out += "\n";
  }
  return out;
}

}  // namespace iputrain::planner
