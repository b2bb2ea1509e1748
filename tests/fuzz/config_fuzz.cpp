// Fuzz target: a config file's text through the TOML loader, the schema, the rules and the
// resolution of settings (Config::parse), then the effective config shown as TOML.
#include <string>

#include "fuzz_input.hpp"
#include "iputrain/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  iputrain::fuzz::expect_diagnosed([&] {
    const iputrain::Config config = iputrain::Config::parse(text, "fuzz.toml");
    (void)config.show();
  });
  return 0;
}
