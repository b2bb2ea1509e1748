// The plan's SVG figures: well-formed XML (xmllint), rendered by a Debian tool (rsvg-convert) to a
// PNG of the declared size, one box per task, and a layout that agrees with the cycle simulator.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "frontend/model_access.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/model.hpp"
#include "planner/report/report.hpp"
#include "planner/report/svg.hpp"
#include "planner/report/svg_writer.hpp"
#include "planner/simulate.hpp"
#include "tests/planner/plan_from_config.hpp"
#include "tests/regex_util.hpp"

using namespace iputrain;
using namespace iputrain::planner;
namespace fs = std::filesystem;

namespace {

// A chain of dense layers, one per stage; the last stage holds the classifier and the loss.
std::string mlp(int stages) {
  std::string body;
  std::string in = "x";
  for (int s = 0; s + 1 < stages; ++s) {
    body += fmt::format("  stage s{0} {{ h{0} = nn.dense({1}, 16, activation = relu) }}\n", s, in);
    in = fmt::format("h{}", s);
  }
  body += fmt::format(
      "  stage s{} {{\n    logits = nn.dense({}, 4)\n    loss = mean(softmax_cross_entropy(logits, y))\n  "
      "}}\n",
      stages - 1, in);
  return "import nn\nmodel mlp(batch: int = 4) {\n  input x: f32[batch, 16]\n  input y: i32[batch]\n" + body +
         "  minimize loss\n  output loss\n}\n";
}

Plan plan_for(int stages, const std::string& config) {
  return make_plan(graph_of(Model::parse(mlp(stages))), config::parse(config));
}

Plan four_stage(const std::string& schedule, int64_t accumulation = 8) {
  return plan_for(4, fmt::format("[ipu]\nauto_select_ipus = 4\n[pipeline]\nschedule = \"{}\"\n"
                                 "gradient_accumulation_count = {}\n",
                                 schedule, accumulation));
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

size_t count_instrs(const Plan& plan, InstrKind kind) {
  size_t n = 0;
  for (const auto& program : plan.programs.ipus) {
    n += static_cast<size_t>(
        std::count_if(program.begin(), program.end(), [&](const Instr& in) { return in.kind == kind; }));
  }
  return n;
}

bool have_tool(const std::string& name) {
  return std::system(fmt::format("command -v {} >/dev/null 2>&1", name).c_str()) == 0;
}

// A fresh directory for one test's files, removed when the test ends.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / fmt::format("iputrain-svg-{}-{}", name, ::getpid())) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

int attribute(const std::string& svg, const std::string& name) {
  const std::vector<std::string> m = test_regex::search(svg, "<svg [^>]*\\b" + name + "=\"([0-9.]+)\"");
  REQUIRE(m.size() == 2);
  return static_cast<int>(std::lround(std::stod(m[1])));
}

uint32_t big_endian(const std::string& bytes, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) {
    v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
  }
  return v;
}

// Writes `svg` as `stem`.svg, checks it with xmllint and renders it with rsvg-convert; the PNG
// must be a real image of the SVG's declared size.
void check_renders(const std::string& svg, const fs::path& dir, const std::string& stem) {
  INFO("figure ", stem);
  REQUIRE_MESSAGE(have_tool("xmllint"), "xmllint is missing: install libxml2-utils (.ci/setup does)");
  REQUIRE_MESSAGE(have_tool("rsvg-convert"),
                  "rsvg-convert is missing: install librsvg2-bin (.ci/setup does)");
  CHECK(svg.find("viewBox=\"0 0 ") != std::string::npos);
  const fs::path svg_file = dir / (stem + ".svg");
  const fs::path png_file = dir / (stem + ".png");
  {
    std::ofstream out(svg_file, std::ios::binary);
    out << svg;
  }
  CHECK(std::system(fmt::format("xmllint --noout '{}'", svg_file.string()).c_str()) == 0);
  REQUIRE(std::system(
              fmt::format("rsvg-convert -o '{}' '{}'", png_file.string(), svg_file.string()).c_str()) == 0);
  std::ifstream in(png_file, std::ios::binary);
  const std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(png.size() > 24);
  CHECK(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(png.substr(12, 4) == "IHDR");
  CHECK(big_endian(png, 16) == static_cast<uint32_t>(attribute(svg, "width")));
  CHECK(big_endian(png, 20) == static_cast<uint32_t>(attribute(svg, "height")));
  // A blank canvas of this size compresses to well under this; text and boxes do not.
  CHECK(png.size() > 2000);
}

// The simulator's idle share of the pipelined window (planner/simulate.cpp), from the layout.
double bubble_of(const Plan& plan, const GanttTimes& t) {
  double first = -1;
  double last = 0;
  std::vector<double> busy(t.start.size(), 0.0);
  for (size_t i = 0; i < t.start.size(); ++i) {
    for (size_t k = 0; k < t.start[i].size(); ++k) {
      const InstrKind kind = plan.programs.ipus[i][k].kind;
      if (kind == InstrKind::ReduceReplicas || kind == InstrKind::UpdateWeights) {
        continue;
      }
      busy[i] += t.end[i][k] - t.start[i][k];
      first = first < 0 ? t.start[i][k] : std::min(first, t.start[i][k]);
      last = std::max(last, t.end[i][k]);
    }
  }
  double share = 0;
  for (double b : busy) {
    share += b / (last - first);
  }
  return 1 - share / static_cast<double>(busy.size());
}

}  // namespace

TEST_CASE("Gantt charts of a 4-stage MLP: one box per task, valid SVG rendered to PNG") {
  TempDir dir("gantt");
  for (const char* schedule : {"grouped", "interleaved", "sequential", "zero_bubble"}) {
    const std::string kind = schedule;
    CAPTURE(kind);
    const Plan plan = four_stage(schedule);
    const std::string svg = gantt_svg(plan);
    const bool split = kind == "zero_bubble";  // a weight-gradient box per backward
    CHECK(count(svg, "class=\"fwd\"") == 4 * 8);
    CHECK(count(svg, "class=\"bwd\"") == 4 * 8);
    CHECK(count(svg, "class=\"wgt\"") == (split ? 4 * 8 : 0));
    CHECK(count(svg, "class=\"update\"") == 4);
    CHECK(count(svg, "class=\"reduce\"") == 0);
    CHECK(count(svg, "class=\"send\"") == count_instrs(plan, InstrKind::Send));
    CHECK(count(svg, "class=\"recv\"") == count_instrs(plan, InstrKind::Recv));
    std::string name = kind;
    name[0] = static_cast<char>(std::toupper(name[0]));
    CHECK(svg.find(name + " schedule: 4 stages on 4 IPUs, accumulation 8, 1 replica") != std::string::npos);
    CHECK(svg.find(fmt::format("bubble {:.1f}% simulated", 100 * plan.cost.bubble_fraction)) !=
          std::string::npos);
    CHECK(svg.find("; bound: " + plan.cost.breakdown.bound) != std::string::npos);
    for (int i = 0; i < 4; ++i) {
      CHECK(svg.find(fmt::format(">IPU {} (phys {})</text>", i,
                                 plan.placement.physical[0][static_cast<size_t>(i)])) != std::string::npos);
    }
    // Every task box carries its micro-batch: "F7", or just "7" where the box is narrow (the
    // sequential schedule's 64 tasks one after another).
    // Split, the first stage's B boxes are empty (one layer: no activation gradient to pass on),
    // too narrow for a label.
    CHECK(count(svg, "class=\"task-label\"") == (split ? 3 * 4 * 8 - 8 : 2 * 4 * 8));
    if (kind != "sequential") {
      CHECK(svg.find(">F7</text>") != std::string::npos);
      CHECK(svg.find(">B0</text>") != std::string::npos);
    }
    CHECK((svg.find(">W0</text>") != std::string::npos) == split);
    CHECK(gantt_svg(plan) == svg);
    check_renders(svg, dir.path, std::string("gantt-") + schedule);
  }
}

TEST_CASE("the Gantt layout is the simulator's timeline: same length, same bubble, transfers in order") {
  for (const char* schedule : {"grouped", "interleaved", "sequential", "zero_bubble"}) {
    const std::string kind = schedule;
    CAPTURE(kind);
    const Plan plan = four_stage(schedule);
    const GanttTimes t = gantt_times(plan);
    REQUIRE(t.in_cycles);
    const Settings& s = plan.settings;
    const PlanDecisions& d = plan.decided;
    const double host = d.device.host_call_cycles /
                        static_cast<double>(s.plain.training_steps_per_execution * s.plain.pipeline_repeat_count);
    CHECK(t.span == doctest::Approx(plan.cost.cycles_per_update - host));
    CHECK(bubble_of(plan, t) == doctest::Approx(plan.cost.bubble_fraction));
    CHECK(plan.cost.bubble_fraction > 0.05);  // the fill and drain the picture must show
    std::vector<double> sent(plan.programs.messages.size(), -1);
    for (size_t i = 0; i < t.start.size(); ++i) {
      for (size_t k = 0; k < t.start[i].size(); ++k) {
        const Instr& in = plan.programs.ipus[i][k];
        if (k > 0) {
          CHECK(t.start[i][k] >= t.end[i][k - 1]);
        }
        if (in.kind == InstrKind::Send) {
          sent[static_cast<size_t>(in.message)] = t.start[i][k];
        }
      }
    }
    for (size_t i = 0; i < t.start.size(); ++i) {
      for (size_t k = 0; k < t.start[i].size(); ++k) {
        const Instr& in = plan.programs.ipus[i][k];
        if (in.kind == InstrKind::Recv) {
          CHECK(sent[static_cast<size_t>(in.message)] >= 0);
          CHECK(t.start[i][k] >= sent[static_cast<size_t>(in.message)]);
        }
      }
    }
  }
}

// Each instruction starts as soon as simulate.hpp's rules allow: when its IPU is free, a Recv no
// earlier than its Send, a Send no earlier than the receive that frees a slot of its channel.
// Returns how many Sends a full channel held back.
size_t check_as_soon_as_allowed(const Plan& plan, const GanttTimes& t) {
  const DevicePrograms& p = plan.programs;
  std::vector<double> send_start(p.messages.size(), -1);
  std::vector<double> recv_start(p.messages.size(), -1);
  std::map<std::pair<int32_t, int32_t>, std::vector<int32_t>> sent_on;
  for (size_t i = 0; i < p.ipus.size(); ++i) {
    for (size_t k = 0; k < p.ipus[i].size(); ++k) {
      const Instr& in = p.ipus[i][k];
      if (in.kind == InstrKind::Send) {
        send_start[static_cast<size_t>(in.message)] = t.start[i][k];
        const Message& m = p.messages[static_cast<size_t>(in.message)];
        sent_on[{m.from, m.to}].push_back(in.message);
      } else if (in.kind == InstrKind::Recv) {
        recv_start[static_cast<size_t>(in.message)] = t.start[i][k];
      }
    }
  }
  std::vector<double> freed(p.messages.size(), 0);
  size_t held_back = 0;
  for (const Channel& c : p.channels) {
    const std::vector<int32_t>& order = sent_on[{c.from, c.to}];
    for (size_t k = static_cast<size_t>(c.capacity); k < order.size(); ++k) {
      freed[static_cast<size_t>(order[k])] =
          recv_start[static_cast<size_t>(order[k - static_cast<size_t>(c.capacity)])];
    }
  }
  for (size_t i = 0; i < p.ipus.size(); ++i) {
    for (size_t k = 0; k < p.ipus[i].size(); ++k) {
      const Instr& in = p.ipus[i][k];
      double earliest = k > 0 ? t.end[i][k - 1] : 0;
      if (in.kind == InstrKind::Recv) {
        earliest = std::max(earliest, send_start[static_cast<size_t>(in.message)]);
      } else if (in.kind == InstrKind::Send) {
        const double slot = freed[static_cast<size_t>(in.message)];
        held_back += slot > earliest ? 1 : 0;
        earliest = std::max(earliest, slot);
      }
      CHECK(t.start[i][k] == doctest::Approx(earliest));
      CHECK(t.end[i][k] == doctest::Approx(t.start[i][k] + instr_cycles(plan, in)));
    }
  }
  return held_back;
}

TEST_CASE("the Gantt layout starts every instruction as soon as the simulator would") {
  Plan plan = four_stage("grouped");
  CHECK(check_as_soon_as_allowed(plan, gantt_times(plan)) > 0);  // the channel rule binds here
  // With one message in flight per channel the senders wait more, and the layout still matches
  // the simulator's cycle.
  for (Channel& c : plan.programs.channels) {
    c.capacity = 1;
  }
  const GanttTimes t = gantt_times(plan);
  CHECK(check_as_soon_as_allowed(plan, t) > 0);
  const Settings& s = plan.settings;
  const PlanDecisions& d = plan.decided;
  const double host = d.device.host_call_cycles /
                      static_cast<double>(s.plain.training_steps_per_execution * s.plain.pipeline_repeat_count);
  CHECK(t.span == doctest::Approx(simulate_plan(plan).cycles_per_update - host));
}

TEST_CASE("the sequential schedule's Gantt chart runs one task at a time") {
  const Plan plan = four_stage("sequential", 4);
  const GanttTimes t = gantt_times(plan);
  std::vector<std::pair<double, double>> tasks;
  for (size_t i = 0; i < t.start.size(); ++i) {
    for (size_t k = 0; k < t.start[i].size(); ++k) {
      const InstrKind kind = plan.programs.ipus[i][k].kind;
      if (kind == InstrKind::Forward || kind == InstrKind::Backward) {
        tasks.push_back({t.start[i][k], t.end[i][k]});
      }
    }
  }
  std::sort(tasks.begin(), tasks.end());
  REQUIRE(tasks.size() == 4 * 2 * 4);
  for (size_t j = 1; j < tasks.size(); ++j) {
    CHECK(tasks[j].first >= tasks[j - 1].second - 1e-6);
  }
}

TEST_CASE("Gantt chart with recomputation and replicas") {
  TempDir dir("gantt-extra");
  const Plan recompute = plan_for(
      2,
      "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n[pipeline]\ngradient_accumulation_count = 4\n");
  const std::string r = gantt_svg(recompute);
  REQUIRE(count_instrs(recompute, InstrKind::Recompute) > 0);
  CHECK(count(r, "class=\"rec\"") == count_instrs(recompute, InstrKind::Recompute));
  CHECK(r.find("<pattern id=\"recompute\"") != std::string::npos);
  check_renders(r, dir.path, "recompute");

  const Plan replicated =
      plan_for(2, "[ipu]\nauto_select_ipus = 4\n[pipeline]\ngradient_accumulation_count = 4\n");
  REQUIRE(replicated.placement.replicas == 2);
  const std::string g = gantt_svg(replicated);
  REQUIRE(count_instrs(replicated, InstrKind::ReduceReplicas) > 0);
  CHECK(count(g, "class=\"reduce\"") == count_instrs(replicated, InstrKind::ReduceReplicas));
  CHECK(g.find("accumulation 4, 2 replicas") != std::string::npos);
  CHECK(g.find("of replica 0") != std::string::npos);
  check_renders(g, dir.path, "replicas");
}

TEST_CASE("instructions without cycles are laid out in timestep columns") {
  TempDir dir("gantt-steps");
  Plan plan = four_stage("grouped");
  plan.decided.device.compute_set_cycles = 0;
  plan.decided.device.sync_cycles = 0;
  for (StagePrograms& s : plan.programs.stages) {
    s.forward.clear();
    s.recompute.clear();
    s.backward.clear();
  }
  for (Message& m : plan.programs.messages) {
    m.bytes = 0;
  }
  for (auto& program : plan.programs.ipus) {
    for (Instr& in : program) {
      in.values.clear();
    }
  }
  const GanttTimes t = gantt_times(plan);
  REQUIRE_FALSE(t.in_cycles);
  CHECK(t.span == doctest::Approx(static_cast<double>(plan.timeline.timesteps() + 1)));
  for (size_t i = 0; i < t.start.size(); ++i) {
    for (size_t k = 0; k < t.start[i].size(); ++k) {
      const Instr& in = plan.programs.ipus[i][k];
      if (in.kind == InstrKind::Forward || in.kind == InstrKind::Backward) {
        CHECK(t.start[i][k] >= in.timestep);
        CHECK(t.end[i][k] <= in.timestep + 1 + 1e-9);
        CHECK(t.end[i][k] > t.start[i][k]);
      }
    }
  }
  const std::string svg = gantt_svg(plan);
  CHECK(count(svg, "class=\"fwd\"") == 4 * 8);
  CHECK(svg.find("columns are timesteps") != std::string::npos);
  check_renders(svg, dir.path, "timesteps");
}

TEST_CASE("memory figure: a line per IPU, human units, capacity on or off the scale") {
  TempDir dir("memory");
  Plan plan = four_stage("grouped");
  REQUIRE(plan.memory.size() == 4);
  REQUIRE(!plan.memory[0].per_timestep.empty());
  const std::string svg = memory_svg(plan);
  CHECK(count(svg, "class=\"ipu-memory\"") == 4);
  CHECK(test_regex::found(svg, ">[0-9.]+ (B|KiB|MiB|GiB)</text>"));
  for (size_t i = 0; i < 4; ++i) {
    const auto& bytes = plan.memory[i].per_timestep;
    CHECK(svg.find(fmt::format("peak {}", human_bytes(*std::max_element(bytes.begin(), bytes.end())))) !=
          std::string::npos);
  }
  // An MLP this small is far below an IPU's capacity: the capacity is named, not drawn.
  CHECK(count(svg, "class=\"capacity\"") == 0);
  CHECK(svg.find("no dashed line") != std::string::npos);
  CHECK(memory_svg(plan) == svg);
  check_renders(svg, dir.path, "memory");

  int64_t peak = 0;
  for (const IpuMemory& m : plan.memory) {
    peak = std::max(peak, *std::max_element(m.per_timestep.begin(), m.per_timestep.end()));
  }
  for (IpuMemory& m : plan.memory) {
    m.capacity = 2 * peak;
  }
  const std::string tight = memory_svg(plan);
  CHECK(count(tight, "class=\"capacity\"") == 1);
  CHECK(tight.find(fmt::format("capacity {}", human_bytes(2 * peak))) != std::string::npos);
  check_renders(tight, dir.path, "memory-capacity");
}

TEST_CASE("figures of a plan without programs, memory or cost figures") {
  TempDir dir("empty");
  const Plan empty;
  const std::string g = gantt_svg(empty);
  CHECK(g.find("no per-IPU programs") != std::string::npos);
  CHECK(g.find("no cost figures") != std::string::npos);
  const std::string m = memory_svg(empty);
  CHECK(m.find("no memory figures") != std::string::npos);
  check_renders(g, dir.path, "empty-gantt");
  check_renders(m, dir.path, "empty-memory");
}

TEST_CASE("SVG text is escaped, axis numbers are round") {
  CHECK(xml_escape("a<b & 'c' \"d\">") == "a&lt;b &amp; &apos;c&apos; &quot;d&quot;&gt;");
  CHECK(nice_step(1234, 5) == 500);
  CHECK(nice_step(9, 8) == 2);
  CHECK(human_count(850) == "850");
  CHECK(human_count(12500) == "12.5k");
  CHECK(human_count(41836) == "41.8k");
  CHECK(human_count(999999) == "1M");
  CHECK(human_count(3.2e6) == "3.2M");
}
