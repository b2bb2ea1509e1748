#include "engine/profile_report.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <system_error>

#include "core/write_file.hpp"
#include "planner/cost_model.hpp"
#include "planner/report/report.hpp"
#include "planner/report/svg.hpp"

namespace iputrain::engine {

namespace fs = std::filesystem;

namespace {

// <model>-<yyyymmdd-hhmmss>, with -2, -3, … when a run of the same second already wrote one.
fs::path run_directory(const fs::path& base, const std::string& model) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  const std::string name = fmt::format("{}-{}", model, stamp);
  fs::path dir = base / name;
  for (int k = 2; fs::exists(dir); ++k) {
    dir = base / fmt::format("{}-{}", name, k);
  }
  return dir;
}

bool kept(const Settings& s, int64_t update, int64_t per_execution) {
  const int64_t execution = update / std::max<int64_t>(1, per_execution);
  const int64_t every = s.plain.profiling_report_every_nth_execution;
  return every == 0 ? execution == 0 : execution % every == 0;
}

std::string cycles_csv(const planner::Plan& plan, const SourceManager* sources) {
  const ir::Graph& g = plan.graph;
  std::string out = "stage,pass,ipu,op,source,cycles\n";
  for (ir::ValueId id : plan.program()) {
    const ir::Node& n = g.node(id);
    const double cycles = planner::op_cycles(g, id, plan.decided.device);
    if (cycles <= 0) {
      continue;
    }
    const std::string stage =
        n.stage >= 0 && static_cast<size_t>(n.stage) < g.stages.size() ? g.stages[static_cast<size_t>(n.stage)].name : "";
    const int32_t ipu = n.stage >= 0 && static_cast<size_t>(n.stage) < plan.placement.pipeline.stage_ipu.size()
                            ? plan.placement.pipeline.stage_ipu[static_cast<size_t>(n.stage)]
                            : 0;
    std::string where;
    if (n.span.valid()) {
      const bool named = sources != nullptr && n.span.file < sources->size();
      where = fmt::format("{}:{}:{}", named ? sources->path(n.span.file) : "?", n.span.line, n.span.col);
    }
    out += fmt::format("{},{},{},{},{},{:.0f}\n", stage, n.phase == ir::Phase::Forward ? "forward" : "backward", ipu,
                       ir::op_def(n.op).name, where, cycles);
  }
  return out;
}

std::string report_json(const RunReport& r) {
  std::string ipus;
  for (const IpuReport& i : r.ipus) {
    ipus += fmt::format(
        "{}\n    {{\"physical\": {}, \"replica\": {}, \"ipu\": {}, \"busy_seconds\": {:.6f}, \"run_seconds\": {:.6f}, "
        "\"simulated_cycles\": {:.0f}, \"simulated_busy_cycles\": {:.0f}, \"memory_peak\": {}, "
        "\"memory_planned\": {}, \"memory_capacity\": {}}}",
        ipus.empty() ? "" : ",", i.physical, i.replica, i.ipu, i.busy_seconds, i.run_seconds, i.simulated_cycles,
        i.simulated_busy_cycles, i.memory_peak, i.memory_estimate, i.memory_capacity);
  }
  return fmt::format(
      "{{\n  \"updates\": {},\n  \"real_seconds\": {:.6f},\n  \"simulated_seconds\": {:.9f},\n"
      "  \"simulated_cycles_per_update\": {:.0f},\n  \"planned_cycles_per_update\": {:.0f},\n"
      "  \"measured_bubble\": {:.4f},\n  \"simulated_bubble\": {:.4f},\n  \"planned_bubble\": {:.4f},\n"
      "  \"analytic_bubble\": {:.4f},\n  \"ipus\": [{}\n  ]\n}}\n",
      r.updates, r.real_seconds, r.simulated_seconds, r.simulated_cycles_per_update, r.planned_cycles_per_update,
      r.measured_bubble, r.simulated_bubble, r.planned_bubble, r.analytic_bubble, ipus);
}

std::string events_csv(const Recorder& recorder, const Settings& s, int64_t per_execution) {
  std::string out = "track,instruction,stage,micro_batch,update,real_begin_us,real_end_us,sim_begin_cycles,sim_end_cycles\n";
  for (const Track& t : recorder.tracks()) {
    for (const TraceEvent& e : t.events) {
      if (!kept(s, e.update, per_execution)) {
        continue;
      }
      out += fmt::format("\"{}\",{},{},{},{},{:.3f},{:.3f},{:.0f},{:.0f}\n", t.name, planner::instr_kind_name(e.kind),
                         e.stage, e.micro_batch, e.update, e.real_begin_us, e.real_end_us, e.sim_begin_cycles,
                         e.sim_end_cycles);
    }
  }
  return out;
}

class ProfileWriter {
 public:
  ProfileWriter(fs::path dir, int64_t limit) : dir_(std::move(dir)), limit_(limit) {}

  void file(const std::string& name, const std::string& text) {
    if (static_cast<int64_t>(text.size()) > limit_) {
      omitted_ += fmt::format("{}: {} bytes, over profiling.max_report_size = {}\n", name, text.size(), limit_);
      return;
    }
    write_file_atomically((dir_ / name).string(), text);
  }
  //! A file written by someone else (the Chrome trace): removed again when it is too large.
  void written(const std::string& name) {
    const fs::path p = dir_ / name;
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (!ec && static_cast<int64_t>(size) > limit_) {
      fs::remove(p, ec);
      omitted_ += fmt::format("{}: {} bytes, over profiling.max_report_size = {}\n", name, size, limit_);
    }
  }
  void finish() {
    if (!omitted_.empty()) {
      write_file_atomically((dir_ / "omitted.txt").string(), omitted_);
    }
  }

 private:
  fs::path dir_;
  int64_t limit_;
  std::string omitted_;
};

}  // namespace

void write_executable(const planner::Plan& plan, const std::string& model, const std::string& folder) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    throw Error(ErrorKind::Io, fmt::format("cannot make {}: {}", folder, ec.message()), {},
                "set `ipu.serialization_output_folder` to a directory you can write");
  }
  std::string programs;
  for (size_t ipu = 0; ipu < plan.programs.ipus.size(); ++ipu) {
    programs += fmt::format("ipu {}:\n", ipu);
    for (const planner::Instr& in : plan.programs.ipus[ipu]) {
      programs += fmt::format("  {}\n", in.str(plan.programs));
    }
  }
  write_file_atomically((fs::path(folder) / (model + ".plan.json")).string(), planner::plan_json(plan, model));
  write_file_atomically((fs::path(folder) / (model + ".programs.txt")).string(), programs);
}

std::string write_profile(const ProfileRun& run) {
  const Settings& s = run.plan.settings;
  const std::string& folder = s.plain.profiling_report_directory;
  const fs::path base = folder.empty() ? fs::current_path() : fs::path(folder);
  const fs::path dir = run_directory(base, run.model);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw Error(ErrorKind::Io, fmt::format("cannot make the profile directory {}: {}", dir.string(), ec.message()), {},
                "set `profiling.report_directory` to a directory you can write");
  }
  ProfileWriter w(dir, s.plain.profiling_max_report_size);
  if (s.plain.profiling_enabled) {
    w.file("index.html", planner::plan_html(run.plan, run.model, run.sources, run.config_toml));
    w.file("plan.json", planner::plan_json(run.plan, run.model));
    w.file("plan.txt", planner::plan_text(run.plan, run.model));
    w.file("memory.svg", planner::memory_svg(run.plan));
    w.file("schedule.svg", planner::gantt_svg(run.plan));
    w.file("cycles.csv", cycles_csv(run.plan, run.sources));
    w.file("run_report.json", report_json(run.report));
    if (s.plain.profiling_profile_execution != ProfileExecution::NoProfile) {
      Recorder kept_only = run.recorder;
      for (int32_t i = 0; i < static_cast<int32_t>(kept_only.tracks().size()); ++i) {
        auto& events = kept_only.track(i).events;
        std::erase_if(events, [&](const TraceEvent& e) { return !kept(s, e.update, run.updates_per_execution); });
      }
      kept_only.write_chrome_trace((dir / "execution.json").string(), run.plan.decided.device.clock_hz,
                                   Recorder::kMaxTraceEvents, s.plain.pipeline_name);
      w.written("execution.json");
    }
  }
  if (s.plain.profiling_enable_ipu_events) {
    w.file("events.csv", events_csv(run.recorder, s, run.updates_per_execution));
  }
  w.finish();
  return dir.string();
}

}  // namespace iputrain::engine
