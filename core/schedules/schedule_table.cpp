#include <algorithm>
#include <set>

#include "core/schedules/schedule_def.hpp"

namespace iputrain::planner {

char work_letter(Work w) {
  switch (w) {
    case Work::Forward:
      return 'F';
    case Work::Recompute:
      return 'R';
    case Work::Backward:
      return 'B';
    case Work::BackwardWeights:
      return 'W';
  }
  return '?';
}

std::vector<int32_t> Pipeline::ipus_of_position(int32_t position) const {
  std::set<int32_t> ipus;
  for (int32_t s : positions[static_cast<size_t>(position)]) {
    ipus.insert(stage_ipu[static_cast<size_t>(s)]);
  }
  return {ipus.begin(), ipus.end()};
}

const std::vector<const ScheduleDef*>& schedule_table() {
  static const std::vector<const ScheduleDef*> table{&kGroupedSchedule, &kInterleavedSchedule, &kSequentialSchedule,
                                                     &kZeroBubbleSchedule};
  return table;
}

const ScheduleDef& schedule_def(ScheduleKind kind) { return *schedule_table().at(static_cast<size_t>(kind)); }

const ScheduleDef* find_schedule(std::string_view name) {
  for (const ScheduleDef* def : schedule_table()) {
    if (def->name == name) {
      return def;
    }
  }
  return nullptr;
}

std::vector<std::string> schedule_names() {
  std::vector<std::string> names;
  for (const ScheduleDef* def : schedule_table()) {
    names.emplace_back(def->name);
  }
  return names;
}

std::vector<std::pair<int32_t, Work>> stage_list(const Pipeline& p, bool training) {
  std::vector<std::pair<int32_t, Work>> t;
  const auto n = static_cast<int32_t>(p.positions.size());
  for (int32_t i = 0; i < n; ++i) {
    t.emplace_back(i, Work::Forward);
  }
  if (training) {
    for (int32_t i = n - 1; i >= 0; --i) {
      t.emplace_back(i, Work::Backward);
    }
  }
  return t;
}

Timeline place_stage_list(const Pipeline& p, ScheduleKind kind, int64_t micro_batches, bool training,
                          int64_t (*step)(int64_t m, int64_t j, int64_t len, int64_t slices), int64_t slices) {
  const auto t = stage_list(p, training);
  const auto len = static_cast<int64_t>(t.size());
  Timeline out;
  out.kind = kind;
  out.micro_batches = micro_batches;
  int64_t last = 0;
  for (int64_t m = 0; m < micro_batches; ++m) {
    last = std::max(last, step(m, len - 1, len, slices));
  }
  out.steps.assign(static_cast<size_t>(last + 1),
                   std::vector<std::vector<Task>>(static_cast<size_t>(p.ipus_per_replica)));
  for (int64_t m = 0; m < micro_batches; ++m) {
    for (int64_t j = 0; j < len; ++j) {
      const auto [position, phase] = t[static_cast<size_t>(j)];
      // Every stage of a position runs at the same timestep; a task per distinct IPU it touches.
      for (int32_t ipu : p.ipus_of_position(position)) {
        out.steps[static_cast<size_t>(step(m, j, len, slices))][static_cast<size_t>(ipu)].push_back(
            {position, phase, m});
      }
    }
  }
  return out;
}

double fill_drain_bubble(const Pipeline& p, int64_t micro_batches, bool /*training*/) {
  // An IPU that holds v chunks (stages mapped round-robin) makes the pipeline a loop of
  // runs / v IPU groups traversed v times.
  std::vector<std::vector<int32_t>> ipus_of;
  for (size_t pos = 0; pos < p.positions.size(); ++pos) {
    std::vector<int32_t> ipus = p.ipus_of_position(static_cast<int32_t>(pos));
    if (ipus_of.empty() || ipus_of.back() != ipus) {
      ipus_of.push_back(std::move(ipus));
    }
  }
  std::vector<int32_t> chunks(static_cast<size_t>(p.ipus_per_replica), 0);
  for (const auto& ipus : ipus_of) {
    for (int32_t ipu : ipus) {
      ++chunks[static_cast<size_t>(ipu)];
    }
  }
  const double loops = std::max(1, *std::max_element(chunks.begin(), chunks.end()));
  const double depth = static_cast<double>(ipus_of.size()) / loops;
  return (depth - 1.0) / (loops * static_cast<double>(micro_batches) + depth - 1.0);
}

}  // namespace iputrain::planner
