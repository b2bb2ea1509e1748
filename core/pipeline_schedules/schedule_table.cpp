#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "core/pipeline_schedules/schedule_def.hpp"

namespace iputrain::pipeline_schedules {

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
  static const std::vector<const ScheduleDef*> table{
#define IPUTRAIN_SCHEDULE(kind) &k##kind##Schedule,
#include "core/pipeline_schedules/schedule_list.hpp"
#undef IPUTRAIN_SCHEDULE
  };
  return table;
}

const ScheduleDef& schedule_def(ScheduleKind kind) { return *schedule_table().at(static_cast<size_t>(kind)); }

const ScheduleDef& unpipelined_schedule() {
  static const ScheduleDef* const row = [] {
    const ScheduleDef* found = nullptr;
    for (const ScheduleDef* def : schedule_table()) {
      found = def->unpipelined ? def : found;
    }
    return found;
  }();
  return *row;
}

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

bool runs_recomputation(const ScheduleDef& def, std::string_view mode) {
  if (mode == "recompute_then_backpropagate") {
    return def.recompute_then_backpropagate;
  }
  if (mode == "recompute_and_backpropagate_interleaved") {
    return def.recompute_and_backpropagate_interleaved;
  }
  return true;
}

namespace {
namespace impl_schedule_table {

std::string join_names(const std::vector<std::string_view>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += i == 0 ? "" : (i + 1 == names.size() ? " and " : ", ");
    out += names[i];
  }
  return out;
}

}  // namespace impl_schedule_table
}  // namespace

std::string schedules_running(std::string_view mode) {
  std::vector<std::string_view> names;
  for (const ScheduleDef* def : schedule_table()) {
    if (runs_recomputation(*def, mode)) {
      names.push_back(def->name);
    }
  }
  return impl_schedule_table::join_names(names);
}

std::string schedule_list(bool (*pick)(const ScheduleDef&)) {
  std::vector<std::string_view> names;
  for (const ScheduleDef* def : schedule_table()) {
    if (pick(*def)) {
      names.push_back(def->name);
    }
  }
  return impl_schedule_table::join_names(names);
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

std::vector<Task> split_backward_order(int32_t i, int64_t warm, int64_t M, bool training) {
  std::vector<Task> seq;
  int64_t f = 0, b = 0, w = 0;
  auto F = [&] { seq.push_back({i, Work::Forward, f++}); };
  auto B = [&] { seq.push_back({i, Work::Backward, b++}); };
  auto W = [&] { seq.push_back({i, Work::BackwardWeights, w++}); };
  if (!training) {
    while (f < M) {
      F();
    }
    return seq;
  }
  while (f < warm) {
    F();
  }
  while (f < std::min<int64_t>(warm + i, M)) {
    B();
    F();
  }
  B();
  while (f < M) {
    W();
    F();
    B();
  }
  while (b < M) {
    W();
    B();
  }
  while (w < M) {
    W();
  }
  return seq;
}

namespace {
namespace impl_schedule_table {

using TaskKey = std::tuple<int32_t, Work, int64_t>;  // (position, phase, micro-batch)

// The task whose output `t` reads (a forward the previous position's, a backward the next
// position's or, at the last position, its own forward); position -1 when it reads none.
TaskKey input_of(const Task& t, int32_t positions) {
  const int32_t i = t.position;
  if (t.phase == Work::Forward) {
    return {i > 0 ? i - 1 : -1, Work::Forward, t.micro_batch};
  }
  if (t.phase == Work::Backward) {
    return i + 1 < positions ? TaskKey{i + 1, Work::Backward, t.micro_batch} : TaskKey{i, Work::Forward, t.micro_batch};
  }
  return {-1, Work::Forward, 0};  // W follows its own B on the same position, in order
}

}  // namespace impl_schedule_table
}  // namespace

Timeline place_as_soon_as_possible(const Pipeline& p, ScheduleKind kind, int64_t micro_batches,
                                   const std::vector<std::vector<Task>>& order) {
  const auto P = static_cast<int32_t>(p.positions.size());
  // One timestep per task: a task's step is after its position's previous task and after the
  // task it reads from.
  std::map<impl_schedule_table::TaskKey, int64_t> done;  // -> the timestep after it ran
  std::vector<size_t> next(static_cast<size_t>(P), 0);
  std::vector<int64_t> clock(static_cast<size_t>(P), 0);
  std::vector<std::pair<int64_t, Task>> placed;
  // Places the next tasks of position i until one waits for a task not placed yet.
  auto advance = [&](int32_t i) {
    bool moved = false;
    for (size_t& k = next[static_cast<size_t>(i)]; k < order[static_cast<size_t>(i)].size(); ++k) {
      const Task& t = order[static_cast<size_t>(i)][k];
      const impl_schedule_table::TaskKey in = impl_schedule_table::input_of(t, P);
      const auto it = done.find(in);
      if (std::get<0>(in) >= 0 && it == done.end()) {
        break;
      }
      const int64_t ready = std::max(clock[static_cast<size_t>(i)], std::get<0>(in) >= 0 ? it->second : 0);
      placed.emplace_back(ready, t);
      done[{i, t.phase, t.micro_batch}] = ready + 1;
      clock[static_cast<size_t>(i)] = ready + 1;
      moved = true;
    }
    return moved;
  };
  for (bool moved = true; moved;) {
    moved = false;
    for (int32_t i = 0; i < P; ++i) {
      moved = advance(i) || moved;
    }
  }
  Timeline out;
  out.kind = kind;
  out.micro_batches = micro_batches;
  const int64_t steps = *std::max_element(clock.begin(), clock.end());
  out.steps.assign(static_cast<size_t>(steps), std::vector<std::vector<Task>>(static_cast<size_t>(p.ipus_per_replica)));
  for (const auto& [step, task] : placed) {
    for (int32_t ipu : p.ipus_of_position(task.position)) {
      out.steps[static_cast<size_t>(step)][static_cast<size_t>(ipu)].push_back(task);
    }
  }
  return out;
}

double split_backward_bubble(const Pipeline& p, int64_t micro_batches, bool training) {
  const auto P = static_cast<double>(p.positions.size());
  const auto M = static_cast<double>(micro_batches);
  return training ? (P - 1) / (3 * M + P - 1) : (P - 1) / (M + P - 1);
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

}  // namespace iputrain::pipeline_schedules
