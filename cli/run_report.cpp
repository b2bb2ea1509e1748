#include "cli/run_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace iputrain::cli {

namespace {

std::string bytes_str(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.2f} {}", v, units[u]);
}

std::string percent(double share) { return fmt::format("{:.0f}%", 100 * share); }

// Every replica runs the same programs, so one row per IPU of a replica (summed over replicas).
struct Row {
  double busy = 0, run = 0, sim_busy = 0, sim = 0;
  int64_t peak = 0, estimate = 0;
  int replicas = 0;
};

}  // namespace

std::string run_report_text(const RunReport& r, bool verbose) {
  if (r.ipus.empty() || r.updates == 0) {
    return {};
  }
  std::map<int32_t, Row> rows;
  int32_t replicas = 0;
  for (const IpuReport& ipu : r.ipus) {
    Row& row = rows[ipu.ipu];
    row.busy += ipu.busy_seconds;
    row.run += ipu.run_seconds;
    row.sim_busy += ipu.simulated_busy_cycles;
    row.sim += ipu.simulated_cycles;
    row.peak = std::max(row.peak, ipu.memory_peak);
    row.estimate = std::max(row.estimate, ipu.memory_estimate);
    ++row.replicas;
    replicas = std::max(replicas, ipu.replica + 1);
  }
  // The run's real time is the summary's (`trained ... in`): one figure, said once.
  std::string out = fmt::format(
      "run: {} virtual IPU{} ({} replica{} x {}); the {} updates take {:.4f} s on the simulated clocks "
      "({:.0f} cycles/update, planned {:.0f})\n",
      r.ipus.size(), r.ipus.size() == 1 ? "" : "s", replicas, replicas == 1 ? "" : "s", rows.size(), r.updates,
      r.simulated_seconds, r.simulated_cycles_per_update, r.planned_cycles_per_update);
  out += "  IPU  busy (all replicas)  utilisation real/simulated  memory peak measured / planned\n";
  constexpr size_t kMaxRows = 6;
  size_t shown = 0;
  for (const auto& [ipu, row] : rows) {
    if (shown++ == kMaxRows) {
      out += fmt::format("  ... {} more IPUs\n", rows.size() - kMaxRows);
      break;
    }
    out += fmt::format("  {:>3}  {:>17.2f} s  {:>11} / {:<12}  {} / {} ({})\n", ipu, row.busy,
                       percent(row.run > 0 ? row.busy / row.run : 0), percent(row.sim > 0 ? row.sim_busy / row.sim : 0),
                       bytes_str(row.peak), bytes_str(row.estimate),
                       row.estimate > 0 ? percent(static_cast<double>(row.peak) / static_cast<double>(row.estimate)) : "-");
  }
  // The plan's figure by default: the one `plan` and `tune` report. What this host measured varies
  // from run to run with the machine's load (2-17 % on one IPU, where the plan has none), so it is
  // shown only on request, named as measured.
  if (!verbose) {
    out +=
        fmt::format("bubble: {} of the IPUs' time idle in the pipeline, as planned (--verbose: measured, simulated)\n",
                    percent(r.planned_bubble));
  } else {
    out += fmt::format("bubble: {} planned, {} on the simulated clocks, {} analytic, {} measured on this host\n",
                       percent(r.planned_bubble), percent(r.simulated_bubble), percent(r.analytic_bubble),
                       percent(r.measured_bubble));
    out += fmt::format(
        "kernels: {} of {} executions kept kernels below 4M multiply-adds on their IPU's thread "
        "(engine.spread_kernels)\n",
        r.large_only_executions, r.executions);
  }
  return out;
}

}  // namespace iputrain::cli
