// The plan's reports: a hand-filled plan whose every figure is known gives exact text, JSON and
// DOT; real plans of every schedule give JSON whose figures agree with each other and the model.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "iputrain/config_loader.hpp"
#include "iputrain/model.hpp"
#include "iputrain/plan.hpp"
#include "planner/autodiff.hpp"
#include "planner/cost_model.hpp"
#include "planner/program.hpp"
#include "planner/report/report.hpp"

// `Plan` is the planner's; the public iputrain::Plan is spelled out where it is tested.
using namespace iputrain::planner;
using iputrain::Config;
namespace config = iputrain::config;
using iputrain::DType;
using iputrain::Error;
using iputrain::ErrorKind;
using iputrain::Model;
using iputrain::PlanRequest;
using iputrain::PlanSection;
using nlohmann::json;
namespace ir = iputrain::ir;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

bool has(const std::string& text, const std::string& what) {
  if (text.find(what) != std::string::npos) {
    return true;
  }
  MESSAGE("looked for: " << what << "\nin:\n" << text);
  return false;
}

// x[32, 256] -> relu(x @ w1[256, 512]) (stage a, IPU 0) -> mean(h @ w2[512, 10]) (stage b, IPU 1),
// two replicas on physical IPUs {0, 1} and {3, 2}, grouped over 4 micro-batches, and memory and
// cost figures chosen by hand.
Plan hand_plan() {
  Plan plan;
  ir::Graph& g = plan.graph;
  g.stages = {{"a", {}, -1}, {"b", {}, -1}};
  g.set_cursor(0, ir::Phase::Forward);
  const ir::ValueId x = g.add_input("x", {DType::F32, {32, 256}});
  const ir::ValueId w1 =
      g.add_param("a/w1", {DType::F32, {256, 512}}, ir::Attrs{{"init", std::string("zeros")}});
  const ir::ValueId h = g.add(ir::OpKind::Relu, {g.add(ir::OpKind::MatMul, {x, w1})});
  g.set_cursor(1, ir::Phase::Forward);
  const ir::ValueId w2 =
      g.add_param("b/w2", {DType::F32, {512, 10}}, ir::Attrs{{"init", std::string("zeros")}});
  g.loss = g.add(ir::OpKind::Mean, {g.add(ir::OpKind::MatMul, {h, w2})},
                 ir::Attrs{{"axes", std::vector<int64_t>{}}});
  plan.grads = differentiate(g);
  std::vector<ir::ValueId> roots{g.loss};
  for (const auto& parts : plan.grads) {
    roots.insert(roots.end(), parts.begin(), parts.end());
  }
  plan.train_program = live_program(g, roots);
  plan.eval_program = live_program(g, {g.loss});

  plan.decided.schedule = ScheduleKind::Grouped;
  plan.decided.accumulation_count = 4;
  plan.placement.pipeline = make_pipeline(g, {}, false);
  plan.placement.replicas = 2;
  plan.placement.physical = {{0, 1}, {3, 2}};
  plan.placement.param_ipu = {0, 1};
  plan.timeline = make_timeline(plan.placement.pipeline, ScheduleKind::Grouped, 4, true);

  const int64_t cap = DeviceModel::ipu2().memory_bytes();
  IpuMemory m0;
  m0.weights = 256 * 512 * 4;
  m0.accumulators = 2 * m0.weights;
  m0.activations_peak = 256 * 1024;
  m0.io_buffers = 64 * 1024;
  m0.total_peak = m0.weights + m0.accumulators + m0.activations_peak + m0.io_buffers;
  m0.capacity = cap;
  m0.contributors = {{"gradient accumulators", m0.accumulators}, {"weights", m0.weights}};
  IpuMemory m1;
  m1.weights = 512 * 10 * 4;
  m1.optimizer_state_offloaded = 2 * m1.weights;
  m1.total_peak = m1.weights;
  m1.capacity = cap;
  plan.memory = {m0, m1};

  plan.cost.cycles_per_update = 133000;
  plan.cost.samples_per_second = 1234.4;
  plan.cost.bubble_fraction = 0.25;
  plan.cost.analytic_bubble_fraction = 0.2;
  plan.cost.utilisation = {0.75, 0.5};
  plan.cost.link_bytes_per_update = 512 * 1024;
  plan.cost.reduce_bytes_per_update = 2048;

  plan.programs.ipus = {
      {Instr{InstrKind::Forward, 0, 0}, Instr{InstrKind::Backward, 0, 0}, Instr{InstrKind::UpdateWeights}},
      {Instr{InstrKind::Forward, 1, 0}, Instr{InstrKind::UpdateWeights}}};
  plan.timings = {{"verify", 0.5}, {"lower", 1.25}};
  return plan;
}

}  // namespace

TEST_CASE("byte figures are human-readable and the bar shows the used share") {
  CHECK(human_bytes(512) == "512 B");
  CHECK(human_bytes(1536) == "1.5 KiB");
  CHECK(human_bytes(int64_t{1472} * 624 * 1024) == "897.0 MiB");
  CHECK(human_bytes(int64_t{3} << 30) == "3.00 GiB");
  CHECK(usage_bar(0, 100) == "[" + std::string(30, '.') + "]");
  CHECK(usage_bar(50, 100) == "[" + std::string(15, '#') + std::string(15, '.') + "]");
  CHECK(usage_bar(1, 1000000) == "[#" + std::string(29, '.') + "]");  // any use shows
  CHECK(usage_bar(150, 100) == "[" + std::string(29, '#') + "!]");
  CHECK(usage_bar(3, 4, 4) == "[###.]");
}

TEST_CASE("the text report of a hand-made plan") {
  const Plan plan = hand_plan();
  const std::string text = plan_text(plan, "mlp");
  CHECK(has(
      text,
      "plan for mlp: 2 replicas x 2 IPUs per replica = 4 IPUs; grouped schedule, gradient accumulation 4; "
      "micro-batch 32, global batch 256\n"));
  // Stage table: position, IPU, physical IPU per replica, parameters and their bytes.
  CHECK(has(text, "stage  position  IPU  physical  parameters  param bytes  forward cycles\n"));
  CHECK(has(text, "\na             0    0  0,3           131072    512.0 KiB"));
  CHECK(has(text, "\nb             1    1  1,2             5120     20.0 KiB"));
  // Memory: parts, peak and the bar against the capacity named once in the heading.
  CHECK(has(text, "memory per IPU at its peak timestep, of 897.0 MiB each"));
  CHECK(has(text, "  0   512.0 KiB         0 B       1.0 MiB    256.0 KiB    64.0 KiB     1.8 MiB  [#"));
  CHECK(has(text, "]   0.2%\n"));
  CHECK(has(text,
            "optimizer state in host memory (offload_weight_update_variables): IPU 0 0 B, IPU 1 40.0 KiB\n"));
  CHECK(has(text, "largest at the peak of IPU 0: gradient accumulators 1.0 MiB, weights 512.0 KiB\n"));
  // Schedule: the timeline as planner::timeline_str draws it.
  CHECK(has(text, "schedule: grouped, 4 micro-batches per replica in 7 timesteps"));
  CHECK(has(text, timeline_str(plan.placement.pipeline, plan.timeline)));
  // Prediction: throughput, time per update at 1.33 GHz, utilisation, both bubble figures.
  CHECK(has(text, "predicted: 1234 samples/s over 2 replicas; 133000 cycles (0.100 ms) per weight update\n"));
  CHECK(has(text, "utilisation: IPU 0 75.0%, IPU 1 50.0%\n"));
  CHECK(
      has(text, "bubble: 25.0% of IPU time simulated, 20.0% analytic (grouped schedule, 4 micro-batches)\n"));
  CHECK(has(text, "512.0 KiB between the IPUs of a replica, 2.0 KiB per replica reduced across replicas\n"));
}

TEST_CASE("long schedules are cut with a note") {
  Plan plan = hand_plan();
  plan.decided.accumulation_count = 64;
  plan.timeline = make_timeline(plan.placement.pipeline, ScheduleKind::Grouped, 64, true);
  const std::string text = text_schedule(plan, 10);
  CHECK(has(text, "in 67 timesteps"));
  CHECK(has(text, "... 57 more timesteps"));
  CHECK(count(text, "|") == 2 * 11);  // two IPU rows of 10 cells
  CHECK(text_schedule(plan).find("more timesteps") != std::string::npos);
  CHECK(text_schedule(plan, 100).find("more timesteps") == std::string::npos);
}

TEST_CASE("the JSON report of a hand-made plan echoes every figure") {
  const Plan plan = hand_plan();
  const json j = json::parse(plan_json(plan, "mlp"));
  CHECK(j["model"] == "mlp");
  CHECK(j["replicas"] == 2);
  CHECK(j["ipus_per_replica"] == 2);
  CHECK(j["num_ipus"] == 4);
  CHECK(j["schedule"] == "grouped");
  CHECK(j["gradient_accumulation_count"] == 4);
  CHECK(j["micro_batch"] == 32);
  CHECK(j["global_batch"] == 256);
  REQUIRE(j["stages"].size() == 2);
  const json& b = j["stages"][1];
  CHECK(b["name"] == "b");
  CHECK(b["ipu"] == 1);
  CHECK(b["position"] == 1);
  CHECK(b["physical_ids"] == json::array({1, 2}));
  CHECK(b["parameters"] == 5120);
  CHECK(b["parameter_bytes"] == 20480);
  CHECK(j["stages"][0]["forward_cycles"].get<double>() > 0);
  CHECK(j["stages"][0]["backward_cycles"].get<double>() > 0);
  REQUIRE(j["ipus"].size() == 2);
  const json& ipu0 = j["ipus"][0];
  CHECK(ipu0["id"] == 0);
  CHECK(ipu0["physical_ids"] == json::array({0, 3}));
  CHECK(ipu0["stages"] == json::array({"a"}));
  CHECK(ipu0["utilisation"] == 0.75);
  const IpuMemory& m0 = plan.memory[0];
  CHECK(ipu0["memory"]["weights"] == m0.weights);
  CHECK(ipu0["memory"]["optimizer_state"] == 0);
  CHECK(ipu0["memory"]["accumulators"] == m0.accumulators);
  CHECK(ipu0["memory"]["activations_peak"] == m0.activations_peak);
  CHECK(ipu0["memory"]["io_buffers"] == m0.io_buffers);
  CHECK(ipu0["memory"]["total_peak"] == m0.total_peak);
  CHECK(ipu0["memory"]["capacity"] == m0.capacity);
  CHECK(j["ipus"][1]["memory"]["optimizer_state_offloaded"] == 40960);
  // 2 replicas x 4 micro-batches: each replica's canonical tree holds 2 partial sums at most, the
  // sequential order 1, so half the bytes.
  const json& acc = j["gradient_accumulation"];
  CHECK(acc["order"] == "canonical");
  CHECK(acc["dtype"] == "f32");
  CHECK(acc["buffers_per_weight"] == 2);
  CHECK(acc["cost_by_order"]["canonical"]["buffers_per_weight"] == 2);
  CHECK(acc["cost_by_order"]["canonical"]["bytes_per_ipu"] == json::array({m0.accumulators, 0}));
  CHECK(acc["cost_by_order"]["sequential"]["buffers_per_weight"] == 1);
  CHECK(acc["cost_by_order"]["sequential"]["bytes_per_ipu"] == json::array({m0.accumulators / 2, 0}));
  CHECK(j["predicted"]["samples_per_second"] == 1234.4);
  CHECK(j["predicted"]["bubble_fraction"] == 0.25);
  CHECK(j["predicted"]["analytic_bubble_fraction"] == 0.2);
  CHECK(j["predicted"]["cycles_per_update"] == 133000.0);
  CHECK(j["programs"] == json::parse(R"([["F0.m0", "B0.m0", "update"], ["F1.m0", "update"]])"));
  CHECK(j["passes"] == json::parse(R"([{"name": "verify", "ms": 0.5}, {"name": "lower", "ms": 1.25}])"));
  // h = f32[32, 512] goes forward from a to b, its gradient comes back.
  CHECK(j["transfers"] == json::parse(R"([
      {"from": "a", "to": "b", "kind": "activations", "bytes_per_micro_batch": 65536},
      {"from": "b", "to": "a", "kind": "gradients", "bytes_per_micro_batch": 65536}])"));
}

TEST_CASE("stage edges carry what the cost model's link traffic counts") {
  const Plan plan = hand_plan();
  int64_t sum = 0;
  for (const StageEdge& e : stage_edges(plan)) {
    sum += e.bytes;
  }
  CHECK(sum == boundary_bytes(plan.graph, plan.placement.pipeline, 0, plan.train_program));
}

TEST_CASE("the DOT report: one node per stage inside a cluster per IPU, edges in bytes") {
  const Plan plan = hand_plan();
  const std::string dot = plan_dot(plan, "mlp");
  CHECK(dot.rfind("digraph \"mlp\" {\n", 0) == 0);
  CHECK(count(dot, "{") == count(dot, "}"));
  CHECK(count(dot, "\"") % 2 == 0);
  CHECK(count(dot, "subgraph cluster_ipu") == 2);
  CHECK(count(dot, "    stage") == 2);
  CHECK(has(dot, "stage0 [label=\"a\\nIPU 0\\n512.0 KiB of parameters\"];"));
  CHECK(has(dot, "label=\"IPU 1 (physical 1, 2)\\npeak 20.0 KiB of 897.0 MiB\";"));
  CHECK(has(dot, "stage0 -> stage1 [label=\"64.0 KiB\"];"));
  CHECK(has(dot, "stage1 -> stage0 [label=\"64.0 KiB\", style=dashed];"));
  // A stage's node sits inside its IPU's cluster.
  CHECK(dot.find("stage1 [label") > dot.find("subgraph cluster_ipu1"));
}

// ---- real plans ---------------------------------------------------------------------------------

namespace {

// An MLP of three stages (one dense layer each, the loss in the last).
const char* kThreeStages = R"(import nn
model three(batch: int = 4) {
  input x: f32[batch, 16]
  input y: i32[batch]
  stage s0 { h0 = nn.dense(x, 32, activation = relu) }
  stage s1 { h1 = nn.dense(h0, 24, activation = relu) }
  stage s2 {
    logits = nn.dense(h1, 5)
    loss = mean(softmax_cross_entropy(logits, y))
  }
  minimize loss
  output loss
}
)";

// IPUs: stage lists agree with the stages' IPUs, weights are their parameters, the peak is the
// sum of its parts and fits, physical ids are distinct across the cluster.
void check_ipus(const iputrain::Plan& plan, const json& j) {
  const int64_t ipus = j["ipus_per_replica"];
  REQUIRE(j["ipus"].size() == static_cast<size_t>(ipus));
  std::set<int64_t> physical;
  for (const json& ipu : j["ipus"]) {
    const int64_t id = ipu["id"];
    int64_t weights = 0;
    std::vector<std::string> names;
    for (const json& s : j["stages"]) {
      if (s["ipu"] == id) {
        names.push_back(s["name"]);
        weights += s["parameter_bytes"].get<int64_t>();
      }
    }
    CHECK(ipu["stages"] == json(names));
    const json& m = ipu["memory"];
    CHECK(m["weights"] == weights);
    CHECK(m["total_peak"].get<int64_t>() ==
          m["weights"].get<int64_t>() + m["optimizer_state"].get<int64_t>() +
              m["accumulators"].get<int64_t>() + m["activations_peak"].get<int64_t>() +
              m["io_buffers"].get<int64_t>());
    CHECK(m["total_peak"].get<int64_t>() <= m["capacity"].get<int64_t>());
    CHECK(m["capacity"] == int64_t{1472} * 624 * 1024);
    CHECK(ipu["utilisation"].get<double>() > 0);
    CHECK(ipu["utilisation"].get<double>() <= 1);
    for (const json& p : ipu["physical_ids"]) {
      CHECK(physical.insert(p.get<int64_t>()).second);
      CHECK(p.get<int64_t>() < plan.num_ipus());
    }
  }
}

// The predicted figures: the breakdown adds up to the update's time.
void check_predicted(const iputrain::Plan& plan, const json& j) {
  const json& predicted = j["predicted"];
  CHECK(predicted["samples_per_second"].get<double>() > 0);
  CHECK(predicted["samples_per_second"] == plan.samples_per_second());
  CHECK(predicted["bubble_fraction"].get<double>() >= 0);
  CHECK(predicted["bubble_fraction"].get<double>() < 1);
  CHECK(predicted["analytic_bubble_fraction"].get<double>() >= 0);
  CHECK(predicted["analytic_bubble_fraction"].get<double>() < 1);
  // The update's time by kind: the parts on the busiest IPU add up to the IPUs' time, and the
  // update takes that or the hosts' feed, whichever is longer.
  const json& b = predicted["breakdown_seconds"];
  double parts = 0;
  for (const char* k :
       {"compute", "in_ipu_exchange", "sync", "pipeline_transfers", "collectives_machine", "collectives_ipu_links",
        "collectives_gw_links", "remote_memory", "host_io", "idle", "host_sync"}) {
    CHECK(b[k].get<double>() >= 0);
    parts += b[k].get<double>();
  }
  const double seconds = predicted["seconds_per_update"].get<double>();
  CHECK(std::max(parts, b["host_feed"].get<double>()) == doctest::Approx(seconds));
  // The hosts' feed is the longer of their network time and their CPUs' (0 until declared).
  CHECK(b["host_feed"].get<double>() ==
        doctest::Approx(std::max(b["host_network"].get<double>(), b["host_cpu"].get<double>())));
  CHECK(b["host_cpu"].get<double>() == 0);
  CHECK(predicted["samples_per_second"].get<double>() == doctest::Approx(j["global_batch"].get<double>() / seconds));
  CHECK(!b["bound"].get<std::string>().empty());
}

// The topology, the programs, the passes, and the text and DOT reports.
void check_layout(const iputrain::Plan& plan, const Model& model, const json& j) {
  const int64_t replicas = j["replicas"];
  const int64_t ipus = j["ipus_per_replica"];
  // The system holds the IPUs; the collective groups multiply to the replicas.
  const json& t = j["topology"];
  CHECK(t["ipus"].get<int64_t>() >= plan.num_ipus());
  CHECK(t["ipus_used"] == plan.num_ipus());
  CHECK(t["ipus"] ==
        t["ipus_per_machine"].get<int64_t>() * t["machines_per_pod"].get<int64_t>() * t["pods"].get<int64_t>());
  int64_t groups = 1;
  for (const json& level : t["collective_levels"]) {
    groups *= level["group"].get<int64_t>();
  }
  CHECK(groups == replicas);
  const std::string bound = j["predicted"]["breakdown_seconds"]["bound"];
  CHECK(plan.text().find("bound: " + bound + "\n") != std::string::npos);

  REQUIRE(j["programs"].size() == static_cast<size_t>(ipus));
  for (const json& program : j["programs"]) {
    REQUIRE(!program.empty());
    CHECK(program.back() == "update");
  }
  std::vector<std::string> passes;
  for (const json& p : j["passes"]) {
    passes.push_back(p["name"]);
  }
  CHECK(passes == iputrain::Plan::pass_names());

  // The text and the DOT show every stage.
  const std::string text = plan.text();
  const std::string dot = plan.dot();
  CHECK(count(dot, "{") == count(dot, "}"));
  CHECK(count(dot, "subgraph cluster_ipu") == static_cast<size_t>(ipus));
  for (const std::string& stage : model.stages()) {
    CHECK(has(text, "\n" + stage + " "));
    CHECK(has(dot, "[label=\"" + stage + "\\n"));
  }
}

// What every JSON report must satisfy, whatever the plan.
void check_consistent(const iputrain::Plan& plan, const Model& model) {
  const json j = json::parse(plan.json());
  const int64_t replicas = j["replicas"];
  const int64_t ipus = j["ipus_per_replica"];
  CHECK(replicas * ipus == j["num_ipus"].get<int64_t>());
  CHECK(j["num_ipus"] == plan.num_ipus());
  CHECK(j["global_batch"].get<int64_t>() ==
        j["micro_batch"].get<int64_t>() * j["gradient_accumulation_count"].get<int64_t>() * replicas);
  CHECK(j["micro_batch"] == model.batch_size());
  CHECK(j["schedule"] == plan.schedule());

  // Stages: every model stage once; their parameters add up to the model's.
  REQUIRE(j["stages"].size() == model.stages().size());
  int64_t params = 0;
  for (const json& s : j["stages"]) {
    params += s["parameters"].get<int64_t>();
    CHECK(s["ipu"].get<int64_t>() >= 0);
    CHECK(s["ipu"].get<int64_t>() < ipus);
    CHECK(s["physical_ids"].size() == static_cast<size_t>(replicas));
  }
  CHECK(params == model.parameter_count());

  check_ipus(plan, j);
  check_predicted(plan, j);
  check_layout(plan, model, j);
}

}  // namespace

TEST_CASE("real plans of every schedule give consistent reports") {
  const Model model = Model::parse(kThreeStages);
  const std::vector<std::string> configs = {
      "[ipu]\nauto_select_ipus = 3\n[pipeline]\ngradient_accumulation_count = 6\n",
      "[ipu]\nauto_select_ipus = 6\nselection_order = \"snake\"\n[pipeline]\nschedule = \"interleaved\"\n"
      "gradient_accumulation_count = 6\n[optimizer]\ntype = \"adam\"\n",
      "[ipu]\nauto_select_ipus = 4\n[pipeline]\nschedule = \"sequential\"\ndevice_mapping = [0, 1, 0]\n"
      "gradient_accumulation_count = 3\n",
  };
  for (const std::string& config : configs) {
    CAPTURE(config);
    const iputrain::Plan plan = iputrain::Plan::make(model, config::parse(config));
    check_consistent(plan, model);
  }
}

TEST_CASE("Plan accessors agree with the JSON report") {
  const Model model = Model::parse(kThreeStages);
  const iputrain::Plan plan = iputrain::Plan::make(
      model, config::parse("[ipu]\nauto_select_ipus = 6\n[pipeline]\ngradient_accumulation_count = 6\n"));
  const json j = json::parse(plan.json());
  CHECK(plan.model_name() == "three");
  CHECK(plan.replicas() == 2);
  CHECK(plan.ipus_per_replica() == 3);
  CHECK(plan.accumulation_count() == 6);
  CHECK(plan.micro_batch() == 4);
  CHECK(plan.global_batch() == 48);
  CHECK(plan.training());
  const auto memory = plan.memory();
  REQUIRE(memory.size() == 3);
  CHECK(memory[2].total_peak == j["ipus"][2]["memory"]["total_peak"]);
  const auto stages = plan.stages();
  REQUIRE(stages.size() == 3);
  CHECK(stages[1].name == "s1");
  CHECK(stages[1].ipu == 1);
  CHECK(stages[1].parameters == 32 * 24 + 24);
  CHECK(plan.utilisation().size() == 3);
  CHECK(plan.bubble_fraction() == j["predicted"]["bubble_fraction"]);
  CHECK(plan.text() == plan.text(PlanSection::Header) + "\n" + plan.text(PlanSection::Stages) + "\n" +
                           plan.text(PlanSection::Memory) + "\n" + plan.text(PlanSection::Schedule) + "\n" +
                           plan.text(PlanSection::Predicted));
}

TEST_CASE("--dump-after: known passes dump, an unknown one is a usage error naming the passes") {
  const Model model = Model::parse(kThreeStages);
  const Config config = config::parse("[ipu]\nauto_select_ipus = 3\n[pipeline]\ngradient_accumulation_count = 6\n");
  const iputrain::Plan plan = iputrain::Plan::make(model, config, PlanRequest{{"autodiff", "lower"}});
  CHECK(has(plan.dumps(), "after autodiff"));
  CHECK(has(plan.dumps(), "after lower"));
  CHECK(iputrain::Plan::make(model, config).dumps().empty());
  try {
    (void)iputrain::Plan::make(model, config, PlanRequest{{"lowr"}});
    FAIL("an unknown pass was accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    CHECK(has(e.render(), "no pass `lowr`"));
    CHECK(has(e.hint(), "did you mean `lower`?"));
    CHECK(has(e.hint(), "verify, auto-stage, place"));
  }
}

TEST_CASE("PlanRequest::keep_unfit returns a plan that does not fit, with its memory and the error it spares") {
  const Model model = Model::parse(kThreeStages);
  const Config small = config::parse(
      "[ipu]\nauto_select_ipus = 3\n[pipeline]\ngradient_accumulation_count = 6\n"
      "[device]\nmemory_per_tile = 8\n");
  std::string raised;
  try {
    (void)iputrain::Plan::make(model, small);
    FAIL("a plan over the IPUs' memory was made");
  } catch (const Error& e) {
    raised = e.diagnostic().message;
  }
  PlanRequest request;
  request.keep_unfit = true;
  const iputrain::Plan unfit = iputrain::Plan::make(model, small, request);
  CHECK_FALSE(unfit.fits());
  CHECK(unfit.unfit_reason() == raised);
  CHECK(unfit.samples_per_second() == 0);  // no cost simulated
  bool over = false;
  for (const iputrain::PlanMemory& m : unfit.memory()) {
    over = over || m.total_peak > m.capacity;
  }
  CHECK(over);
  const iputrain::Plan fits = iputrain::Plan::make(
      model, config::parse("[ipu]\nauto_select_ipus = 3\n[pipeline]\ngradient_accumulation_count = 6\n"), request);
  CHECK(fits.fits());
  CHECK(fits.unfit_reason().empty());
  CHECK(fits.samples_per_second() > 0);
}
