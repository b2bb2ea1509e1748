// Session::predict: the forward program over every sample of a split, on the inference plan
// (engine/inference.hpp), keeping values that have one row per sample. The values are the model's
// `output per_sample`s by default, or any output or named tensor asked for; the plan computes only
// them, from only the inputs they depend on, so the training model predicts from unlabelled data.
// A last micro-batch that the split does not fill is padded with copies of the last sample and the
// copies' rows are dropped; evaluate() runs it at its own size instead, as its means are the batch's.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "engine/session_impl.hpp"

namespace iputrain {

namespace {

// A value has a row per sample when its first dimension is the micro-batch.
bool per_sample(const ir::Graph& g, ir::ValueId v, int64_t batch) {
  const TensorType& t = g.type(v);
  return !t.shape.empty() && t.shape.front() == batch;
}

const ir::Output* find(const std::vector<ir::Output>& list, const std::string& name) {
  const auto it = std::find_if(list.begin(), list.end(), [&](const ir::Output& o) { return o.name == name; });
  return it == list.end() ? nullptr : &*it;
}

// The values to predict: `names` looked up among the outputs, then the named tensors; without
// names, the per-sample outputs (or, in a model that marks none, the outputs with a row per sample).
std::vector<ir::Output> choose(const ir::Graph& g, const std::string& model, int64_t batch,
                               const std::vector<std::string>& names) {
  std::vector<ir::Output> chosen;
  if (names.empty()) {
    const bool marked =
        std::any_of(g.outputs.begin(), g.outputs.end(), [](const ir::Output& o) { return o.per_sample; });
    for (const ir::Output& o : g.outputs) {
      if (marked ? o.per_sample : per_sample(g, o.value, batch)) {
        chosen.push_back(o);
      }
    }
    if (chosen.empty()) {
      std::vector<std::string> all;
      for (const ir::Output& o : g.outputs) {
        all.push_back(o.name);
      }
      throw Error(ErrorKind::Usage,
                  fmt::format("model `{}` has no per-sample output: its outputs ({}) are one value per batch", model,
                              fmt::join(all, ", ")),
                  {}, "mark one, e.g. `output per_sample probs = softmax(logits)`, or name a value with --output");
    }
    return chosen;
  }
  std::vector<std::string> candidates;
  for (const auto* list : {&g.outputs, &g.named}) {
    for (const ir::Output& o : *list) {
      if (per_sample(g, o.value, batch) &&
          std::find(candidates.begin(), candidates.end(), o.name) == candidates.end()) {
        candidates.push_back(o.name);
      }
    }
  }
  for (const std::string& name : names) {
    const ir::Output* o = find(g.outputs, name);
    o = o != nullptr ? o : find(g.named, name);
    if (o == nullptr) {
      const std::string near = nearest_name(name, candidates);
      throw Error(ErrorKind::Usage, fmt::format("model `{}` has no output or named value `{}`", model, name), {},
                  near.empty() ? fmt::format("values with a row per sample: {}", fmt::join(candidates, ", "))
                               : fmt::format("did you mean `{}`?", near));
    }
    if (!per_sample(g, o->value, batch)) {
      throw Error(
          ErrorKind::Usage,
          fmt::format("`{}` is {}: one value per batch of {}, not one per sample", name, g.type(o->value).str(), batch),
          {}, fmt::format("values with a row per sample: {}", fmt::join(candidates, ", ")));
    }
    if (find(chosen, name) == nullptr) {
      chosen.push_back(ir::Output{name, o->value, o->span, true});
    }
  }
  return chosen;
}

// The inputs `values` depend on, in the order of the graph's inputs.
std::vector<ir::ValueId> inputs_needed(const ir::Graph& g, const std::vector<ir::Output>& values) {
  std::vector<char> needed(static_cast<size_t>(g.size()), 0);
  for (const ir::Output& o : values) {
    needed[static_cast<size_t>(o.value)] = 1;
  }
  for (ir::ValueId v = g.size() - 1; v >= 0; --v) {
    if (needed[static_cast<size_t>(v)] != 0) {
      for (ir::ValueId in : g.node(v).inputs) {
        needed[static_cast<size_t>(in)] = 1;
      }
    }
  }
  std::vector<ir::ValueId> out;
  for (ir::ValueId in : g.inputs) {
    if (needed[static_cast<size_t>(in)] != 0) {
      out.push_back(in);
    }
  }
  return out;
}

// A dataset with every field of `all`: those `inner` has, read from it, and zeros for the others,
// which are inputs the predicted values do not depend on, so no op of the plan reads them.
class UnreadFieldsDataset final : public data::Dataset {
 public:
  UnreadFieldsDataset(const data::Dataset& inner, const std::vector<data::Field>& all) : inner_(inner), fields_(all) {
    for (const data::Field& f : all) {
      from_.push_back(inner.field_index(f.name));
    }
  }
  int64_t size() const override { return inner_.size(); }
  const std::vector<data::Field>& fields() const override { return fields_; }
  void read(int64_t index, size_t field, void* dst) const override {
    if (from_[field] >= 0) {
      inner_.read(index, static_cast<size_t>(from_[field]), dst);
    } else {
      std::memset(dst, 0, fields_[field].bytes());
    }
  }

 private:
  const data::Dataset& inner_;
  std::vector<data::Field> fields_;
  std::vector<int64_t> from_;
};

}  // namespace

// The samples of `split` with the fields `fields`: the session's own dataset when it is loaded
// already (or every input is needed), else the source opened afresh for `fields` alone, cut as
// split_data() cuts it (data.validation_split holds out the last samples).
const data::Dataset& Session::Impl::predict_data(const std::string& split, const std::vector<data::Field>& fields) {
  const bool loaded = split == "test" ? test_data != nullptr
                                      : train_data != nullptr || (split == "validation" && validation_file != nullptr);
  if (fields.size() == wanted.size() || loaded) {
    return split_data(split);
  }
  const bool from_train = split == "train" || settings.plain.data_validation_split > 0;
  predict_file = open(split == "test" ? "data.test" : from_train ? "data.train" : "data.validation", &fields);
  const int64_t n = predict_file->size();
  const int64_t kept = from_train ? trained_share(n) : n;
  predict_view = split == "validation" && from_train
                     ? std::make_unique<data::SubsetDataset>(*predict_file, kept, n - kept)
                     : std::make_unique<data::SubsetDataset>(*predict_file, 0, kept);
  return *predict_view;
}

std::vector<Prediction> Session::predict(const std::string& split, const std::vector<std::string>& outputs) {
  Impl& s = *impl_;
  s.check_split(split);
  // Resolve the selection before touching any data, so a typo fails fast.
  ir::Graph g = graph_of(s.model);
  g.outputs = choose(g, s.model.name(), s.batch, outputs);
  g.loss = ir::kNoValue;
  std::vector<data::Field> fields;
  for (ir::ValueId in : inputs_needed(g, g.outputs)) {
    const auto it =
        std::find_if(s.wanted.begin(), s.wanted.end(), [&](const auto& w) { return w.name == g.node(in).name; });
    fields.push_back(*it);
  }
  if (fields.empty()) {
    throw Error(ErrorKind::Usage,
                fmt::format("{} depend on no input of model `{}`", g.outputs.front().name, s.model.name()), {},
                "predict values computed from the data");
  }
  const std::unique_ptr<engine::InferenceRun> run = s.plan_inference(g, true);
  s.set_weights(*run);
  const UnreadFieldsDataset ds(s.predict_data(split, fields), s.wanted);
  const int64_t n = ds.size();

  std::vector<Prediction> out;
  for (const ir::Output& o : g.outputs) {
    const TensorType& t = g.type(o.value);
    Prediction p;
    p.name = o.name;
    p.dtype = std::string(dtype_name(t.dtype));
    p.sample_shape.assign(t.shape.begin() + 1, t.shape.end());
    p.samples = n;
    p.values.resize(static_cast<size_t>(n * iputrain::numel(p.sample_shape)));
    out.push_back(std::move(p));
  }
  // The tail is padded to a whole micro-batch with copies of the last sample, whose rows are dropped.
  const int64_t batches = (n + s.batch - 1) / s.batch;
  const engine::PaddedDataset padded(ds, batches * s.batch);
  s.with_model_sources([&] {
    run->run(padded, s.field_indices(ds), batches, "prediction",
             [&](int64_t mb, const std::vector<const double*>& values) {
               const int64_t first = mb * s.batch;
               const int64_t real = std::min(s.batch, n - first);
               for (size_t j = 0; j < out.size(); ++j) {
                 const int64_t row = iputrain::numel(out[j].sample_shape);
                 std::copy_n(values[j], real * row, out[j].values.data() + first * row);
               }
             });
  });
  return out;
}

}  // namespace iputrain
