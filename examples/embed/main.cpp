// Embedding iputrain: a model written in a string, trained on data held in memory, planned onto
// two pipelined virtual IPUs, evaluated, stopped early by the progress callback if asked to. The
// model's hidden activation is an op this program registers in C++ (iputrain::register_op).
#include <iputrain/iputrain.hpp>
#include <iputrain/version.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  using namespace iputrain;
  std::printf("iputrain %s\n", version());

  // Two classes, points on either side of the line x0 + x1 = 0.
  const int64_t n = 1024;
  std::vector<float> x(static_cast<size_t>(n) * 2);
  std::vector<int32_t> label(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const float a = std::sin(0.37f * static_cast<float>(i)) * 2.0f;
    const float b = std::cos(0.91f * static_cast<float>(i)) * 2.0f;
    x[static_cast<size_t>(2 * i)] = a;
    x[static_cast<size_t>(2 * i + 1)] = b;
    label[static_cast<size_t>(i)] = a + b > 0 ? 1 : 0;
  }

  // A leaky ReLU with the slope as an attribute, and its gradient.
  CustomOp leaky;
  leaky.name = "leaky";
  leaky.attributes = {{"slope", 0.1}};
  leaky.shape = [](const CustomShapes& in, const CustomAttributes&) { return in[0]; };
  leaky.forward = [](const CustomCall& c) {
    const auto slope = static_cast<float>(c.attributes.get("slope"));
    for (int64_t i = 0; i < c.output.size; ++i) {
      const float v = c.inputs[0].data[i];
      c.output.data[i] = v > 0 ? v : slope * v;
    }
  };
  leaky.backward = [](const CustomGradCall& c) {
    const auto slope = static_cast<float>(c.attributes.get("slope"));
    for (int64_t i = 0; i < c.grad.size; ++i) {
      c.grad.data[i] = c.inputs[0].data[i] > 0 ? c.dy.data[i] : slope * c.dy.data[i];
    }
  };
  register_op(std::move(leaky));

  // Resolved once, for the model, the plan and the session.
  const ResolvedConfig config = config::parse(R"(
[ipu]
auto_select_ipus = 2
[pipeline]
device_mapping = [0, 1]
gradient_accumulation_count = 4
[optimizer]
type = "sgd"
learning_rate = 0.2
[training]
steps = 60
steps_per_execution = 10
)",
                                              "embed.toml");
  const Model model = Model::parse(R"(import nn
model classifier(batch: int = 8) {
  input x: f32[batch, 2]
  input label: i32[batch]
  stage body { h = leaky(nn.dense(x, 16), slope = 0.05) }
  stage head {
    logits = nn.dense(h, 2)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
  output accuracy = mean(cast(argmax(logits, axis = -1) == label, dtype = "f32"))
}
)",
                                   "classifier.ipu", config);

  const Plan plan = Plan::make(model, config);
  std::printf("%s", plan.text(PlanSection::Header).c_str());
  Session session(model, config, plan);
  session.set_data("train", {ArrayData::f32("x", {n, 2}, x.data()), ArrayData::i32("label", {n}, label.data())});
  session.set_data("test", {ArrayData::f32("x", {n, 2}, x.data()), ArrayData::i32("label", {n}, label.data())});

  double first_loss = -1;
  double last_loss = -1;
  const TrainSummary summary = session.train([&](const Progress& p) {
    const double loss = p.records.back().values[0];
    first_loss = first_loss < 0 ? p.records.front().values[0] : first_loss;
    last_loss = loss;
    std::printf("step %lld/%lld  loss %.4f\n", static_cast<long long>(p.step), static_cast<long long>(p.total_steps), loss);
  });
  const EvalResult eval = session.evaluate("test");
  std::printf("trained %lld steps: loss %.4f -> %.4f; test accuracy %.3f on %zu IPUs\n",
              static_cast<long long>(summary.steps), first_loss, last_loss, eval.means.at("accuracy"), eval.ipus.size());
  return last_loss < first_loss && eval.means.at("accuracy") > 0.8 ? 0 : 1;
}
