// `iputrain verify MODEL CONFIG`: the promise that every plan trains the same bits as one IPU
// (docs/architecture invariants, tests/engine/equivalence_test.cpp), checked on the user's own
// config. The config's plan and the one-IPU reference train side by side, one update per train()
// call (as the REPL's `step`), and after each update every replica's weights and the optimizer
// state are compared bit for bit with the reference's.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "cli/command.hpp"
#include "cli/commands.hpp"

namespace iputrain::cli {

namespace {

struct VerifyArgs : CommonArgs {
  int64_t steps = 3;
  std::string perturb;  //!< test hook: STEP:REPLICA:WEIGHT[:DELTA] ("" = none)
};

//! The test hook's request: after update `step`, add `delta` to `weight` on replica `replica`.
struct Perturbation {
  int64_t step = 0;
  int32_t replica = 1;
  std::string weight;
  float delta = 1e-5f;
};

Perturbation parse_perturbation(const std::string& text) {
  const auto bad = [&]() {
    return Error(ErrorKind::Usage, fmt::format("--test-perturb `{}`: expected STEP:REPLICA:WEIGHT[:DELTA]", text), {},
                 "for example --test-perturb 2:1:hidden/dense/kernel");
  };
  const size_t a = text.find(':');
  const size_t b = a == std::string::npos ? a : text.find(':', a + 1);
  if (b == std::string::npos) {
    throw bad();
  }
  const size_t c = text.find(':', b + 1);
  Perturbation p;
  try {
    p.step = std::stoll(text.substr(0, a));
    p.replica = std::stoi(text.substr(a + 1, b - a - 1));
    p.weight = text.substr(b + 1, c == std::string::npos ? std::string::npos : c - b - 1);
    if (c != std::string::npos) {
      p.delta = std::stof(text.substr(c + 1));
    }
  } catch (const std::exception&) {
    throw bad();
  }
  if (p.step < 1 || p.weight.empty()) {
    throw bad();
  }
  return p;
}

// True when the reference must keep the plan's replicas: `sum` adds the micro-batches but averages
// the replicas, so R replicas of A micro-batches train a gradient 1/R of one IPU's R x A sum; and a
// model whose values depend on the replica (its own collectives, a distributed batch norm) computes
// other numbers on other replicas.
bool keeps_replicas(const Config& config, const Plan& plan) {
  return (config.plain.pipeline_reduction_method == GradientReduction::Sum || plan.replica_dependent()) &&
         plan.replicas() > 1;
}

// The one-IPU run of the same training: every layout key (config::without_layout: the keys whose
// row says so) back to its default, every model stage on IPU 0, the global batch kept by
// accumulating all of the plan's micro-batches (replicas x accumulation) there; batch serialization
// stays, so the micro-batch is the plan's. The reference of tests/engine/equivalence_test.cpp, built
// from the user's config. Under `sum` with replicas, one IPU per replica instead (keeps_replicas).
Config reference_config(const Config& config, const Model& model, const Plan& plan) {
  const int64_t serialized = std::max<int64_t>(1, config.plain.pipeline_batch_serialization_iterations);
  const int32_t replicas = keeps_replicas(config, plan) ? plan.replicas() : 1;
  Config r = config::without_layout(config);
  r.plain.ipu_auto_select_ipus = replicas;
  r.plain.pipeline_device_mapping.assign(model.stages().size(), std::vector<int64_t>{0});
  r.plain.pipeline_gradient_accumulation_count = plan.accumulation_count() / serialized * plan.replicas() / replicas;
  r.plain.pipeline_schedule = config::unpipelined_schedule();  // one IPU: it accepts any accumulation count
  return r;
}

// One update per train() call, and nothing written: verify leaves no files behind.
Config stepwise(Config config) {
  config.plain.training_steps = 1;
  config.plain.checkpoint_dir.clear();
  config.plain.profiling_enabled = false;
  config.plain.profiling_enable_ipu_events = false;
  return config;
}

//! Where the first difference was found.
struct Difference {
  const StateTensor* got = nullptr;
  int32_t replica = 0;
  double largest = 0;
  int64_t elements = 0;  //!< elements that differ
};

// Bits, not values: -0 against 0 and NaN payloads count, as a resumed run would see them.
std::optional<Difference> differ(const StateTensor& got, const StateTensor& want, int32_t replica) {
  if (got.values.size() == want.values.size() &&
      std::memcmp(got.values.data(), want.values.data(), got.values.size() * sizeof(float)) == 0) {
    return std::nullopt;
  }
  Difference d{&got, replica, 0, 0};
  if (got.values.size() != want.values.size()) {
    d.largest = INFINITY;
    d.elements = static_cast<int64_t>(got.values.size());
    return d;
  }
  for (size_t i = 0; i < got.values.size(); ++i) {
    if (std::memcmp(&got.values[i], &want.values[i], sizeof(float)) != 0) {
      ++d.elements;
      const double diff = std::fabs(static_cast<double>(got.values[i]) - static_cast<double>(want.values[i]));
      d.largest = std::isnan(diff) || std::isnan(d.largest) ? NAN : std::max(d.largest, diff);
    }
  }
  return d;
}

// The first tensor in declaration order that differs on any replica, and the first such replica.
std::optional<Difference> first_difference(const std::vector<std::vector<StateTensor>>& replicas,
                                           const std::vector<StateTensor>& reference) {
  for (size_t t = 0; t < reference.size(); ++t) {
    for (size_t r = 0; r < replicas.size(); ++r) {
      if (t >= replicas[r].size() || replicas[r][t].name != reference[t].name) {
        throw Error(ErrorKind::Internal,
                    fmt::format("the plan and the reference hold different tensors (`{}`)", reference[t].name));
      }
      if (auto d = differ(replicas[r][t], reference[t], static_cast<int32_t>(r))) {
        return d;
      }
    }
  }
  return std::nullopt;
}

std::string describe(const Plan& plan) {
  return fmt::format("{} replica{} x {} IPU{}, {}, {} micro-batches of {} per replica", plan.replicas(),
                     plan.replicas() == 1 ? "" : "s", plan.ipus_per_replica(), plan.ipus_per_replica() == 1 ? "" : "s",
                     plan.schedule(), plan.accumulation_count(), plan.micro_batch());
}

void report_difference(const Difference& d, int64_t step) {
  const StateTensor& t = *d.got;
  const std::string what = t.optimizer_state ? fmt::format("optimizer state of weight `{}`", t.weight) : "weight";
  fmt::print("verify: DIFFERS at step {}: `{}` ({}) on replica {}, stage `{}`, IPU {} (physical IPU {})\n", step,
             t.name, what, d.replica, t.stage, t.ipu, t.physical_ipu);
  fmt::print("  largest absolute difference {:.3g}; {} of {} elements differ; every step before agreed\n", d.largest,
             d.elements, t.values.size());
}

int run_verify(const VerifyArgs& args) {
  if (args.steps < 1) {
    throw Error(ErrorKind::Usage, fmt::format("--steps {}: verify needs at least one step", args.steps), {},
                "--steps 3 is a quick check; more steps reach more of a schedule (warmup, decay)");
  }
  const std::optional<Perturbation> perturb =
      args.perturb.empty() ? std::nullopt : std::optional<Perturbation>(parse_perturbation(args.perturb));
  auto [config, model, run] = load(args);
  if (!model.trainable()) {
    throw Error(ErrorKind::Usage, "the model has no `minimize` objective, so there is no training to verify", {},
                "add `minimize LOSS` to the model");
  }
  const ResolvedConfig plan_config(stepwise(config), current_instances());
  const Plan plan = Plan::make(model, plan_config);
  const ResolvedConfig ref_config(stepwise(reference_config(config, model, plan)), current_instances());
  const Plan ref_plan = Plan::make(model, ref_config);
  fmt::print("verify: plan      {}\n", describe(plan));
  fmt::print("verify: reference {}\n", describe(ref_plan));
  if (keeps_replicas(config, plan)) {
    fmt::print("verify: {}: the reference keeps them, one IPU each\n",
               plan.replica_dependent()
                   ? "the model computes values across its replicas (its collectives, replication_index)"
                   : "reduction_method = \"sum\" averages the replicas, which one IPU cannot");
  }
  Session session(model, plan_config, plan);
  Session reference(model, ref_config, ref_plan);
  size_t tensors = 0;
  for (int64_t step = 1; step <= args.steps; ++step) {
    session.train();
    reference.train();
    if (session.step() != step || reference.step() != step) {
      throw Error(ErrorKind::Internal, fmt::format("verify expected step {}, the runs are at {} and {}", step,
                                                   session.step(), reference.step()));
    }
    if (perturb && perturb->step == step) {
      session.perturb_replica_for_test(perturb->replica, perturb->weight, perturb->delta);
    }
    std::vector<std::vector<StateTensor>> replicas;
    for (int32_t r = 0; r < session.replicas(); ++r) {
      replicas.push_back(session.training_state(r));
    }
    const std::vector<StateTensor> want = reference.training_state(0);
    if (const std::optional<Difference> d = first_difference(replicas, want)) {
      report_difference(*d, step);
      return 1;
    }
    tensors = want.size();
  }
  fmt::print(
      "verify: bitwise equal: {} tensors (weights and optimizer state) on each of {} replica{}, after each "
      "of {} step{}\n",
      tensors, session.replicas(), session.replicas() == 1 ? "" : "s", args.steps, args.steps == 1 ? "" : "s");
  return 0;
}

Runner add_verify(CLI::App& cmd) {
  auto args = std::make_shared<VerifyArgs>();
  add_common(cmd, *args);
  cmd.add_option("--steps", args->steps, "weight updates to train and compare after each (default 3)")->type_name("N");
  // A test hook, hidden from --help: breaks one replica on purpose so the tests see verify catch it.
  cmd.add_option("--test-perturb", args->perturb, "test hook: STEP:REPLICA:WEIGHT[:DELTA]")->group("");
  return [args](const CommandLine&) { return run_verify(*args); };
}

}  // namespace

const CommandDef kVerifyCommand{
    "verify", "train the config's plan and the one-IPU run side by side; exit 1 at the first bit that differs",
    add_verify};

}  // namespace iputrain::cli
