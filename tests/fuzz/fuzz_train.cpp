#include "fuzz_train.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "iputrain/plan.hpp"
#include "iputrain/session.hpp"

namespace iputrain::fuzz {

namespace {

struct Field {
  std::string dtype;
  int64_t elements = 1;  // per sample
  int64_t bound = 2;
};

}  // namespace

void plan_and_train(const Model& model, const Config& config, const std::map<std::string, int64_t>& bounds,
                    int64_t updates_per_execution) {
  const Plan plan = Plan::make(model, config);
  if (plan.replicas() * plan.ipus_per_replica() > kMaxSessionIpus) {
    return;
  }
  // Bounded before the session is made: its programs grow with the micro-batches of an execution
  // (gradient_accumulation_count = 65536 took 30 s under ASan to build them).
  const int64_t batch = plan.global_batch();
  if (!model.trainable() || batch <= 0 || updates_per_execution <= 0 ||
      batch > kMaxSamplesPerExecution / updates_per_execution) {
    return;
  }
  Session session(model, config, plan);
  std::map<std::string, Field> fields;
  for (const TensorInfo& t : model.inputs()) {
    Field f{t.dtype};
    f.elements = t.shape.empty() || t.shape[0] == 0 ? 0 : t.numel() / t.shape[0];
    const auto b = bounds.find(t.name);
    f.bound = b != bounds.end() ? std::max<int64_t>(1, b->second) : 2;
    fields[t.name] = f;
  }
  SampleSource source;
  // Two global batches: a validation split (data.validation_split) may take part of them.
  source.samples = std::max<int64_t>(8, 2 * session.global_batch());
  source.read = [fields](int64_t index, const std::string& input, void* dst) {
    const auto it = fields.find(input);
    if (it == fields.end()) {
      return;
    }
    const Field& f = it->second;
    for (int64_t e = 0; e < f.elements; ++e) {
      const int64_t k = index * 7919 + e * 31;
      if (f.dtype == "i32") {
        const auto v = static_cast<int32_t>(k % f.bound);
        std::memcpy(static_cast<char*>(dst) + e * 4, &v, 4);
      } else if (f.dtype == "bool") {
        static_cast<uint8_t*>(dst)[e] = static_cast<uint8_t>(k % 2);
      } else {
        const float v = std::sin(static_cast<float>(k) * 0.37f);
        std::memcpy(static_cast<char*>(dst) + e * 4, &v, 4);
      }
    }
  };
  session.set_data("train", std::move(source));
  session.train([&session](const Progress&) { session.request_stop(); });
}

}  // namespace iputrain::fuzz
