// Fuzz target: `--set KEY=VALUE` overrides, one per line of the input, applied to a config that
// sets a few keys of each section (config::parse with sets).
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "iputrain/config_loader.hpp"

namespace {

const char* const kBase = R"([ipu]
auto_select_ipus = 2
[pipeline]
gradient_accumulation_count = 4
[optimizer]
type = "adam"
learning_rate = 0.001
[data]
batch_size = 8
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> sets = iputrain::fuzz::lines_of(data, size);
  iputrain::fuzz::expect_diagnosed(
      [&] { (void)iputrain::config::show(iputrain::config::parse(kBase, "fuzz.toml", sets)); });
  return 0;
}
