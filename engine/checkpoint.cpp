#include "engine/checkpoint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <system_error>

#include "core/data/mapped_file.hpp"
#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace fs = std::filesystem;

namespace {

std::string fnv1a_hex(const std::string& text) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bit
  for (const char c : text) {
    h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

struct Entry {
  int64_t step;
  fs::path path;
};

// The complete checkpoints of `dir`, oldest first. Temporary files of interrupted writes start
// with '.' and never match.
std::vector<Entry> list_checkpoints(const fs::path& dir) {
  static const std::regex kName(R"(step-(\d{1,18})\.safetensors)");
  std::vector<Entry> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string name = e.path().filename().string();
    if (e.is_regular_file(ec) && std::regex_match(name, m, kName)) {
      out.push_back({std::stoll(m[1].str()), e.path()});
    }
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.step < b.step; });
  return out;
}

// The temporary files write_safetensors leaves behind when a write of ours is interrupted.
void remove_stale_temporaries(const fs::path& dir) {
  static const std::regex kTemp(R"(\.step-\d{1,18}\.safetensors\.tmp\..*)");
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (std::regex_match(e.path().filename().string(), kTemp)) {
      stale.push_back(e.path());
    }
  }
  for (const fs::path& p : stale) {
    fs::remove(p, ec);
  }
}

// IPUTRAIN_FAULT_KILL_IN_CHECKPOINT=N: the N-th checkpoint write of this process dies half way.
bool kill_in_this_write() {
  static std::atomic<int64_t> writes{0};
  const int64_t n = ++writes;
  const char* env = std::getenv("IPUTRAIN_FAULT_KILL_IN_CHECKPOINT");
  return env != nullptr && std::atoll(env) == n;
}

[[noreturn]] void not_a_checkpoint(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::Data, fmt::format("`{}` is not an iputrain checkpoint: {}", path, what), {},
              "resume from a file written by `checkpoint.dir` or Session::save_checkpoint; plain weights "
              "load with --init-from");
}

const std::string& field(const std::map<std::string, std::string>& meta, const std::string& path,
                         const std::string& key) {
  const auto it = meta.find(key);
  if (it == meta.end()) {
    not_a_checkpoint(path, fmt::format("its metadata has no `{}`", key));
  }
  return it->second;
}

template <typename T>
T number(const std::map<std::string, std::string>& meta, const std::string& path, const std::string& key) {
  const std::string& text = field(meta, path, key);
  try {
    size_t used = 0;
    T v{};
    if constexpr (std::is_same_v<T, double>) {
      v = std::stod(text, &used);
    } else if constexpr (std::is_unsigned_v<T>) {
      v = static_cast<T>(std::stoull(text, &used));
    } else {
      v = static_cast<T>(std::stoll(text, &used));
    }
    if (used == text.size()) {
      return v;
    }
  } catch (const std::exception&) {
  }
  not_a_checkpoint(path, fmt::format("metadata `{}` is \"{}\", not a number", key, text));
}

CheckpointMeta parse_meta(const std::map<std::string, std::string>& m, const std::string& path) {
  if (field(m, path, "format") != kCheckpointFormatName) {
    not_a_checkpoint(path, fmt::format("its format is \"{}\"", m.at("format")));
  }
  const int version = number<int>(m, path, "format_version");
  if (version != kCheckpointFormat) {
    throw Error(ErrorKind::Data,
                fmt::format("`{}` is checkpoint format {}; this iputrain reads format {}", path, version,
                            kCheckpointFormat),
                {}, "resume it with the iputrain version that wrote it");
  }
  CheckpointMeta meta;
  meta.model = field(m, path, "model");
  meta.step = number<int64_t>(m, path, "step");
  meta.optimizer = field(m, path, "optimizer");
  meta.state_slots = number<int32_t>(m, path, "optimizer_state_slots");
  meta.loss_scale.scale = number<double>(m, path, "loss_scale");
  meta.loss_scale.good_steps = number<int64_t>(m, path, "loss_scale_good_steps");
  meta.loss_scale.skipped = number<int64_t>(m, path, "loss_scale_skipped");
  meta.seed = number<uint64_t>(m, path, "seed");
  meta.shuffle_seed = number<uint64_t>(m, path, "data_seed");
  meta.shuffle = field(m, path, "shuffle") == "true";
  meta.global_batch = number<int64_t>(m, path, "global_batch");
  meta.micro_batch = number<int64_t>(m, path, "micro_batch");
  meta.samples = number<int64_t>(m, path, "samples");
  meta.config_hash = field(m, path, "config_hash");
  if (const auto it = m.find("run_config"); it != m.end()) {
    meta.run_config = it->second;
    meta.run_hash = fnv1a_hex(it->second);
  }
  if (const auto it = m.find(kRegisteredOpsKey); it != m.end()) {
    meta.registered_ops = it->second;
    meta.ops_recorded = true;
  }
  if (meta.step < 0 || meta.state_slots < 0 || meta.global_batch <= 0) {
    not_a_checkpoint(path, "its step, state slots or global batch are out of range");
  }
  return meta;
}

}  // namespace

std::map<std::string, std::string> parse_record(const std::string& text) {
  std::map<std::string, std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    const size_t eq = line.find(" = ");
    if (eq != std::string::npos) {
      out[line.substr(0, eq)] = line.substr(eq + 3);
    }
    at = end + 1;
  }
  return out;
}

std::string run_config_text(const std::map<std::string, std::string>& values) {
  std::string out;
  for (const auto& [key, value] : values) {
    out += key + " = " + value + "\n";
  }
  return out;
}

std::vector<RecordDifference> record_differences(const std::map<std::string, std::string>& was,
                                                 const std::map<std::string, std::string>& now,
                                                 const std::string& absent_was, const std::string& absent_now) {
  std::set<std::string> keys;
  for (const auto* m : {&was, &now}) {
    for (const auto& [key, value] : *m) {
      keys.insert(key);
    }
  }
  std::vector<RecordDifference> out;
  for (const std::string& key : keys) {
    const auto a = was.find(key);
    const auto b = now.find(key);
    RecordDifference d{key, a == was.end() ? absent_was : a->second, b == now.end() ? absent_now : b->second};
    if (d.was != d.now) {
      out.push_back(std::move(d));
    }
  }
  return out;
}

std::vector<RunChange> run_changes(const std::string& recorded, const std::string& now_text) {
  std::vector<RunChange> out;
  // Only a model parameter can be absent: the config leaves it to the model's default.
  for (const RecordDifference& d : record_differences(parse_record(recorded), parse_record(now_text),
                                                      "the model's default", "the model's default")) {
    out.push_back({d.key, fmt::format("`{}` was {}, is {}", d.key, d.was, d.now)});
  }
  return out;
}

int64_t newest_checkpoint_step(const std::string& dir, bool* used) {
  std::error_code ec;
  const std::vector<Entry> all = list_checkpoints(dir);
  if (used != nullptr) {
    *used = !all.empty() || fs::exists(fs::path(dir) / "best.safetensors", ec);
  }
  return all.empty() ? -1 : all.back().step;
}

void clear_checkpoints(const std::string& dir) {
  std::error_code ec;
  for (const Entry& e : list_checkpoints(dir)) {
    fs::remove(e.path, ec);
  }
  fs::remove(fs::path(dir) / "best.safetensors", ec);
  remove_stale_temporaries(dir);
}

std::string checkpoint_file_name(int64_t step) { return fmt::format("step-{:08d}.safetensors", step); }

std::string optimizer_state_name(int32_t slot, const std::string& param) {
  return fmt::format("{}{}/{}", kOptimizerStatePrefix, slot, param);
}

data::NamedTensor f32_tensor(const std::string& name, const Shape& shape, const float* values) {
  data::NamedTensor t{name, DType::F32, shape, std::vector<uint8_t>(static_cast<size_t>(numel(shape)) * sizeof(float))};
  std::memcpy(t.bytes.data(), values, t.bytes.size());
  return t;
}

void write_weight_file(const std::string& path, const std::vector<data::NamedTensor>& tensors,
                       const std::string& model, int64_t step) {
  data::write_safetensors(path, tensors, {{"format", "iputrain"}, {"model", model}, {"step", std::to_string(step)}});
}

bool is_checkpoint(const std::string& dir_or_file) {
  if (fs::is_directory(dir_or_file)) {
    return true;
  }
  // The header alone (mapped, as the safetensors data source reads it): the tensors are read once,
  // by whichever reader the answer picks.
  const data::MappedFile file(dir_or_file);
  const data::SafetensorsIndex index = data::parse_safetensors_index(file.data(), file.size(), dir_or_file);
  const auto format = index.metadata.find("format");
  return format != index.metadata.end() && format->second == kCheckpointFormatName;
}

data::SafetensorsFile read_weights(const std::string& path) {
  const bool dir = fs::is_directory(path);
  data::SafetensorsFile file = data::read_safetensors(dir ? resolve_checkpoint(path) : path);
  const auto format = file.metadata.find("format");
  if (format != file.metadata.end() && format->second == kCheckpointFormatName) {
    std::erase_if(file.tensors, [](const data::NamedTensor& t) { return t.name.rfind(kOptimizerStatePrefix, 0) == 0; });
  }
  return file;
}

std::string config_hash(const std::string& config_text) { return fnv1a_hex(config_text); }

std::string write_checkpoint(const std::string& dir, const CheckpointMeta& meta,
                             const std::vector<data::NamedTensor>& tensors, int64_t keep, const std::string& file) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw Error(ErrorKind::Io, fmt::format("cannot create the checkpoint directory `{}`: {}", dir, ec.message()), {},
                "check `checkpoint.dir` and the permissions of its parent");
  }
  std::map<std::string, std::string> metadata = {
      {"format", kCheckpointFormatName},
      {"format_version", std::to_string(kCheckpointFormat)},
      {"model", meta.model},
      {"step", std::to_string(meta.step)},
      {"optimizer", meta.optimizer},
      {"optimizer_state_slots", std::to_string(meta.state_slots)},
      // Shortest text that reads back to the same double.
      {"loss_scale", fmt::format("{}", meta.loss_scale.scale)},
      {"loss_scale_good_steps", std::to_string(meta.loss_scale.good_steps)},
      {"loss_scale_skipped", std::to_string(meta.loss_scale.skipped)},
      {"seed", std::to_string(meta.seed)},
      {"data_seed", std::to_string(meta.shuffle_seed)},
      {"shuffle", meta.shuffle ? "true" : "false"},
      {"global_batch", std::to_string(meta.global_batch)},
      {"micro_batch", std::to_string(meta.micro_batch)},
      {"samples", std::to_string(meta.samples)},
      {"config_hash", meta.config_hash},
      {"run_config", meta.run_config},
      {"run_hash", fnv1a_hex(meta.run_config)},
  };
  if (!meta.registered_ops.empty()) {  // only a model that calls registered ops has the key
    metadata[kRegisteredOpsKey] = meta.registered_ops;
  }
  const std::string path = (fs::path(dir) / (file.empty() ? checkpoint_file_name(meta.step) : file)).string();
  data::WriteProgress on_write;
  if (kill_in_this_write()) {
    on_write = [](uint64_t written, uint64_t total) {
      if (2 * written >= total) {
        std::raise(SIGKILL);
      }
    };
  }
  data::write_safetensors(path, tensors, metadata, on_write);

  remove_stale_temporaries(dir);
  if (keep > 0) {
    const std::vector<Entry> all = list_checkpoints(dir);
    for (size_t i = 0; i + static_cast<size_t>(keep) < all.size(); ++i) {
      fs::remove(all[i].path, ec);
    }
  }
  return path;
}

std::string resolve_checkpoint(const std::string& dir_or_file) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir_or_file, ec);
  if (!fs::exists(st)) {
    throw Error(ErrorKind::Usage, fmt::format("no checkpoint at `{}`: the path does not exist", dir_or_file), {},
                "give the checkpoint directory (`checkpoint.dir`) or one step-*.safetensors file in it");
  }
  if (!fs::is_directory(st)) {
    return dir_or_file;
  }
  const std::vector<Entry> all = list_checkpoints(dir_or_file);
  if (all.empty()) {
    throw Error(ErrorKind::Data, fmt::format("`{}` holds no checkpoint (no step-*.safetensors file)", dir_or_file),
                {}, "train with `checkpoint.dir` set to write checkpoints there, or name a checkpoint file");
  }
  return all.back().path.string();
}

Checkpoint read_checkpoint(const std::string& dir_or_file) {
  Checkpoint out;
  out.path = resolve_checkpoint(dir_or_file);
  data::SafetensorsFile file;
  try {
    file = data::read_safetensors(out.path);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Data || !fs::is_directory(dir_or_file)) {
      throw;
    }
    // The newest file of a directory is damaged: name the one to fall back to.
    const std::vector<Entry> all = list_checkpoints(dir_or_file);
    const std::string hint =
        all.size() >= 2
            ? fmt::format("delete it to resume from the previous checkpoint, or resume from `{}` directly",
                          all[all.size() - 2].path.string())
            : std::string("delete it; the directory holds no earlier checkpoint, so training starts over");
    throw Error(ErrorKind::Data,
                fmt::format("the newest checkpoint `{}` is damaged: {}", out.path, e.diagnostic().message), {},
                hint);
  }
  out.meta = parse_meta(file.metadata, out.path);
  out.tensors = std::move(file.tensors);
  return out;
}

}  // namespace iputrain::engine
