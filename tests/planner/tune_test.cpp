// `iputrain tune` (iputrain/tune.hpp): the search against brute force on a small space, a tuned
// config training bit for bit like the one-IPU run, the written config planning to the same
// figures, and the errors of a request that cannot be met.
#include <doctest/doctest.h>

#include <oneapi/tbb/global_control.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "iputrain/iputrain.hpp"
#include "iputrain/tune.hpp"
#include "planner/deadline.hpp"
#include "tune_files.hpp"

using namespace iputrain;

namespace {

// Four stages of unequal cost, as tests/engine/test_models.hpp's mlp4.
const std::string kModel = R"(import nn

model mlp4(batch: int = 4, width: int = 32) {
  input x: f32[batch, 16]
  input label: i32[batch]

  stage s0 {
    h0 = nn.dense(x, width, activation = relu)
  }
  stage s1 {
    h1 = nn.dropout(nn.dense(h0, width, activation = relu), 0.25)
  }
  stage s2 {
    h2 = nn.dense(h1, width, activation = tanh)
  }
  stage s3 {
    logits = nn.dense(h2, 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
}
)";

const std::string kRun =
    "[optimizer]\ntype = \"momentum\"\nlearning_rate = 0.05\n"
    "[data]\ntrain = \"synthetic:samples=2048,classes=10\"\n"
    "[training]\nsteps = 6\nseed = 7\n";

std::string write(const std::string& name, const std::string& text) {
  return tune_test::write("iputrain_tune_test", name, text);
}

double plan_speed(const std::string& model_path, const std::string& config_path, const std::vector<std::string>& sets) {
  try {
    const Config config = config::load(config_path, sets);
    return Plan::make(Model::load(model_path, config), config).samples_per_second();
  } catch (const Error&) {
    return 0;  // not placeable: the schedule's accumulation rule, or memory
  }
}

// Samples/s, peak bytes of the fullest IPU and bubble of a plan: what `tune` predicts for it.
struct PlanFigures {
  double speed = 0;
  int64_t peak = 0;
  double bubble = 0;
};

PlanFigures plan_figures(const std::string& model_path, const std::string& config_path) {
  const Config config = config::load(config_path);
  const Plan plan = Plan::make(Model::load(model_path, config), config);
  PlanFigures f{plan.samples_per_second(), 0, plan.bubble_fraction()};
  for (const PlanMemory& m : plan.memory()) {
    f.peak = std::max(f.peak, m.total_peak);
  }
  return f;
}

// `tune` on a frozen budget clock (planner/deadline.hpp): the search runs to its end however
// loaded the machine, so what it finds never depends on how long it took.
TuneResult tune_to_the_end(const TuneRequest& request) {
  const planner::TickClock frozen(std::chrono::nanoseconds(0));
  return tune(request);
}

// mlp4 on 4 IPUs at a global batch of 32, by coordinate search, the top 8 ranked; the budget
// is never reached on the frozen clock (a search cut short may differ with the speed).
TuneRequest coordinate_search_on_four_ipus(const std::string& config_name) {
  TuneRequest request;
  request.model_path = write("mlp4.ipu", kModel);
  request.config_path = write(config_name, kRun + "[ipu]\nauto_select_ipus = 4\n");
  request.global_batch = 32;
  request.time_seconds = 300;
  request.exhaustive_limit = 0;
  request.top = 8;
  return request;
}

// The search on at most `threads` threads of the shared arena, to the end.
TuneResult tune_on_threads(const TuneRequest& request, size_t threads) {
  const oneapi::tbb::global_control limit(oneapi::tbb::global_control::max_allowed_parallelism, threads);
  return tune_to_the_end(request);
}

// The written config of `t` plans to the very figures `tune` ranked it with.
void check_reproduces(const std::string& model, const TunedPlan& t) {
  const PlanFigures f = plan_figures(model, write("reproduce.toml", t.toml));
  CHECK(f.speed == t.samples_per_second);
  CHECK(f.peak == t.peak_bytes);
  CHECK(f.bubble == t.bubble_fraction);
}

}  // namespace

TEST_CASE("tune searches the knobs [tune] lists and finds their brute-force optimum") {
  const std::string model = write("mlp4.ipu", kModel);
  // The layout, batch and schedule fixed; [tune] lets the search vary the accumulators' order, type
  // and offloading, and the optimizer state's offloading.
  std::string run = kRun;
  run.insert(run.find("[data]\n") + 7, "batch_size = 4\n");
  const std::string config =
      write("knobs.toml", run +
                              "[ipu]\nauto_select_ipus = 2\n"
                              "[pipeline]\ndevice_mapping = [0, 0, 1, 1]\nschedule = \"grouped\"\n"
                              "gradient_accumulation_count = 8\n"
                              "[tune]\nrecomputation = [\"off\"]\n"
                              "available_memory_proportion = [0.6]\n"
                              "gradient_accumulation_order = [\"canonical\", \"sequential\"]\n"
                              "gradient_accumulation_dtype = [\"same\", \"fp16\"]\n"
                              "offload_gradient_accumulation_buffers = [false, true]\n"
                              "offload_weight_update_variables = [false, true]\n");
  double brute = 0;
  for (const char* order : {"canonical", "sequential"}) {
    for (const char* dtype : {"same", "fp16"}) {
      for (const char* acc : {"false", "true"}) {
        for (const char* state : {"false", "true"}) {
          brute = std::max(brute, plan_speed(model, config,
                                             {std::string("pipeline.gradient_accumulation_order=") + order,
                                              std::string("pipeline.gradient_accumulation_dtype=") + dtype,
                                              std::string("pipeline.offload_gradient_accumulation_buffers=") + acc,
                                              std::string("pipeline.offload_weight_update_variables=") + state}));
        }
      }
    }
  }
  REQUIRE(brute > 0);
  TuneRequest request;
  request.model_path = model;
  request.config_path = config;
  request.time_seconds = 120;
  request.top = 16;
  for (int64_t limit : {int64_t{0}, int64_t{100000}}) {
    CAPTURE(limit);
    request.exhaustive_limit = limit;
    const TuneResult result = tune_to_the_end(request);
    REQUIRE(!result.ranked.empty());
    CHECK(result.space == 16);
    CHECK(result.ranked.front().samples_per_second == brute);
    // Each ranked row says what differs, knobs included, and its written config reproduces it.
    for (const TunedPlan& t : result.ranked) {
      CAPTURE(t.summary);
      for (const std::string& c : t.changes) {
        CHECK((c.rfind("pipeline.gradient_accumulation_", 0) == 0 || c.rfind("pipeline.offload_", 0) == 0 ||
               c.rfind("ipu.", 0) == 0));
      }
      check_reproduces(model, t);
    }
  }
}

TEST_CASE("tune tries each stage's own memory proportion around the best plan") {
  const std::string model = write("mlp4.ipu", kModel);
  std::string run = kRun;
  run.insert(run.find("[data]\n") + 7, "batch_size = 4\n");
  const std::string config = write("stage_amp.toml", run +
                                                         "[ipu]\nauto_select_ipus = 2\n"
                                                         "[pipeline]\ndevice_mapping = [0, 0, 1, 1]\n"
                                                         "schedule = \"grouped\"\ngradient_accumulation_count = 8\n"
                                                         "offload_weight_update_variables = false\n"
                                                         "offload_gradient_accumulation_buffers = false\n"
                                                         "[tune]\nrecomputation = [\"off\"]\n"
                                                         "available_memory_proportion = [0.6, 0.1]\n");
  TuneRequest request;
  request.model_path = model;
  request.config_path = config;
  request.time_seconds = 120;
  request.top = 8;
  const TuneResult result = tune_to_the_end(request);
  CHECK(result.space == 2);
  // Each of the 4 stages at the other value once: every such plan places (one options table per
  // stage, forward and backward), and the ranked ones' written configs reproduce their figures.
  CHECK(result.planned == result.space + 4);
  CHECK(result.failed == 0);
  for (const TunedPlan& t : result.ranked) {
    CAPTURE(t.summary);
    check_reproduces(model, t);
  }
}

TEST_CASE("tune finds the brute-force optimum of a small space") {
  const std::string model = write("mlp4.ipu", kModel);
  // Memory proportion, offloading and sharding fixed: the space is the layout, the micro-batch,
  // the schedule and the recomputation.
  const std::string config = write("small.toml", kRun +
                                                     "[ipu]\nauto_select_ipus = 2\n"
                                                     "[ipu.matmuls]\npoplar_options = { availableMemoryProportion = "
                                                     "\"0.6\" }\n[pipeline]\noffload_weight_update_variables = false\n"
                                                     "replicated_optimizer_state_sharding = false\n");
  constexpr int64_t kGlobal = 16;
  double brute = 0;
  const std::vector<std::vector<std::string>> layouts = {
      {"pipeline.device_mapping=[0, 0, 0, 0]"},         {"pipeline.device_mapping=[0, 1, 1, 1]"},
      {"pipeline.device_mapping=[0, 0, 1, 1]"},         {"pipeline.device_mapping=[0, 0, 0, 1]"},
      {"pipeline.auto_stages=2", "pipeline.stages=[]"},
  };
  const std::vector<std::vector<std::string>> recomputes = {
      {"ipu.allow_recompute=false"},
      {"ipu.allow_recompute=true", "pipeline.recomputation_mode=recompute_then_backpropagate"},
      {"ipu.allow_recompute=true", "pipeline.recomputation_mode=recompute_and_backpropagate_interleaved"}};
  for (const auto& layout : layouts) {
    const int64_t replicas = layout[0] == "pipeline.device_mapping=[0, 0, 0, 0]" ? 2 : 1;
    for (int64_t micro : {1, 2, 4, 8, 16}) {
      if (kGlobal % (micro * replicas) != 0) {
        continue;
      }
      for (const std::string schedule : {"grouped", "interleaved", "sequential", "zero_bubble"}) {
        for (const auto& rec : recomputes) {
          std::vector<std::string> sets = layout;
          sets.insert(sets.end(), rec.begin(), rec.end());
          sets.push_back("data.batch_size=" + std::to_string(micro));
          sets.push_back("pipeline.gradient_accumulation_count=" + std::to_string(kGlobal / (micro * replicas)));
          sets.push_back("pipeline.schedule=" + schedule);
          brute = std::max(brute, plan_speed(model, config, sets));
        }
      }
    }
  }
  REQUIRE(brute > 0);
  TuneRequest request;
  request.model_path = model;
  request.config_path = config;
  request.global_batch = kGlobal;
  request.time_seconds = 120;
  for (int64_t limit : {int64_t{0}, int64_t{100000}}) {
    CAPTURE(limit);  // 0: the coordinate search; large: every candidate
    request.exhaustive_limit = limit;
    const TuneResult result = tune_to_the_end(request);
    REQUIRE(!result.ranked.empty());
    CHECK(result.ranked.front().samples_per_second == brute);
    CHECK(result.ranked.front().global_batch == kGlobal);
    CHECK(result.exhaustive == (limit > 0));
    // The written config plans to the very same figures.
    check_reproduces(model, result.ranked.front());
  }
}

TEST_CASE("tune gives the same plans on 1 and 2 threads") {
  const TuneRequest request = coordinate_search_on_four_ipus("threads.toml");
  const TuneResult one = tune_on_threads(request, 1);
  const TuneResult two = tune_on_threads(request, 2);
  REQUIRE(!one.timed_out);
  REQUIRE(!two.timed_out);
  CHECK(one.planned == two.planned);
  CHECK(one.pruned == two.pruned);
  REQUIRE(one.ranked.size() == two.ranked.size());
  REQUIRE(one.ranked.size() > 1);
  for (size_t k = 0; k < one.ranked.size(); ++k) {
    CAPTURE(k);
    CHECK(one.ranked[k].samples_per_second == two.ranked[k].samples_per_second);
    CHECK(one.ranked[k].changes == two.ranked[k].changes);
    CHECK(one.ranked[k].toml == two.ranked[k].toml);
  }
}

TEST_CASE("a plan budget stops the search at the same candidate, whatever the thread count") {
  TuneRequest request = coordinate_search_on_four_ipus("plans.toml");
  const TuneResult whole = tune_to_the_end(request);
  REQUIRE(!whole.plans_spent);
  REQUIRE(whole.planned > 12);
  // 11 plans: a round of 8, then one cut to the 3 left.
  request.plans = 11;
  const TuneResult one = tune_on_threads(request, 1);
  const TuneResult two = tune_on_threads(request, 2);
  CHECK(one.plans_spent);
  CHECK(!one.timed_out);
  CHECK(!one.exhaustive);
  CHECK(one.planned == 11);
  CHECK(two.planned == 11);
  // The written config extends the input and sets only what the request and the plan changed.
  const std::string& toml = one.ranked.front().toml;
  CHECK(toml.find("\nextends = ") != std::string::npos);
  CHECK(toml.find("[optimizer]") == std::string::npos);  // the input's, not changed
  CHECK(toml.find("auto_select_ipus") == std::string::npos);
  CHECK(toml.find("seed = 7") == std::string::npos);
  check_reproduces(request.model_path, one.ranked.front());
  // Each candidate counted once: the 11 planned, the pruned and the rest not tried make the space.
  CHECK(one.variants == 0);
  CHECK(one.untried > 0);
  CHECK(one.planned + one.pruned + one.untried == one.space);
  CHECK(one.pruned == two.pruned);
  REQUIRE(one.ranked.size() == two.ranked.size());
  for (size_t k = 0; k < one.ranked.size(); ++k) {
    CAPTURE(k);
    CHECK(one.ranked[k].changes == two.ranked[k].changes);
    CHECK(one.ranked[k].samples_per_second == two.ranked[k].samples_per_second);
  }
  // The [tune] key does the same as the request's field.
  request.plans = 0;
  request.config_path = write("plans_key.toml", kRun + "[ipu]\nauto_select_ipus = 4\n[tune]\nplans = 11\n");
  const TuneResult keyed = tune_to_the_end(request);
  CHECK(keyed.planned == 11);
  CHECK(keyed.plans_spent);
}

TEST_CASE("a tuned config trains the same weights as the one-IPU run, bit for bit") {
  const std::string model = write("mlp4.ipu", kModel);
  // The micro-batch is fixed (bits depend on it); the global batch is 16 micro-batches.
  const std::string run = kRun + "[pipeline]\nreduction_method = \"mean\"\n";
  const std::string config = write("four.toml", run + "[ipu]\nauto_select_ipus = 4\n");
  TuneRequest request;
  request.model_path = model;
  request.config_path = config;
  request.sets = {"data.batch_size=4"};
  request.global_batch = 64;
  request.time_seconds = 60;
  const TuneResult result = tune_to_the_end(request);
  REQUIRE(!result.ranked.empty());
  const TunedPlan& best = result.ranked.front();
  CHECK(best.micro_batch == 4);
  CHECK(best.accumulation * best.replicas == 16);
  MESSAGE("tuned: " << best.summary);

  auto train = [&](const Config& c) {
    Session session(Model::load(model, c), c);
    session.train();
    return session.weights();
  };
  const std::string tuned = write("four_tuned.toml", best.toml);
  const auto got = train(config::load(tuned));
  const auto want =
      train(config::load(write("one.toml", run), {"data.batch_size=4", "pipeline.gradient_accumulation_count=16"}));
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    REQUIRE(got[i].values.size() == want[i].values.size());
    CHECK_MESSAGE(std::memcmp(got[i].values.data(), want[i].values.data(), got[i].values.size() * sizeof(float)) == 0,
                  got[i].name << " differs");
  }
}

TEST_CASE("a stateful recurrent model keeps one replica and its micro-batch") {
  const std::string model = write("stateful.ipu", R"(import nn
model rnn(batch: int = 4) {
  input x: f32[batch, 16]
  input label: i32[batch]
  h = nn.gru(reshape(x, [batch, 4, 4]), 8, stateful = true)
  loss = mean(softmax_cross_entropy(nn.dense(h, 10), label))
  minimize loss
  output loss
}
)");
  std::string run = kRun;
  run.replace(run.find("[training]"), 10, "shuffle = false\n[training]");
  TuneRequest request;
  request.model_path = model;
  request.config_path = write("stateful.toml", run + "[ipu]\nauto_select_ipus = 4\n");
  request.global_batch = 32;
  request.time_seconds = 60;
  const TuneResult result = tune_to_the_end(request);
  REQUIRE(!result.ranked.empty());
  for (const TunedPlan& p : result.ranked) {
    CAPTURE(p.summary);
    CHECK(p.replicas == 1);
    CHECK(p.micro_batch == 4);
  }
}

TEST_CASE("a request tune cannot meet is a located error") {
  const std::string model = write("mlp4.ipu", kModel);
  TuneRequest request;
  request.model_path = model;
  request.config_path = write("err.toml", kRun + "[ipu]\nauto_select_ipus = 4\n");
  request.sets = {"data.batch_size=4"};
  request.global_batch = 6;  // 4 samples per micro-batch never make 6
  try {
    tune(request);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    CHECK(e.diagnostic().message == "no layout of " + model + " on 4 IPUs holds a global batch of 6");
    CHECK(e.diagnostic().hint.find("--batch-tolerance") != std::string::npos);
  }
  // A fixed key the rules refuse is the config's located error, before any search.
  request.sets = {"data.batch_size=4", "pipeline.device_mapping=[0, 1, 2, 3]",
                  "pipeline.gradient_accumulation_count=3"};
  try {
    tune(request);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Config);
    CHECK(e.render().find("pipeline.gradient_accumulation_count") != std::string::npos);
    CHECK(e.diagnostic().hint == "use 8 (or another multiple of it), or unset the key to get 8");
  }
}

namespace {

constexpr int64_t kDefaultMemoryPerTile = 638976;

std::string fmt_mpt(int64_t memory_per_tile) {
  return "[device]\nmemory_per_tile = " + std::to_string(memory_per_tile) + "\n";
}

std::string fmt_sets(const std::vector<std::string>& sets) {
  std::string out;
  for (const std::string& s : sets) {
    out += s + "; ";
  }
  return out;
}

// The recomputation modes among the ranked plans of `result` ("off" where recomputation is off).
std::set<std::string> modes_ranked(const TuneResult& result, const std::string& configured) {
  std::set<std::string> modes;
  for (const TunedPlan& t : result.ranked) {
    std::string mode = configured;
    for (const std::string& c : t.changes) {
      mode = c == "ipu.allow_recompute=false" ? "off" : mode;
      if (c.rfind("pipeline.recomputation_mode=", 0) == 0 && mode != "off") {
        mode = c.substr(c.find('=') + 1);
      }
    }
    modes.insert(mode);
  }
  return modes;
}

}  // namespace

TEST_CASE("tune tries every recomputation mode where [tune] lets it vary, and keeps the config's otherwise") {
  const std::string model = write("mlp4.ipu", kModel);
  const std::string on = kRun +
                         "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n"
                         "[pipeline]\nrecomputation_mode = \"recompute_then_backpropagate\"\n"
                         "device_mapping = [0, 0, 1, 1]\nschedule = \"grouped\"\n"
                         "[tune]\ntop = 64\navailable_memory_proportion = [0.6]\n";
  TuneRequest request;
  request.model_path = model;
  request.global_batch = 16;
  request.time_seconds = 120;
  const std::set<std::string> every = {"off", "recompute_then_backpropagate",
                                       "recompute_and_backpropagate_interleaved"};
  // Set by the config, not listed by [tune]: a constraint.
  request.config_path = write("rec_fixed.toml", on);
  CHECK(modes_ranked(tune_to_the_end(request), "recompute_then_backpropagate") ==
        std::set<std::string>{"recompute_then_backpropagate"});
  // Listed by [tune]: every mode listed, off included, although the config turns recomputation on.
  request.config_path = write("rec_listed.toml", on + "recomputation = [\"off\", \"recompute_then_backpropagate\", "
                                                      "\"recompute_and_backpropagate_interleaved\"]\n");
  CHECK(modes_ranked(tune_to_the_end(request), "recompute_then_backpropagate") == every);
  // Freed by vary_layout without a list: every mode too (the layout stays in [tune]'s schedule).
  request.config_path = write("rec_vary.toml", on + "vary_layout = true\nschedule = [\"grouped\"]\n");
  CHECK(modes_ranked(tune_to_the_end(request), "recompute_then_backpropagate") == every);
  // --keep-layout turns [tune] vary_layout off again: the config's mode is a constraint.
  request.keep_layout = true;
  CHECK(modes_ranked(tune_to_the_end(request), "recompute_then_backpropagate") ==
        std::set<std::string>{"recompute_then_backpropagate"});
}

TEST_CASE("tune's memory bound is below every candidate's peak, and its pruned search finds the brute-force optimum") {
  const std::string model = write("mlp4.ipu", kModel);
  // Two replicas of two IPUs: the space is the micro-batch (the three of 1 to 8 whose accumulation
  // the grouped schedule admits for a global batch of 64) and every memory knob, sharding and
  // offloading included: 96 candidates, each planned.
  const auto config_of = [&](int64_t memory_per_tile) {
    return write("bound.toml", kRun + fmt_mpt(memory_per_tile) +
                                   "[ipu]\nauto_select_ipus = 4\n"
                                   "[pipeline]\ndevice_mapping = [0, 0, 1, 1]\nschedule = \"grouped\"\n"
                                   "[tune]\nmicro_batch = [1, 8]\nrecomputation = [\"off\"]\n"
                                   "available_memory_proportion = [0.6, 0.1]\n"
                                   "offload_weight_update_variables = [false, true]\n"
                                   "offload_gradient_accumulation_buffers = [false, true]\n"
                                   "replicated_optimizer_state_sharding = [false, true]\n"
                                   "replicated_weight_sharding = [false, true]\n");
  };
  TuneRequest request;
  request.model_path = model;
  request.global_batch = 64;
  request.time_seconds = 300;
  request.keep_candidates = true;
  request.top = 200;
  const auto check_bounds = [](const TuneResult& result) {
    int64_t bounded = 0;
    for (const TunedCandidate& c : result.candidates) {
      CAPTURE(fmt_sets(c.sets));
      if (c.fits) {
        CHECK(c.bound_bytes <= c.peak_bytes);
        bounded += c.bound_bytes > 0 ? 1 : 0;
      }
    }
    return bounded;
  };
  // Everything fits: every candidate planned, the bound of each checked against its peak.
  request.config_path = config_of(kDefaultMemoryPerTile);
  const TuneResult all = tune_to_the_end(request);
  REQUIRE(all.candidates.size() == 96);
  CHECK(all.pruned == 0);
  CHECK(check_bounds(all) > 48);  // most candidates have a bound to check
  // Capacities below most peaks: many candidates do not fit, and those that need no less memory
  // than one of them are pruned unplanned; the search of every candidate still finds the
  // brute-force optimum.
  std::vector<int64_t> peaks;
  for (const TunedCandidate& c : all.candidates) {
    peaks.push_back(c.peak_bytes);
  }
  std::sort(peaks.begin(), peaks.end());
  const int64_t tiles = 1472;
  for (size_t quantile : {size_t{4}, size_t{16}}) {
    request.config_path = config_of(peaks[peaks.size() / quantile] / tiles);
    request.exhaustive_limit = 100000;
    const TuneResult pruned = tune_to_the_end(request);
    CAPTURE(quantile);
    CHECK(pruned.pruned > 0);
    // Every candidate counted once: planned or pruned (the search of every candidate tries them all).
    CHECK(pruned.planned - pruned.variants + pruned.pruned == pruned.space);
    CHECK(pruned.untried == 0);
    CHECK(pruned.failed <= pruned.planned - pruned.variants);
    MESSAGE("capacity at the 1/" << quantile << " quantile of the peaks: " << pruned.pruned << " of "
                                 << pruned.candidates.size() << " pruned, " << pruned.planned << " planned");
    check_bounds(pruned);
    double brute = 0;
    for (const TunedCandidate& c : pruned.candidates) {
      const double speed = plan_speed(model, request.config_path, c.sets);
      CAPTURE(fmt_sets(c.sets));
      CHECK((!c.pruned || speed == 0));  // a pruned candidate does not fit
      brute = std::max(brute, speed);
    }
    if (pruned.input_fits && pruned.input.global_batch == 64) {
      brute = std::max(brute, pruned.input.samples_per_second);  // the input config is ranked too
    }
    REQUIRE(brute > 0);
    // The best plan of the space; the per-stage memory proportions tried around it may beat it.
    const auto in_space = std::find_if(pruned.ranked.begin(), pruned.ranked.end(), [](const TunedPlan& t) {
      return std::none_of(t.changes.begin(), t.changes.end(), [](const std::string& c) {
        return c.find("_propagation_stages_poplar_options") != std::string::npos;
      });
    });
    REQUIRE(in_space != pruned.ranked.end());
    CHECK(in_space->samples_per_second == brute);
    CHECK(pruned.ranked.front().samples_per_second >= brute);
    // The coordinate search (a local search: not bound to the optimum) finds a plan that fits
    // where only accumulators off-chip make the smallest micro-batch fit: its seeds' second probe.
    request.exhaustive_limit = 0;
    CHECK(tune_to_the_end(request).ranked.front().peak_bytes > 0);
  }
}

namespace {

// Four stages of `n` dense layers each: a plan of many ops, slow to make.
const std::string kDeepModel = R"(import nn

layer tower(x: f32[b, d], n: int) {
  for i in 0..n {
    x = nn.dense(x, d, activation = relu)
  }
  return x
}

model deep(batch: int = 16, n: int = 48) {
  input x: f32[batch, 64]
  input label: i32[batch]
  stage s0 { h0 = tower(x, n) }
  stage s1 { h1 = tower(h0, n) }
  stage s2 { h2 = tower(h1, n) }
  stage s3 {
    logits = nn.dense(tower(h2, n), 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
}
)";

// The plan clock's readings a whole plan makes: one at each checkpoint of a deadline it never
// reaches (planner/deadline.hpp), on a clock that advances a millisecond per reading.
int64_t checkpoints(const Model& model, const Config& config) {
  const planner::TickClock clock(std::chrono::milliseconds(1));
  PlanRequest request;
  request.deadline = planner::PlanClockTime::max();
  (void)Plan::make(model, config, request);
  return clock.readings();
}

}  // namespace

// Counted, not timed: the test's clock advances one tick at each reading, so a deadline k ticks
// away is reached at the plan's k-th checkpoint whatever the machine's load (issue 43).
TEST_CASE("tune stops at its budget: a plan still being made is abandoned") {
  const std::string model_path = write("deep.ipu", kDeepModel);
  const std::string config_path = write("deep.toml", kRun + "[ipu]\nauto_select_ipus = 4\n");
  const Config config = config::load(config_path);
  const Model model = Model::load(model_path, config);
  const int64_t whole = checkpoints(model, config);
  MESSAGE("a whole plan checks its deadline " << whole << " times");
  REQUIRE(whole >= 30);  // between the 10 passes, and in the buffer assignment's loops
  // A deadline part of the way in: the plan stops at the first checkpoint at or past it.
  for (double part : {0.2, 0.4, 0.6}) {
    CAPTURE(part);
    const int64_t at = static_cast<int64_t>(part * static_cast<double>(whole));
    const planner::TickClock clock(std::chrono::milliseconds(1));
    PlanRequest request;
    request.deadline = clock.at(at);
    try {
      (void)Plan::make(model, config, request);
      FAIL("planned past its deadline");
    } catch (const Error& e) {
      CHECK(e.diagnostic().message == kPlanAbandoned);
    }
    CHECK(clock.readings() == at);  // abandoned at the deadline's checkpoint, not one later
  }
  // A budget of a third of one plan: the search (its input plan, then the calibrations) ends
  // within half a plan of it, with whatever it found: nothing, as its input plan was abandoned (a
  // located error says so).
  const int64_t budget = whole / 3;
  const planner::TickClock clock(std::chrono::milliseconds(1));
  TuneRequest request;
  request.model_path = model_path;
  request.config_path = config_path;
  request.global_batch = 64;
  request.time_seconds = 1e-3 * static_cast<double>(budget);
  try {
    const TuneResult result = tune(request);
    CHECK(result.timed_out);
    CHECK(!result.input_fits);  // a plan planned to its end, past the budget
  } catch (const Error& e) {
    CHECK(e.diagnostic().message.find("before the time ran out") != std::string::npos);
  }
  MESSAGE("a search with a budget of " << budget << " readings made " << clock.readings());
  CHECK(clock.readings() > budget);
  CHECK(clock.readings() < budget + whole / 2);
}
