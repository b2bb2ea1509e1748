// Session::predict: the forward program over every sample of a split, on the inference plan
// (engine/inference.hpp), keeping the outputs that have one row per sample. Unlike evaluate(), which
// averages whole batches, prediction must cover the tail too, so the last micro-batch is padded
// with copies of the last sample and the copies' rows are dropped.
#include <fmt/format.h>

#include <algorithm>

#include "engine/session_impl.hpp"

namespace iputrain {

namespace {

// An output has a row per sample when its first dimension is the micro-batch.
bool per_sample(const ir::Graph& g, ir::ValueId v, int64_t batch) {
  const TensorType& t = g.type(v);
  return !t.shape.empty() && t.shape.front() == batch;
}

}  // namespace

std::vector<Prediction> Session::predict(const std::string& split, const std::vector<std::string>& outputs) {
  Impl& s = *impl_;
  s.check_split(split);
  const ir::Graph& g = s.plan.graph;
  std::vector<std::string> per_sample_names;
  std::vector<std::string> all_names;
  for (const auto& o : g.outputs) {
    all_names.push_back(o.name);
    if (per_sample(g, o.value, s.batch)) {
      per_sample_names.push_back(o.name);
    }
  }
  // Resolve the selection before touching any data, so a typo fails fast.
  std::vector<size_t> chosen;
  if (outputs.empty()) {
    for (size_t k = 0; k < g.outputs.size(); ++k) {
      if (per_sample(g, g.outputs[k].value, s.batch)) {
        chosen.push_back(k);
      }
    }
    if (chosen.empty()) {
      throw Error(ErrorKind::Usage,
                  fmt::format("model `{}` has no per-sample output: its outputs ({}) are one value per batch",
                              s.model.name(), fmt::join(all_names, ", ")),
                  {}, fmt::format("add an output with the batch as its first dimension, e.g. `output probs = softmax(logits)`"));
    }
  }
  for (const std::string& name : outputs) {
    size_t k = 0;
    while (k < g.outputs.size() && g.outputs[k].name != name) {
      ++k;
    }
    if (k == g.outputs.size()) {
      const std::string near = nearest_name(name, all_names);
      throw Error(ErrorKind::Usage, fmt::format("model `{}` has no output `{}`", s.model.name(), name), {},
                  near.empty() ? fmt::format("its outputs are: {}", fmt::join(all_names, ", "))
                               : fmt::format("did you mean `{}`?", near));
    }
    if (!per_sample(g, g.outputs[k].value, s.batch)) {
      throw Error(ErrorKind::Usage,
                  fmt::format("output `{}` is {}: one value per batch of {}, not one per sample", name,
                              g.type(g.outputs[k].value).str(), s.batch),
                  {}, per_sample_names.empty() ? std::string("the model has no per-sample output")
                                               : fmt::format("per-sample outputs: {}", fmt::join(per_sample_names, ", ")));
    }
    if (std::find(chosen.begin(), chosen.end(), k) == chosen.end()) {
      chosen.push_back(k);
    }
  }

  const data::Dataset& ds = s.split_data(split);
  const int64_t n = ds.size();
  const std::vector<size_t> fields = s.field_indices(ds);

  std::vector<Prediction> out;
  for (size_t k : chosen) {
    const TensorType& t = g.type(g.outputs[k].value);
    Prediction p;
    p.name = g.outputs[k].name;
    p.dtype = std::string(dtype_name(t.dtype));
    p.sample_shape.assign(t.shape.begin() + 1, t.shape.end());
    p.samples = n;
    p.values.resize(static_cast<size_t>(n * iputrain::numel(p.sample_shape)));
    out.push_back(std::move(p));
  }
  // The tail is padded to a whole micro-batch with copies of the last sample, whose rows are dropped.
  const int64_t batches = (n + s.batch - 1) / s.batch;
  const engine::PaddedDataset padded(ds, batches * s.batch);
  engine::InferenceRun& run = s.inference_run();
  s.with_model_sources([&] {
    run.run(padded, fields, batches, "prediction", [&](int64_t mb, const std::vector<const double*>& outputs) {
      const int64_t first = mb * s.batch;
      const int64_t real = std::min(s.batch, n - first);
      for (size_t j = 0; j < chosen.size(); ++j) {
        const int64_t row = iputrain::numel(out[j].sample_shape);
        const double* src = outputs[chosen[j]];
        double* dst = out[j].values.data() + first * row;
        for (int64_t i = 0; i < real * row; ++i) {
          dst[i] = src[i];
        }
      }
    });
  });
  return out;
}

}  // namespace iputrain
