// Fuzz target: an IDX image/label pair (open_idx), plain or gzipped: the payload is cut in two, the
// images file and the labels file; the selector's low bit gzips nothing but names the files .gz,
// so the fuzzer writes gzip streams (and gzip bombs) itself.
#include "fuzz_input.hpp"
#include "read_samples.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iputrain;
  const fuzz::Input in = fuzz::split_input(data, size);
  const auto [images, labels] = fuzz::cut_in_two(in.payload);
  fuzz::clear_scratch();
  const std::string gz = (in.selector & 1) ? ".gz" : "";
  fuzz::write_scratch("set-images-idx3-ubyte" + gz, images);
  fuzz::write_scratch("set-labels-idx1-ubyte" + gz, labels);
  const DType dtype = (in.selector & 2) ? DType::F16 : DType::F32;
  fuzz::expect_diagnosed([&] { fuzz::read_samples(*data::open_idx(fuzz::scratch_dir() + "/set", dtype)); });
  return 0;
}
