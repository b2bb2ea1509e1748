// Session checkpoints: gathering the training state into a plan-independent checkpoint
// (engine/checkpoint.hpp), restoring it under whatever plan the session has, and exporting a
// checkpoint's weights alone.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <system_error>

#include "core/ops/custom_registry.hpp"
#include "core/optim_table.hpp"
#include "engine/checkpoint.hpp"
#include "engine/distributed/instances_config.hpp"
#include "engine/session_impl.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/session.hpp"

namespace iputrain {

namespace {

// One spelling of a checkpoint directory however it is named: absolute first, so that a relative
// directory that does not exist yet (weakly_canonical leaves it relative) and the same directory
// once the first checkpoint made it (made absolute, symlinks resolved) compare equal.
std::string dir_identity(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path path = std::filesystem::absolute(dir.empty() ? "." : dir, ec).lexically_normal();
  if (ec) {
    path = dir;
  }
  if (!path.has_filename() && path.has_parent_path()) {
    path = path.parent_path();  // runs/a/ is runs/a
  }
  return std::filesystem::weakly_canonical(path, ec).string();
}

const data::NamedTensor* find(const std::vector<data::NamedTensor>& tensors, const std::string& name) {
  const auto it = std::lower_bound(tensors.begin(), tensors.end(), name,
                                   [](const data::NamedTensor& t, const std::string& n) { return t.name < n; });
  return it != tensors.end() && it->name == name ? &*it : nullptr;
}

const char* kNewRunHint =
    "resume with the settings the checkpoint was written under; to start a new run from its weights, "
    "`iputrain export` them and train with --init-from";

// The checkpoint's tensor `name` must exist with `shape` in f32.
const data::NamedTensor& expect(const engine::Checkpoint& c, const std::string& name, const Shape& shape,
                                const std::string& model) {
  const data::NamedTensor* t = find(c.tensors, name);
  if (t == nullptr) {
    throw Error(ErrorKind::Data,
                fmt::format("checkpoint `{}` (model `{}`) has no tensor `{}`, which model `{}` needs", c.path,
                            c.meta.model, name, model),
                {}, "the checkpoint was written by another model; resume with the model that wrote it");
  }
  if (t->dtype != DType::F32 || t->shape != shape) {
    throw Error(ErrorKind::Data,
                fmt::format("checkpoint `{}`: tensor `{}` is {}{} but model `{}` needs f32{}", c.path, name,
                            dtype_name(t->dtype), shape_str(t->shape), model, shape_str(shape)),
                {}, "the checkpoint was written by a model with other sizes");
  }
  return *t;
}

template <typename T>
void same(const engine::Checkpoint& c, const char* what, const T& saved, const T& now) {
  if (saved != now) {
    throw Error(ErrorKind::Data,
                fmt::format("checkpoint `{}` was trained with {} = {}, this config has {}", c.path, what, saved, now),
                {}, kNewRunHint);
  }
}

// The run-defining keys must agree with those the checkpoint records (one written before
// iputrain recorded them is checked by its other metadata alone).
void check_run_config(const std::string& run_config, const KeyLocations& keys, const engine::Checkpoint& c) {
  if (c.meta.run_config.empty()) {
    return;
  }
  const std::vector<engine::RunChange> changes = engine::run_changes(c.meta.run_config, run_config);
  if (changes.empty()) {
    return;
  }
  // Located at the first changed key this config sets, so the user sees where it came from.
  std::string at;
  std::vector<std::string> lines;
  for (const engine::RunChange& change : changes) {
    if (at.empty() && keys.is_set(change.key)) {
      at = change.key;
    }
    lines.push_back(change.line);
  }
  keys.fail_at(at,
               fmt::format("cannot resume from `{}`: it was trained under another config ({} key{} changed):\n  {}",
                           c.path, changes.size(), changes.size() == 1 ? "" : "s", fmt::join(lines, "\n  ")),
               "resume with the config that wrote it; only the run's length (training.steps, training.epochs), "
               "its plan (ipu, pipeline, the micro-batch) and bookkeeping keys may change. To start a new run from "
               "its weights, `iputrain export` them and train with --init-from",
               ErrorKind::Config);
}

// The registered ops the model calls must be registered as when the checkpoint was written
// (engine::check_registered_ops); returns the notes on what it cannot check.
std::vector<std::string> check_op_registrations(const ir::Graph& g, const engine::Checkpoint& c) {
  const engine::OpsCheck ops =
      engine::check_registered_ops(c.meta, engine::registered_ops_text(ir::custom_ops_called(g)));
  if (ops.refusals.empty()) {
    return ops.notes;
  }
  throw Error(
      ErrorKind::Data,
      fmt::format("cannot resume from `{}`: it was trained under another registration of the ops its model "
                  "calls ({} difference{}):\n  {}",
                  c.path, ops.refusals.size(), ops.refusals.size() == 1 ? "" : "s", fmt::join(ops.refusals, "\n  ")),
      {},
      "register each op as it was when the checkpoint was written (CustomOp's inputs, attributes, backward "
      "and version); to start a new run from its weights under the new op, write them with "
      "export_checkpoint_weights and load them with load_weights");
}

}  // namespace

int64_t Session::step() const { return impl_->step; }

std::string Session::save_checkpoint(const std::string& dir) const { return impl_->save_checkpoint_as(dir, ""); }

void Session::overwrite_checkpoints(bool yes) { impl_->overwrite = yes; }

void Session::claim_checkpoint_dir(const std::string& dir) {
  if (engine::writes_run_files()) {
    impl_->claim_checkpoint_dir(dir);
  }
}

void Session::Impl::claim_checkpoint_dir(const std::string& dir) {
  const std::string canonical = dir_identity(dir);
  if (canonical == claimed_dir) {
    return;
  }
  bool used = false;
  const int64_t newest = engine::newest_checkpoint_step(dir, &used);
  if (used && canonical != resumed_dir) {
    if (!overwrite) {
      const std::string what = newest >= 0
                                   ? fmt::format("the checkpoints of another run (the newest at step {})", newest)
                                   : std::string("the best checkpoint of another run");
      settings.keys.fail_at("checkpoint.dir",
                            fmt::format("checkpoint directory `{}` holds {}; a new run does not mix its checkpoints "
                                        "with them",
                                        dir, what),
                            fmt::format("continue that run with `--resume {}`, start afresh there with --overwrite "
                                        "(deletes its checkpoints), or set `checkpoint.dir` to a new directory",
                                        dir),
                            ErrorKind::Usage);
    }
    engine::clear_checkpoints(dir);
  }
  claimed_dir = canonical;
}

std::string Session::Impl::save_checkpoint_as(const std::string& dir, const std::string& file) {
  Impl& s = *this;
  if (!s.cluster) {
    throw Error(ErrorKind::Semantic, "the model has no `minimize` objective, so it has no training state to save", {},
                "save its weights with save_weights()");
  }
  if (!engine::writes_run_files()) {
    return {};  // every instance holds the same state; the first writes it
  }
  s.claim_checkpoint_dir(dir);
  const ir::Graph& g = s.plan.graph;
  std::vector<data::NamedTensor> tensors;
  for (ir::ValueId p : g.params) {
    const std::string& name = g.node(p).name;
    const ir::Tensor w = s.weight(p);
    tensors.push_back(engine::f32_tensor(name, w.shape(), w.f32()));
    // Replica 0 stands for all: every replica holds the same state after each update.
    const std::vector<float> state = s.cluster->optimizer_state(p);
    const std::vector<Shape> arrays = s.cluster->optimizer_state_shapes(p);
    int64_t offset = 0;
    for (size_t k = 0; k < arrays.size() && !state.empty(); ++k) {
      tensors.push_back(engine::f32_tensor(engine::optimizer_state_name(static_cast<int32_t>(k), name), arrays[k],
                                           state.data() + offset));
      offset += numel(arrays[k]);
    }
  }
  engine::CheckpointMeta meta;
  meta.model = s.model.name();
  meta.step = s.step;
  meta.optimizer = s.settings.optimizer.type;
  meta.state_slots = optimizer_state_slots(s.settings.optimizer);
  meta.loss_scale = s.cluster->loss_scale();
  meta.seed = s.settings.plain.training_seed;
  meta.shuffle_seed = s.shuffle_seed();
  meta.shuffle = s.settings.plain.data_shuffle;
  meta.global_batch = s.plan.global_batch();
  meta.micro_batch = s.batch;
  meta.samples = s.step * meta.global_batch;
  meta.config_hash = engine::config_hash(s.config_text);
  meta.run_config = s.run_config;
  meta.registered_ops = engine::registered_ops_text(ir::custom_ops_called(g));
  return engine::write_checkpoint(dir, meta, tensors, s.settings.plain.checkpoint_keep, file);
}

ResumeInfo Session::resume(const std::string& dir_or_file) {
  Impl& s = *impl_;
  if (!s.cluster) {
    throw Error(ErrorKind::Semantic, "the model has no `minimize` objective, so there is no training to resume", {},
                "load weights with load_weights()");
  }
  const engine::Checkpoint c = engine::read_checkpoint(dir_or_file);
  const ir::Graph& g = s.plan.graph;
  const int32_t slots = optimizer_state_slots(s.settings.optimizer);

  // Check everything before changing anything, so a refused checkpoint leaves the session as it was.
  same(c, "optimizer.type", c.meta.optimizer, s.settings.optimizer.type);
  same(c, "training.seed", c.meta.seed, s.settings.plain.training_seed);
  same(c, "the shuffle seed (data.seed, else training.seed)", c.meta.shuffle_seed, s.shuffle_seed());
  same(c, "data.shuffle", c.meta.shuffle, s.settings.plain.data_shuffle);
  same(c, "the global batch (micro-batch x accumulation x replicas)", c.meta.global_batch, s.plan.global_batch());
  same(c, "optimizer state slots", c.meta.state_slots, slots);
  struct Restore {
    ir::ValueId param;
    const data::NamedTensor* weights;
    std::vector<const data::NamedTensor*> state;
  };
  std::vector<Restore> restore;
  std::vector<ir::ValueId> missing_state;
  size_t used = 0;
  for (ir::ValueId p : g.params) {
    const std::string& name = g.node(p).name;
    const Shape shape = s.weight(p).shape();
    if (!ir::trainable(g.node(p)) && find(c.tensors, name) == nullptr) {
      // Written before the model kept this state (moving statistics): the trainable weights never
      // depended on it, so they continue exactly and the state starts afresh.
      missing_state.push_back(p);
      continue;
    }
    Restore r{p, &expect(c, name, shape, s.model.name()), {}};
    if (!s.cluster->optimizer_state(p).empty()) {
      const std::vector<Shape> arrays = s.cluster->optimizer_state_shapes(p);
      for (size_t k = 0; k < arrays.size(); ++k) {
        r.state.push_back(
            &expect(c, engine::optimizer_state_name(static_cast<int32_t>(k), name), arrays[k], s.model.name()));
      }
    }
    used += 1 + r.state.size();
    restore.push_back(std::move(r));
  }
  if (used != c.tensors.size()) {
    for (const data::NamedTensor& t : c.tensors) {
      const bool known = std::any_of(restore.begin(), restore.end(), [&](const Restore& r) {
        return r.weights == &t || std::find(r.state.begin(), r.state.end(), &t) != r.state.end();
      });
      if (!known) {
        throw Error(ErrorKind::Data,
                    fmt::format("checkpoint `{}` (model `{}`) holds `{}`, which model `{}` does not have", c.path,
                                c.meta.model, t.name, s.model.name()),
                    {}, "the checkpoint was written by another model; resume with the model that wrote it");
      }
    }
  }

  const std::vector<std::string> op_notes = check_op_registrations(g, c);
  // Last, as the most general check: the specific ones above name the tensor or setting at fault.
  check_run_config(s.run_config, s.settings.keys, c);

  for (const Restore& r : restore) {
    s.set_weight(r.param, r.weights->bytes.data());
    for (size_t k = 0; k < r.state.size(); ++k) {
      s.cluster->set_optimizer_state(r.param, static_cast<int32_t>(k),
                                     reinterpret_cast<const float*>(r.state[k]->bytes.data()));
    }
  }
  s.cluster->set_loss_scale(c.meta.loss_scale);
  s.step = c.meta.step;
  s.loaded_step = 0;  // a checkpoint holds the run's own step
  s.resumed = true;
  // A new run may go on writing into the directory it resumed from.
  const std::string dir = std::filesystem::path(c.path).parent_path().string();
  s.resumed_dir = dir_identity(dir);

  ResumeInfo info;
  info.notes = s.reset_state(missing_state, c.path);
  info.notes.insert(info.notes.end(), op_notes.begin(), op_notes.end());
  info.path = c.path;
  info.step = c.meta.step;
  info.remaining = std::max<int64_t>(0, planned_steps() - c.meta.step);
  info.config_changed = c.meta.config_hash != engine::config_hash(s.config_text);
  if (info.config_changed) {
    info.notes.push_back(fmt::format("the config differs from the one that wrote `{}` (another plan, step count or "
                                     "setting); seeds and global batch agree, so the run continues exactly",
                                     c.path));
  }
  if (c.meta.model != s.model.name()) {
    info.notes.push_back(fmt::format("the checkpoint was written by model `{}`; its parameters fit model `{}`",
                                     c.meta.model, s.model.name()));
  }
  if (c.meta.micro_batch != s.batch) {
    info.notes.push_back(fmt::format("the checkpoint was trained with micro-batch {}, this plan uses {}: training "
                                     "continues, but not bit for bit as either micro-batch from the start",
                                     c.meta.micro_batch, s.batch));
  }
  return info;
}

bool is_checkpoint(const std::string& dir_or_file) { return engine::is_checkpoint(dir_or_file); }

ExportInfo export_checkpoint_weights(const Model& model, const std::string& dir_or_file, const std::string& path) {
  const engine::Checkpoint c = engine::read_checkpoint(dir_or_file);
  const ir::Graph& g = graph_of(model);
  std::vector<data::NamedTensor> tensors;
  for (ir::ValueId p : g.params) {
    if (!ir::trainable(g.node(p)) && find(c.tensors, g.node(p).name) == nullptr) {
      continue;  // state the checkpoint predates: loading the file starts it afresh, with a warning
    }
    const data::NamedTensor& t = expect(c, g.node(p).name, g.type(p).shape, model.name());
    tensors.push_back(t);
  }
  engine::write_weight_file(path, tensors, model.name(), c.meta.step);
  return {c.path, c.meta.step};
}

}  // namespace iputrain
