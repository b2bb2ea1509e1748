// The values of the plain keys that are enums, and how they are spelt (issue 48). An enum a plain key
// (iputrain/plain_keys.hpp) holds is declared here by IPUTRAIN_KEY_ENUM: its enumerators are the
// key's values, spelt in lower case with `_` between words (ChooseBest is written "choose_best"), in
// the order docs and messages list them. Also here: the option tables and the AsWritten rule the
// plain lines name.
#pragma once

#include <cctype>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace iputrain {

//! The enumerators of an enum a plain key holds, as written: KeyEnum<E>::enumerators is
//! "ChooseBest, Clustering". IPUTRAIN_KEY_ENUM declares the enum and this together.
template <class E>
struct KeyEnum;

// Declares `enum class NAME { ... }` and its KeyEnum: the enumerators are the key's values, in
// the order docs and messages list them.
#define IPUTRAIN_KEY_ENUM(NAME, ...)                              \
  enum class NAME { __VA_ARGS__ };                                \
  template <>                                                     \
  struct KeyEnum<NAME> {                                          \
    static constexpr std::string_view enumerators = #__VA_ARGS__; \
  };

//! The spellings of `enumerators`, in order: "ChooseBest, PostOrder" is {"choose_best", "post_order"}.
inline std::vector<std::string> key_spellings_of(std::string_view enumerators) {
  std::vector<std::string> out(1);
  char previous = ',';
  for (const char c : enumerators) {
    if (c == ',') {
      out.emplace_back();
    } else if (std::isupper(static_cast<unsigned char>(c))) {
      // A capital after a small letter starts a word: OnChip is on_chip, BF16 is bf16.
      out.back() += std::islower(static_cast<unsigned char>(previous)) ? "_" : "";
      out.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (c != ' ') {
      out.back() += c;
    }
    previous = c;
  }
  return out;
}

//! The spellings of E's values, in declaration order.
template <class E>
const std::vector<std::string>& key_spellings() {
  static const std::vector<std::string> spellings = key_spellings_of(KeyEnum<E>::enumerators);
  return spellings;
}

//! How `value` is written in a config ("on_chip").
template <class E>
std::string_view key_spelling(E value) {
  return key_spellings<E>().at(static_cast<size_t>(value));
}

//! Poplar-style option dictionary (`{ availableMemoryProportion = "0.3" }`), string to string.
using OptionMap = std::map<std::string, std::string>;

//! PipelineStageOptions: the Poplar options of one pipeline stage's convolutions and matmuls.
struct StageOptions {
  OptionMap convolution_options;
  OptionMap matmul_options;
  bool operator==(const StageOptions&) const = default;
};

//! The DERIVE of a plain key whose value is used as written.
struct AsWritten {};
inline constexpr AsWritten as_written{};

//! A floating-point storage type a setting names (training.precision, optimizer.state_dtype, …).
IPUTRAIN_KEY_ENUM(FloatType, F32, F16, BF16)
IPUTRAIN_KEY_ENUM(LossScaling, Static, Dynamic)
IPUTRAIN_KEY_ENUM(OutfeedMode, All, Last)
//! Where the f32 master weights of a half-precision run live (training.master_weights).
IPUTRAIN_KEY_ENUM(MasterWeightsPlace, OnChip, Offloaded, None)
IPUTRAIN_KEY_ENUM(GradientReduction, Sum, Mean, RunningMean)
//! The order in which micro-batch gradients are summed (`pipeline.gradient_accumulation_order`):
//! Canonical, a pairwise tree over the global micro-batches (about log2(A) partial sums per
//! weight); Sequential, micro-batches in order into one sum per weight, then replicas in order.
IPUTRAIN_KEY_ENUM(GradientAccumulationOrder, Canonical, Sequential)
//! The type accumulators are kept in (pipeline.gradient_accumulation_dtype, accumulate_outfeed_dtype):
//! same = the summed value's own.
IPUTRAIN_KEY_ENUM(AccumulatorType, Same, Fp32, Fp16)
//! How stages are recomputed (pipeline.recomputation_mode), with ipu.allow_recompute on.
IPUTRAIN_KEY_ENUM(RecomputationMode, Auto, RecomputeThenBackpropagate, RecomputeAndBackpropagateInterleaved)
IPUTRAIN_KEY_ENUM(SelectionOrder, Auto, Zigzag, Snake, Hoof)
IPUTRAIN_KEY_ENUM(SchedulerAlgorithm, ChooseBest, Clustering, PostOrder, LookAhead, ShortestPath)
//! Which kernels split their blocks over the arena's threads (engine.spread_kernels,
//! engine/cluster/spread_tuner.hpp).
IPUTRAIN_KEY_ENUM(SpreadKernels, Auto, Always, LargeOnly)
//! What training.validate_every counts.
IPUTRAIN_KEY_ENUM(ValidateEveryUnit, Steps, Epochs)
//! Whether the best checkpoint.keep_best value is the lowest or the highest (Auto: by the name; a
//! resolved run holds Min or Max).
IPUTRAIN_KEY_ENUM(KeepBestMode, Auto, Min, Max)
//! profiling.profile_execution: every level but NoProfile writes the same execution trace here.
IPUTRAIN_KEY_ENUM(ProfileExecution, NoProfile, DeviceProfile, IpuProfile, TileProfile)
//! ipu.optimizations.merge_remote_buffers (no effect here).
IPUTRAIN_KEY_ENUM(MergeRemoteBuffers, NoMerging, Merge, IfBeneficial)
//! ipu.device_connection.type (refused but for Always: every virtual IPU is attached when a run starts).
IPUTRAIN_KEY_ENUM(DeviceConnection, Always, OnDemand, PreCompile, Never)
//! The IPU the plan models (device.version, ipu.ipu_model.version): a preset of core/hardware_presets.cpp.
IPUTRAIN_KEY_ENUM(IpuVersion, Ipu1, Ipu2, Bow)
//! The system the IPUs sit in (system.preset): Auto, the smallest preset holding the IPUs (settled when
//! the run is resolved); Custom, no preset (the `[system]` keys' defaults, or, settled from Auto past the
//! largest preset, as many of its racks as the IPUs need).
IPUTRAIN_KEY_ENUM(SystemPreset, Auto, Pod4, Pod16, Pod64, Pod128, Pod256, Custom)

}  // namespace iputrain
