// Fuzz target: JSON Lines files (the jsonl: source: JSON syntax, objects, fields per input, nesting,
// numbers against the inputs' dtypes), read for the model inputs the selector chooses; a selector
// of 128 or more reads without a model (every field of the first object).
#include "fuzz_input.hpp"
#include "read_samples.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iputrain;
  const fuzz::Input in = fuzz::split_input(data, size);
  fuzz::clear_scratch();
  const std::string path = fuzz::write_scratch("data.jsonl", in.payload);
  const std::vector<data::Field> wanted =
      in.selector >= 128 ? std::vector<data::Field>{} : fuzz::wanted_fields(in.selector);
  fuzz::expect_diagnosed([&] { fuzz::read_samples(*data::open_dataset("jsonl:" + path, "", wanted, 0)); });
  return 0;
}
