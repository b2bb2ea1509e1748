// What a weight file or checkpoint holds, read from its header alone (include/iputrain/weight_file.hpp,
// for `iputrain inspect`): its tensors, their types and shapes, its metadata.
#include "iputrain/weight_file.hpp"

#include "core/data/mapped_file.hpp"
#include "core/data/safetensors.hpp"
#include "engine/checkpoint.hpp"

namespace iputrain {

WeightFileContents read_weight_file_contents(const std::string& dir_or_file) {
  WeightFileContents out;
  out.path = engine::resolve_checkpoint(dir_or_file);
  const data::MappedFile file(out.path);
  const data::SafetensorsIndex index = data::parse_safetensors_index(file.data(), file.size(), out.path);
  out.file_bytes = file.size();
  out.metadata = index.metadata;
  const auto format = index.metadata.find("format");
  out.checkpoint = format != index.metadata.end() && format->second == engine::kCheckpointFormatName;
  for (const data::SafetensorsEntry& e : index.entries) {
    const bool state = out.checkpoint && e.name.rfind(engine::kOptimizerStatePrefix, 0) == 0;
    out.tensors.push_back({e.name, e.dtype, e.shape, e.end - e.begin, state});
  }
  return out;
}

}  // namespace iputrain
