// Fuzz target: REPL command lines (repl::run_line), one per line of the input, on a session of a
// small two-stage model: show, memory, schedule, set/unset (which re-plan), diff, explain, weights,
// sweep, help. `step`, `trace` and `save-config` are left out: they train and write files, which
// the CLI's own tests cover; `quit` ends the input.
#include <cstdio>
#include <sstream>
#include <string>

#include "cli/repl/commands.hpp"
#include "fuzz_input.hpp"

namespace {

const char* const kModel = R"(import nn
model small(batch: int = 4) {
  input x: f32[batch, 6]
  input label: i32[batch]
  stage a { h = nn.dense(x, 8, activation = relu) }
  stage b { logits = nn.dense(h, 3) }
  minimize mean(softmax_cross_entropy(logits, label))
}
)";

const char* const kConfig = R"([ipu]
auto_select_ipus = 2
[pipeline]
gradient_accumulation_count = 4
[data]
train = "synthetic:samples=64,classes=3"
batch_size = 4
)";

bool skipped(const std::string& line) {
  std::istringstream words(line);
  std::string first;
  words >> first;
  return first == "step" || first == "trace" || first == "save-config" || first == "quit" || first == "exit";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iputrain;
  static const std::string model = fuzz::write_scratch("small.ipu", kModel);
  static const std::string config = fuzz::write_scratch("small.toml", kConfig);
  // The commands print to standard output: silenced (a fuzz run would print millions of plans).
  static FILE* const quiet = std::freopen("/dev/null", "w", stdout);
  (void)quiet;
  repl::State state(model, config, {});
  for (const std::string& line : fuzz::lines_of(data, size)) {
    if (!skipped(line)) {
      fuzz::expect_diagnosed([&] { (void)repl::run_line(state, line); });
    }
  }
  return 0;
}
