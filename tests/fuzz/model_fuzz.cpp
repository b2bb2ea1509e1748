// Fuzz target: a model file's text through the parser and the elaborator (Model::parse), which
// reads the embedded stdlib on `import nn`.
#include <string>

#include "fuzz_input.hpp"
#include "iputrain/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  iputrain::fuzz::expect_diagnosed([&] { (void)iputrain::Model::parse(text, "fuzz.ipu"); });
  return 0;
}
