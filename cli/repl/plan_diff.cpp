#include "cli/repl/plan_diff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>


namespace iputrain::repl {

namespace {

struct Row {
  std::string field;
  std::string before;
  std::string after;
};

std::string placement_str(const Plan& p) {
  std::vector<std::string> parts;
  for (const PlanStage& s : p.stages()) {
    parts.push_back(fmt::format("{}:{}", s.name, s.ipu));
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string peak_str(const Plan& p, size_t ipu) {
  const std::vector<PlanMemory> m = p.memory();
  return ipu < m.size() ? format_bytes(m[ipu].total_peak) : "-";
}

}  // namespace

std::string plan_diff(const Plan& a, const Plan& b) {
  std::vector<Row> rows;
  rows.push_back({"replicas x IPUs", fmt::format("{} x {}", a.replicas(), a.ipus_per_replica()),
                  fmt::format("{} x {}", b.replicas(), b.ipus_per_replica())});
  rows.push_back({"schedule", a.schedule(), b.schedule()});
  rows.push_back({"accumulation", std::to_string(a.accumulation_count()), std::to_string(b.accumulation_count())});
  rows.push_back({"global batch", std::to_string(a.global_batch()), std::to_string(b.global_batch())});
  rows.push_back({"placement", placement_str(a), placement_str(b)});
  const size_t ipus = std::max(a.memory().size(), b.memory().size());
  for (size_t i = 0; i < ipus; ++i) {
    rows.push_back({fmt::format("peak memory IPU {}", i), peak_str(a, i), peak_str(b, i)});
  }
  rows.push_back({"bubble", fmt::format("{:.1f}%", 100 * a.bubble_fraction()),
                  fmt::format("{:.1f}%", 100 * b.bubble_fraction())});
  const double sa = a.samples_per_second();
  const double sb = b.samples_per_second();
  std::string after = fmt::format("{:.0f}", sb);
  if (sa > 0 && sa != sb) {
    after += fmt::format(" ({:+.1f}%)", 100 * (sb - sa) / sa);
  }
  rows.push_back({"samples/s (predicted)", fmt::format("{:.0f}", sa), after});

  size_t width = 0;
  for (const Row& r : rows) {
    width = std::max(width, r.field.size());
  }
  std::string out;
  for (const Row& r : rows) {
    if (r.before == r.after) {
      out += fmt::format("  {:<{}}  {} (unchanged)\n", r.field, width, r.before);
    } else {
      out += fmt::format("  {:<{}}  {} -> {}\n", r.field, width, r.before, r.after);
    }
  }
  return out;
}

}  // namespace iputrain::repl
