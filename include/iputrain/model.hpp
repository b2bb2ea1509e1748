// iputrain — a model: a `*.ipu` file parsed, checked and lowered to the IR.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "iputrain/config.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/error.hpp"

namespace iputrain {

struct ModelAccess;  // the engine's way to the IR (frontend/model_access.hpp)

//! A parameter or an input as the user sees it.
struct TensorInfo {
  std::string name;   //!< scope path ("features/dense/kernel") or input field name
  std::string dtype;  //!< "f32", "i32", …
  std::vector<int64_t> shape;
  std::string stage;  //!< the stage that owns it
  //! False for a parameter declared `trainable = false` (state such as a batch norm's moving
  //! statistics, which the optimizer never updates) and for inputs.
  bool trainable = false;
  int64_t numel() const;
};

class Model {
 public:
  //! Parses, checks and lowers `path` with compile-time parameter `overrides` (`[model]`).
  //! Throws iputrain::Error (Syntax or Semantic) located in the model file.
  static Model load(const std::string& path, const std::map<std::string, ParamValue>& overrides = {});
  //! Loads `path` to train under `config`: applies its `[model]` overrides and, when the model
  //! declares a compile-time int parameter `batch` that `[model]` leaves alone, sets it to
  //! data.batch_size per batch-serialization slice (Settings::model_batch). Errors in overrides
  //! point at the config key. (A Config converts to a ResolvedConfig, resolving it.)
  static Model load(const std::string& path, const ResolvedConfig& config);
  //! Same from source text; `path` is used in messages and to resolve relative imports.
  static Model parse(const std::string& text, const std::string& path = "<model>",
                     const std::map<std::string, ParamValue>& overrides = {});
  //! Same from source text, to train under `config`, as load(path, config).
  static Model parse(const std::string& text, const std::string& path, const ResolvedConfig& config);

  const std::string& name() const;
  //! The compile-time parameters (`model NAME(params)`) with their effective values.
  std::map<std::string, ParamValue> compile_time_params() const;
  std::vector<TensorInfo> parameters() const;
  std::vector<TensorInfo> inputs() const;
  std::vector<std::string> outputs() const;
  std::vector<std::string> stages() const;
  bool trainable() const;  //!< has a `minimize`
  //! Elements of every parameter, the non-trainable ones included (Keras' "total params").
  int64_t parameter_count() const;
  //! Forward FLOPs for one sample (the forward graph's cost divided by the batch size).
  double flops_per_sample() const;
  //! Leading dimension of the inputs (the micro-batch the model was elaborated for).
  int64_t batch_size() const;
  //! Warnings found while checking (unused inputs, …), already rendered.
  std::vector<std::string> warnings() const;
  //! The forward IR in text form.
  std::string ir_text() const;

  std::shared_ptr<const SourceManager> sources() const;

  struct Impl;

 private:
  friend struct ModelAccess;
  explicit Model(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace iputrain
