// Fuzz target: checkpoints: a file in a checkpoint folder read as the newest checkpoint
// (read_checkpoint: the safetensors layout plus the run's metadata) and as weights (read_weights).
#include "engine/checkpoint.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iputrain;
  fuzz::clear_scratch();
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  fuzz::write_scratch("run/" + engine::checkpoint_file_name(100), bytes);
  const std::string dir = fuzz::scratch_dir() + "/run";
  fuzz::expect_diagnosed([&] { (void)engine::read_checkpoint(dir); });
  fuzz::expect_diagnosed([&] { (void)engine::read_weights(dir); });
  return 0;
}
