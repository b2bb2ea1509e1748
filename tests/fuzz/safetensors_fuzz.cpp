// Fuzz target: safetensors files: the header parser on the bytes (parse_safetensors_index), the
// weight-file reader (read_safetensors) and the data source (open_safetensors_data) on a file.
#include "core/data/safetensors.hpp"
#include "fuzz_input.hpp"
#include "read_samples.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iputrain;
  const fuzz::Input in = fuzz::split_input(data, size);
  fuzz::expect_diagnosed([&] {
    (void)data::parse_safetensors_index(reinterpret_cast<const uint8_t*>(in.payload.data()), in.payload.size(),
                                        "fuzz.safetensors");
  });
  fuzz::clear_scratch();
  const std::string path = fuzz::write_scratch("weights.safetensors", in.payload);
  fuzz::expect_diagnosed([&] { (void)data::read_safetensors(path); });
  fuzz::expect_diagnosed(
      [&] { fuzz::read_samples(*data::open_safetensors_data(path, fuzz::wanted_fields(in.selector))); });
  return 0;
}
