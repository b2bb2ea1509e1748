// Session::predict: the forward program over every sample of a split, keeping the outputs that
// have one row per sample. Unlike evaluate(), which averages whole batches, prediction must cover
// the tail too, so the last batch is padded with copies of its last sample and the copies' rows
// are dropped.
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

double element(const ir::Tensor& t, int64_t i) {
  switch (t.type->dtype) {
    case DType::F32: return t.f32()[i];
    case DType::I32: return t.i32()[i];
    case DType::Bool: return t.u8()[i];
    default:
      throw Error(ErrorKind::Internal, fmt::format("predict cannot read {} values", dtype_name(t.type->dtype)));
  }
}

}  // namespace

std::vector<Prediction> Session::predict(const std::string& split, const std::vector<std::string>& outputs) {
  Impl& s = *impl_;
  Impl::check_split(split);
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
  s.copy_weights_to_evaluator();

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
  const engine::Program& program = s.ipu->program(0);
  for (int64_t first = 0, step = 0; first < n; first += s.batch, ++step) {
    const int64_t real = std::min(s.batch, n - first);
    for (size_t k = 0; k < g.inputs.size(); ++k) {
      if (!s.ipu->has(g.inputs[k])) {
        continue;  // an input only the loss reads
      }
      auto* dst = static_cast<std::byte*>(s.ipu->tensor(g.inputs[k]).data);
      const size_t bytes = s.wanted[k].bytes();
      for (int64_t i = 0; i < s.batch; ++i) {
        ds.read(first + std::min(i, real - 1), fields[k], dst + static_cast<size_t>(i) * bytes);
      }
    }
    const ir::ExecContext ctx{s.settings.seed, step, first, false};
    const engine::FpTrapSite traps = s.eval_traps("prediction", step + 1);
    s.with_model_sources([&] { s.ipu->run(program, ctx, &traps); });
    for (size_t j = 0; j < chosen.size(); ++j) {
      const ir::Tensor t = s.ipu->tensor(g.outputs[chosen[j]].value);
      const int64_t row = iputrain::numel(out[j].sample_shape);
      double* dst = out[j].values.data() + first * row;
      for (int64_t i = 0; i < real * row; ++i) {
        dst[i] = element(t, i);
      }
    }
  }
  return out;
}

}  // namespace iputrain
