// A key is its row (issue 48, point 1): throwaway keys added through their rows alone
// (config::add_key_for_tests, the schema's test hook) are recorded and checked by --resume when the
// row says they define the run, reset by verify's one-IPU reference when it says layout, offered by
// tune when it says tunable, and documented by `config docs`, with no other line of product code.
//
// A throwaway key needs a Config field to hold its value, and a test cannot add one: each row
// borrows the field of a key that nothing in these runs reads (the pipeline's name, a no-effect
// Poplar flag, a profiling count), under a path of its own, which is what the commands see.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "frontend/config/bind.hpp"
#include "iputrain/iputrain.hpp"
#include "iputrain/tune.hpp"

using namespace iputrain;
namespace fs = std::filesystem;

namespace {

const std::string kModel = R"(import nn

model tiny(batch: int = 4) {
  input x: f32[batch, 8]
  input label: i32[batch]
  logits = nn.dense(nn.dense(x, 16, activation = relu), 10)
  loss = mean(softmax_cross_entropy(logits, label))
  minimize loss
  output loss
}
)";

const std::string kRun =
    "[optimizer]\ntype = \"sgd\"\nlearning_rate = 0.05\n"
    "[data]\ntrain = \"synthetic:samples=256,classes=10\"\nbatch_size = 4\n"
    "[training]\nsteps = 2\nseed = 5\n";

// The throwaway rows, registered once for the whole program by the first case (not at static
// initialisation: the schema's rows read the optimizer table, another file's globals).
struct Rows {
  Rows() {
    using config::detail::key;
    using enum config::KeyType;
    using enum config::Effect;
    config::add_key_for_tests(key("training.throwaway_defining",
                                  config::detail::bind([](auto& c) -> auto& { return c.plain.pipeline_name; }), String,
                                  "pipeline", Runs, "A throwaway key that defines the run (test).")
                                  .defining());
    config::add_key_for_tests(
        key("training.throwaway_free",
            config::detail::bind([](auto& c) -> auto& { return c.plain.profiling_max_report_size; }), Int, 268435456,
            Runs, "A throwaway key that does not define the run (test).", config::Range::at_least(1)));
    config::add_key_for_tests(key("pipeline.throwaway_layout", config::detail::bind([](auto& c) -> auto& {
                                    return c.plain.profiling_report_every_nth_execution;
                                  }),
                                  Int, 0, Runs, "A throwaway layout key (test).", config::Range::at_least(0))
                                  .as_layout());
    config::add_key_for_tests(key("pipeline.throwaway_tunable", config::detail::bind([](auto& c) -> auto& {
                                    return c.plain.profiling_use_poplar_text_report;
                                  }),
                                  Bool, false, Runs, "A throwaway tunable key (test).")
                                  .as_tunable());
    config::KeySpec needing =
        key("checkpoint.throwaway_needing",
            config::detail::bind([](auto& c) -> auto& { return c.plain.profiling_enable_poplar_serialized_graph; }),
            Bool, false, Runs, "A throwaway key that needs another (test).");
    needing.needs = "checkpoint.dir";
    config::add_key_for_tests(std::move(needing));
  }
};
void add_rows() { static const Rows rows; }

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = iputrain_tests::scratch_dir("throwaway_key_test") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("a throwaway key is documented by config docs and explained from its row") {
  add_rows();
  const std::string docs = config::reference_markdown();
  for (const char* key : {"training.throwaway_defining", "pipeline.throwaway_layout", "pipeline.throwaway_tunable"}) {
    CAPTURE(key);
    CHECK(docs.find(key) != std::string::npos);
  }
  CHECK(docs.find("A throwaway layout key (test).") != std::string::npos);
  CHECK(config::explain("pipeline.throwaway_tunable").find("A throwaway tunable key (test).") != std::string::npos);
}

TEST_CASE("a throwaway key whose row defines the run is checked by --resume, and one whose row does not is free") {
  add_rows();
  const fs::path dir = fresh_dir("resume");
  const std::string ckpt = "[checkpoint]\ndir = \"" + dir.string() + "\"\n";
  const auto session = [&](const std::string& defining, const std::string& free) {
    const Config c = config::parse(kRun + ckpt, "throwaway.toml",
                                   {"training.throwaway_defining=" + defining, "training.throwaway_free=" + free});
    return Session(Model::parse(kModel, "tiny.ipu", c.model), c);
  };
  // Set through the keys' paths: the loader, the checkpoint's run_config and resume all take the
  // keys from their rows.
  Session first = session("one", "1");
  first.train();
  CHECK(config::defines_run("training.throwaway_defining"));
  CHECK_FALSE(config::defines_run("training.throwaway_free"));
  {
    Session same = session("one", "2");
    CHECK(same.resume(dir.string()).step == 2);
  }
  Session changed = session("two", "1");
  try {
    changed.resume(dir.string());
    FAIL("resume accepted a run whose defining key changed");
  } catch (const Error& e) {
    const std::string text = e.diagnostic().message;
    CHECK(text.find("`training.throwaway_defining` was \"one\", is \"two\"") != std::string::npos);
    CHECK(text.find("throwaway_free") == std::string::npos);
  }
}

TEST_CASE("a throwaway key whose row says layout is reset by verify's one-IPU reference") {
  add_rows();
  const Config c = config::parse(kRun + "[pipeline]\nthrowaway_layout = 7\n");
  CHECK(config::value_text(c, "pipeline.throwaway_layout") == "7");
  const Config reference = config::without_layout(c);
  CHECK(config::value_text(reference, "pipeline.throwaway_layout") == "0");
  CHECK(config::value_text(reference, "training.steps") == "2");  // not layout: kept
}

TEST_CASE("a throwaway key whose row says tunable is offered by tune, unless the config fixes it") {
  add_rows();
  const fs::path dir = fresh_dir("tune");
  TuneRequest request;
  request.model_path = write(dir / "tiny.ipu", kModel);
  request.global_batch = 4;
  request.time_seconds = 300;
  request.keep_candidates = true;
  const std::string narrow =
      "[tune]\nschedule = [\"sequential\"]\nrecomputation = [\"off\"]\navailable_memory_proportion = [0.6]\n"
      "micro_batch = [4, 4]\noffload_weight_update_variables = [false]\n"
      "offload_gradient_accumulation_buffers = [false]\n";
  const auto values_tried = [&](const std::string& text) {
    request.config_path = write(dir / "tune.toml", text);
    std::set<std::string> out;
    for (const TunedCandidate& c : tune(request).candidates) {
      for (const std::string& set : c.sets) {
        if (set.starts_with("pipeline.throwaway_tunable=")) {
          out.insert(set);
        }
      }
    }
    return out;
  };
  CHECK(config::is_tunable("pipeline.throwaway_tunable"));
  CHECK(values_tried(kRun + narrow) ==
        std::set<std::string>{"pipeline.throwaway_tunable=true", "pipeline.throwaway_tunable=false"});
  // Set by the config: a constraint, as every knob.
  CHECK(values_tried(kRun + "[pipeline]\nthrowaway_tunable = true\n" + narrow).empty());
}

TEST_CASE("a throwaway key whose row names a key it needs is refused alone, located, and accepted with it") {
  add_rows();
  try {
    config::parse("[checkpoint]\nthrowaway_needing = true\n", "needs.toml");
    FAIL("a key without the key it needs was accepted");
  } catch (const Error& e) {
    CHECK(e.diagnostic().message == "`checkpoint.throwaway_needing` has no effect without `checkpoint.dir`");
    CHECK(e.hint() == "set `checkpoint.dir` too, or remove `checkpoint.throwaway_needing`");
    CHECK(e.span().line == 2);
  }
  CHECK_NOTHROW(config::parse("[checkpoint]\ndir = \"ckpt\"\nthrowaway_needing = true\n", "needs.toml"));
  // `config show` says why the key does nothing while the key it needs is unset.
  CHECK(config::show(config::parse("", "empty.toml"))
            .find("throwaway_needing = false  (unset; needs `checkpoint.dir`)") != std::string::npos);
}
