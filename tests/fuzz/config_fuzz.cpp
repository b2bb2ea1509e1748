// Fuzz target: a config file's text through the TOML loader, the schema, the rules and the
// resolution of settings (config::parse), then the effective config shown as TOML.
#include <string>

#include "fuzz_input.hpp"
#include "iputrain/config_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  iputrain::fuzz::expect_diagnosed([&] {
    const iputrain::Config config = iputrain::config::parse(text, "fuzz.toml");
    (void)iputrain::config::show(config);
  });
  return 0;
}
