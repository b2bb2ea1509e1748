// The Recorder's Chrome trace and the overlap / bubble figures, on hand-made events with known
// answers.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>

#include "engine/cluster/recorder.hpp"
#include "engine/cluster/trace_analysis.hpp"
#include "iputrain/error.hpp"

using iputrain::engine::measured_bubble;
using iputrain::engine::overlap_fraction;
using iputrain::engine::pairwise_compute_overlap;
using iputrain::engine::Recorder;
using iputrain::engine::TimeBase;
using iputrain::engine::TraceEvent;
using Kind = iputrain::planner::InstrKind;

namespace {

TraceEvent ev(Kind kind, int32_t stage, int64_t mb, int64_t update, double b, double e, double sb = 0,
              double se = 0) {
  TraceEvent t;
  t.kind = kind;
  t.stage = stage;
  t.micro_batch = mb;
  t.update = update;
  t.real_begin_us = b;
  t.real_end_us = e;
  t.sim_begin_cycles = sb;
  t.sim_end_cycles = se;
  return t;
}

std::filesystem::path temp_dir() {
  return std::filesystem::temp_directory_path() / ("iputrain_trace_test." + std::to_string(::getpid()));
}

// Removes this process's folder when the test program ends.
struct TempDirCleanup {
  ~TempDirCleanup() {
    std::error_code ec;
    std::filesystem::remove_all(temp_dir(), ec);
  }
} cleanup_at_exit;

std::string temp(const std::string& name) {
  // One folder per process: ctest runs the cases of this file in parallel, and the "no temporary
  // file left" check must not see another case's write in flight.
  const auto dir = temp_dir();
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());  // throws (fails the test) on invalid JSON
}

// Two IPUs running a 2-stage pipeline of 2 micro-batches, an infeed track without a simulated
// clock, memory samples on IPU 0.
Recorder two_stage() {
  Recorder rec(2, 1, true);
  rec.track(0).name = "IPU 0 (replica 0, ipu 0)";
  rec.track(1).name = "IPU 1 (replica 0, ipu 1)";
  rec.track(2).name = "infeed replica 0";
  auto& a = rec.track(0).events;
  a.push_back(ev(Kind::Forward, 0, 0, 0, 0, 10, 0, 1000));
  a.push_back(ev(Kind::Send, -1, 0, 0, 10, 11, 1000, 1100));
  a.push_back(ev(Kind::Forward, 0, 1, 0, 11, 21, 1100, 2100));
  a.push_back(ev(Kind::UpdateWeights, -1, -1, 0, 40, 42, 4000, 4200));
  auto& b = rec.track(1).events;
  b.push_back(ev(Kind::Recv, -1, 0, 0, 10, 11, 1000, 1100));
  b.push_back(ev(Kind::Forward, 1, 0, 0, 11, 20, 1100, 2000));
  b.push_back(ev(Kind::Backward, 1, 0, 0, 20, 30, 2000, 3000));
  rec.track(2).events.push_back(ev(Kind::Infeed, -1, 0, 0, 0, 0.5));
  rec.track(0).memory.push_back({0, 1000});
  rec.track(0).memory.push_back({10.5, 3000});
  return rec;
}

}  // namespace

TEST_CASE("the Chrome trace has both clocks, one named thread per track, slices and counters") {
  const std::string path = temp("two_stage.json");
  two_stage().write_chrome_trace(path, 1e9);  // 1 GHz: 1000 cycles = 1 us
  const nlohmann::json j = read_json(path);
  REQUIRE(j.contains("traceEvents"));
  REQUIRE(j["traceEvents"].is_array());

  std::map<std::pair<int, int>, std::string> threads;
  std::map<int, std::string> processes;
  std::map<int, int> slices_per_pid;
  std::set<std::string> counters;
  bool saw_f01_real = false;
  bool saw_f01_sim = false;
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e.at("ph");
    const int pid = e.at("pid");
    if (ph == "M" && e["name"] == "process_name") {
      processes[pid] = e["args"]["name"];
    } else if (ph == "M" && e["name"] == "thread_name") {
      threads[{pid, e["tid"].get<int>()}] = e["args"]["name"];
    } else if (ph == "X") {
      CHECK(e.at("ts").is_number());
      CHECK(e.at("dur").get<double>() >= 0);
      CHECK(e.contains("tid"));
      CHECK(e["args"].contains("update"));
      slices_per_pid[pid] += 1;
      if (e["name"] == "F0.m1") {
        CHECK(e["cat"] == "forward");
        CHECK(e["args"]["stage"] == 0);
        CHECK(e["args"]["micro_batch"] == 1);
        CHECK(e["args"]["update"] == 0);
        if (pid == 1) {
          saw_f01_real = true;
          CHECK(e["ts"].get<double>() == doctest::Approx(11));
          CHECK(e["dur"].get<double>() == doctest::Approx(10));
        } else {
          saw_f01_sim = true;
          CHECK(e["ts"].get<double>() == doctest::Approx(1.1));
          CHECK(e["dur"].get<double>() == doctest::Approx(1.0));
        }
      }
      if (e["name"] == "update") {
        CHECK_FALSE(e["args"].contains("stage"));
        CHECK_FALSE(e["args"].contains("micro_batch"));
      }
    } else if (ph == "C") {
      counters.insert(e["name"]);
      CHECK(e["args"].contains("bytes"));
      CHECK(pid == 1);
    }
  }
  CHECK(processes[1] == "real time");
  CHECK(processes[2] == "simulated IPU time");
  CHECK(threads[{1, 1}] == "IPU 0 (replica 0, ipu 0)");
  CHECK(threads[{1, 2}] == "IPU 1 (replica 0, ipu 1)");
  CHECK(threads[{1, 3}] == "infeed replica 0");
  CHECK(threads[{2, 1}] == "IPU 0 (replica 0, ipu 0)");
  // The infeed has no simulated clock, so it is only on the real-time process.
  CHECK(threads.count({2, 3}) == 0);
  CHECK(slices_per_pid[1] == 8);
  CHECK(slices_per_pid[2] == 7);
  CHECK(saw_f01_real);
  CHECK(saw_f01_sim);
  CHECK(counters == std::set<std::string>{"IPU 0 (replica 0, ipu 0) memory"});
  CHECK(j["otherData"]["truncated"] == false);
  CHECK(j["otherData"]["updates_written"] == 1);
  // Written atomically: no temporary file is left next to it.
  for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
    CHECK(f.path().filename().string().find(".tmp.") == std::string::npos);
  }
}

TEST_CASE("a trace over the event limit keeps the first updates and says so") {
  Recorder rec(1, 0, true);
  for (int64_t u = 0; u < 10; ++u) {
    for (int64_t m = 0; m < 4; ++m) {
      const double t = static_cast<double>(u * 100 + m * 10);
      rec.track(0).events.push_back(ev(Kind::Forward, 0, m, u, t, t + 5, t, t + 5));
    }
    rec.track(0).memory.push_back({static_cast<double>(u * 100), 10 * u});
  }
  // 8 slices (both clocks) + 1 counter per update: 3 updates fit in 30 events.
  const std::string path = temp("truncated.json");
  rec.write_chrome_trace(path, 1e6, 30);
  const nlohmann::json j = read_json(path);
  int64_t max_update = -1;
  int slices = 0;
  int samples = 0;
  bool labelled = false;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") {
      max_update = std::max<int64_t>(max_update, e["args"]["update"]);
      ++slices;
    } else if (e["ph"] == "C") {
      ++samples;
    } else if (e["ph"] == "M" && e["name"] == "process_labels") {
      labelled = std::string(e["args"]["labels"]).find("first 3 of 10 updates") != std::string::npos;
    }
  }
  CHECK(max_update == 2);
  CHECK(slices == 24);
  CHECK(samples == 3);
  CHECK(labelled);
  CHECK(j["otherData"]["truncated"] == true);
  CHECK(j["otherData"]["updates_written"] == 3);
  CHECK(j["otherData"]["updates_recorded"] == 10);

  rec.write_chrome_trace(path, 1e6);  // the default limit keeps everything
  CHECK(read_json(path)["otherData"]["truncated"] == false);

  // pipeline.name labels both clocks' processes.
  rec.write_chrome_trace(path, 1e6, 30, "bert-phase1");
  int named = 0;
  const nlohmann::json labelled_trace = read_json(path);
  for (const auto& e : labelled_trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_labels") {
      const std::string labels = e["args"]["labels"];
      named += labels.find("pipeline bert-phase1, first 3 of 10 updates") != std::string::npos ? 1 : 0;
    }
  }
  CHECK(named == 2);
}

TEST_CASE("writing a trace into a missing folder is an I/O error") {
  CHECK_THROWS_AS(two_stage().write_chrome_trace("/nonexistent-dir/x/trace.json", 1e9), iputrain::Error);
}

TEST_CASE("compute overlap between IPU tracks, in real and simulated time") {
  const Recorder rec = two_stage();
  // Real time: IPU 0 computes [0,10) and [11,21), IPU 1 computes [11,30): they share [11,21).
  const auto pairs = pairwise_compute_overlap(rec);
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].a == 0);
  CHECK(pairs[0].b == 1);
  CHECK(pairs[0].overlap == doctest::Approx(10));
  // Window [0,30): 10 of 30 with two IPUs busy.
  CHECK(overlap_fraction(rec).value() == doctest::Approx(10.0 / 30.0));
  // Busy 20 + 19 over 2 x 30.
  CHECK(measured_bubble(rec).value() == doctest::Approx(1.0 - 39.0 / 60.0));

  // Simulated: IPU 0 [0,1000) [1100,2100), IPU 1 [1100,3000): shared 1000 of 3000.
  CHECK(pairwise_compute_overlap(rec, TimeBase::Simulated)[0].overlap == doctest::Approx(1000));
  CHECK(overlap_fraction(rec, TimeBase::Simulated).value() == doctest::Approx(1.0 / 3.0));
  CHECK(measured_bubble(rec, TimeBase::Simulated).value() == doctest::Approx(1.0 - 3900.0 / 6000.0));
}

TEST_CASE("sequential work has no overlap and the bubble counts only each update window") {
  Recorder rec(3, 0, true);
  // Update 0: IPU 0 then IPU 1 then IPU 2, each 10 us, back to back (touching, not overlapping).
  // Update 1, long after: all three at once for 5 us. The gap between updates is not bubble.
  for (int32_t i = 0; i < 3; ++i) {
    rec.track(i).events.push_back(ev(Kind::Forward, i, 0, 0, 10.0 * i, 10.0 * i + 10));
    rec.track(i).events.push_back(ev(Kind::Backward, i, 0, 1, 1000, 1005));
    rec.track(i).events.push_back(ev(Kind::Send, -1, 0, 1, 1005, 1500));  // not compute
  }
  const auto pairs = pairwise_compute_overlap(rec);
  REQUIRE(pairs.size() == 3);
  for (const auto& p : pairs) {
    CHECK(p.overlap == doctest::Approx(5));  // only update 1
  }
  // Windows: [0,30) and [1000,1005); two or more busy only in the second.
  CHECK(overlap_fraction(rec).value() == doctest::Approx(5.0 / 35.0));
  // Busy 3 x 10 + 3 x 5 = 45 over 3 x 35.
  CHECK(measured_bubble(rec).value() == doctest::Approx(1.0 - 45.0 / 105.0));
}

TEST_CASE("no recorded compute gives no figures") {
  Recorder rec(2, 1, false);
  CHECK_FALSE(overlap_fraction(rec).has_value());
  CHECK_FALSE(measured_bubble(rec).has_value());
  CHECK(pairwise_compute_overlap(rec)[0].overlap == 0);
  CHECK(rec.track(0).name == "IPU 0");
  CHECK(rec.track(2).name == "feed 0");
  const double t0 = rec.now_us();
  CHECK(t0 >= 0);
  CHECK(rec.now_us() >= t0);
}
