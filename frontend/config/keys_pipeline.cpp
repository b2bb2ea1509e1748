// The [pipeline] keys: every argument of pipeline() (../shared/reference/ops_and_optimizers.md
// §1.1), same names except `pipeline_schedule` (here `schedule`) and `computational_stages` (here
// `stages`, the model's stage names). `inputs`, `infeed_queue`, `outfeed_queue` and
// `optimizer_function` are the model's inputs, [data], [training] outfeed_mode and [optimizer].
#include "frontend/config/bind.hpp"

namespace iputrain::config {

std::vector<KeySpec> pipeline_keys() {
  using detail::key;
  using enum KeyType;
  using enum Effect;
  std::vector<KeySpec> out = {
      key(IPUTRAIN_KEY(pipeline.stages), StringList, ValueList{}, Runs,
          "The model's stages in order (checked against the model); at least two when given."),
      key(IPUTRAIN_KEY(pipeline.device_mapping), NestedIntList, ValueList{}, Runs,
          "IPU of each stage within a replica (a list for parallel stages), e.g. [0, [1, 2], 3]; "
          "unset = stage i on IPU i (every stage on IPU 0 if the device has one IPU).",
          Range::at_least(0))
          .as_layout(),
      key(IPUTRAIN_KEY(pipeline.forward_propagation_stages_poplar_options), StageOptionsList, ValueList{}, Models,
          "Per forward stage: `{ convolution_options = {…}, matmul_options = {…} }`, over "
          "`ipu.convolutions.poplar_options` and `ipu.matmuls.poplar_options` for that stage's forward pass "
          "(availableMemoryProportion and partialsType are read)."),
      key(IPUTRAIN_KEY(pipeline.backward_propagation_stages_poplar_options), StageOptionsList, ValueList{}, Models,
          "Per backward stage, as `forward_propagation_stages_poplar_options`."),
      key(IPUTRAIN_KEY(pipeline.weight_update_poplar_options), StageOptions, ValueTable{}, None,
          "Options of the weight-update step: `{ convolution_options = {…}, matmul_options = {…} }`.")
          .no_effect("no optimizer's update has a matmul or a convolution, so its options have nothing to act on"),
  };
  out[0].unique = true;  // stage names
  return out;
}

}  // namespace iputrain::config
