// The optimizers, learning-rate schedules and clipping of core/optim against values computed by
// hand and against a double-precision reference of each update rule written out here, element
// by element, from the torch.optim formulas (and the LAMB and Lion papers).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <numbers>
#include <string>
#include <vector>

#include "core/optim/clipping.hpp"
#include "core/optim/lr_schedule.hpp"
#include "core/optim/optimizer.hpp"
#include "core/optim_table.hpp"
#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using iputrain::Config;
namespace config = iputrain::config;

using iputrain::OptimizerSettings;
using iputrain::Settings;
using namespace iputrain::optim;

namespace {

Config with(const std::string& type, double weight_decay = 0.0) {
  Config c;
  c.plain.optimizer_type = type;
  c.optimizer.hyper["weight_decay"] = weight_decay;
  return c;
}

// tests/engine/adafactor_reference.py (NumPy, float64, the paper's algorithm) prints these: the
// weights after each of three updates.
// matrix, defaults
const std::vector<std::vector<double>> kAdafactorMatrix = {
    {0.48118200372798148, -1.1898935194660472, 1.7164834016170223, 0, -0.068790187953407994, 0.77890990004813898,
     0.00076623096359011223, 0.37838765592698542, 1.5063573206079974, -0.26091767080550682, 0.29999999999999999,
     -0.97969601776278026},
    {0.50674151624452213, -1.1748364165219147, 1.5816057827128658, 0, -0.086697658845381081, 0.76484418407044419,
     0.00079773022155316055, 0.40277636539254441, 1.4959642082018234, -0.27010154099718781, 0.29999999999999999,
     -0.94147836987689859},
    {0.49970308954265774, -1.1840652551638267, 1.6323452422486489, 0, -0.074740230430886526, 0.7636564059558435,
     0.00079446506426080236, 0.39364195071981667, 1.4847901197576676, -0.25789191617740492, 0.29999999999999999,
     -0.94930304792712927},
};
// vector, defaults
const std::vector<std::vector<double>> kAdafactorVector = {
    {0.39217235975873349, -1.1421723597587334, 1.8921723597587334, 0, -0.13782764024126654},
    {0.45595308522970829, -1.1088463554988217, 1.8273029109936678, 0, -0.17576873631160719},
    {0.43604033172591122, -1.1280718959885996, 1.8559267622907936, 0, -0.15739806427755856},
};
// matrix, beta1 0.9, weight_decay 0.1, clip_threshold 0.5, fixed step, no parameter scale
const std::vector<std::vector<double>> kAdafactorOptions = {
    {0.49395487296219726, -1.2341617642470997, 1.9642538568744161, 0, -0.031854356587467214, 0.74410561824775223,
     0.00097701677176350839, 0.39479967851972692, 1.4853530773180819, -0.20138328820552862, 0.29699999999999999,
     -0.89542621317195925},
    {0.49204235453696527, -1.2241041482146249, 1.9323567931616263, 0, -0.0346834415668607, 0.74100585003524777,
     0.00096229274109973736, 0.39317464821504344, 1.4776350114459735, -0.20395953570826206, 0.29551499999999997,
     -0.89269299592873352},
    {0.49113356747226211, -1.218716692988864, 1.9116965423079153, 0, -0.03657947840254893, 0.740010592816851,
     0.00095131537225687029, 0.39214920875907827, 1.4737408910825938, -0.20603707432133203, 0.29492396999999998,
     -0.89295097884933972},
};
// 2 x 3 x 4, defaults
const std::vector<std::vector<double>> kAdafactorBatched = {
    {0.48512306769496599,   -1.2024816548440338,  1.7758604486616447,     0,
     -0.060666336199698669, 0.77285528276998272,  0.00081518934963048083, 0.38291394178850835,
     1.5050259032342996,    -0.24815964737443641, 0.29999999999999999,    -0.9630052341439056,
     -0.26487693230503401,  0.6725183451559662,   -1.2241395513383553,    0,
     -0.01566633619969867,  -0.35214471723001733, -0.0006848106503695192, -0.21708605821149166,
     -0.74497409676570048,  0.0518403526255636,   -0.14999999999999999,   0.38699476585609438},
    {0.50617239732734298,   -1.190081499599501,   1.6647830774282764,      0,
     -0.075413888894352091, 0.76127157623652342,  0.00084113030854393426,  0.4029990660457336,
     1.4964667396429623,    -0.25572294932867173, 0.29999999999999999,     -0.93153139959391407,
     -0.24382760267265707,  0.68491850040049884,  -1.3352169225717236,     0,
     -0.030413888894352099, -0.36372842376347669, -0.00065886969145606577, -0.19700093395426638,
     -0.75353326035703772,  0.044277050671328262, -0.14999999999999999,    0.41846860040608591},
    {0.5002191132356939,    -1.1978874909948134,  1.7076998300021482,      0,
     -0.065299985408195718, 0.7602669226607196,   0.00083836855371026116,  0.39527294089573795,
     1.4870154054469762,    -0.24539573157340799, 0.29999999999999999,     -0.93814971549487725,
     -0.2497808867643061,   0.67711250900518649,  -1.2923001699978518,     0,
     -0.020299985408195723, -0.36473307733928051, -0.00066163144628973887, -0.20472705910426203,
     -0.7629845945530237,   0.054604268426591995, -0.14999999999999999,    0.41185028450512268},
};

//! One parameter tensor with its own gradient and state buffers.
struct Tensor {
  std::vector<float> w, g, state;
  iputrain::Shape shape;
  ParamSlot slot() { return {w.data(), g.data(), state.data(), static_cast<int64_t>(w.size()), 0, shape}; }
};

//! Runs `grads.size()` updates of `w0`, with the gradient of update k = grads[k], the learning
//! rate lrs[k] and `grad_scale`; returns the weights after each update. The weight has `shape`
//! (empty: a vector).
std::vector<std::vector<float>> run(const Config& c, const std::vector<float>& w0,
                                    const std::vector<std::vector<float>>& grads, const std::vector<float>& lrs,
                                    float grad_scale, iputrain::Shape shape = {}) {
  const OptimizerSettings o = config::resolve(c).optimizer;
  auto opt = make_optimizer(o);
  if (shape.empty()) {
    shape = {static_cast<int64_t>(w0.size())};
  }
  Tensor t{w0, std::vector<float>(w0.size()),
           std::vector<float>(static_cast<size_t>(iputrain::optimizer_state_floats(o, shape)), 0.0f), shape};
  opt->init_state(t.slot());
  std::vector<std::vector<float>> out;
  for (size_t k = 0; k < grads.size(); ++k) {
    t.g = grads[k];
    opt->update({t.slot()}, static_cast<int64_t>(k) + 1, lrs[k], grad_scale);
    out.push_back(t.w);
  }
  return out;
}

double norm(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) {
    s += x * x;
  }
  return std::sqrt(s);
}

//! The same updates in double, straight from the published rules.
std::vector<std::vector<double>> reference(const OptimizerSettings& o, const std::vector<float>& w0,
                                           const std::vector<std::vector<float>>& grads, const std::vector<float>& lrs,
                                           double grad_scale) {
  const std::string type = o.type;
  const size_t n = w0.size();
  std::vector<double> w(w0.begin(), w0.end());
  std::vector<double> a(n, 0.0), b(n, 0.0);  // the two state arrays
  if (type == "adagrad") {
    a.assign(n, o.param("initial_accumulator_value"));
  }
  const double wd = o.param("weight_decay");
  std::vector<std::vector<double>> out;
  for (size_t k = 0; k < grads.size(); ++k) {
    const double lr = lrs[k];
    const double t = static_cast<double>(k + 1);
    std::vector<double> u(n);
    // LARS: one trust ratio per tensor, from the norms before the update. The vector here has one
    // dimension, so it is adapted (and decayed) only with adapt_vectors.
    const bool adapted = type == "lars" && o.param("adapt_vectors") != 0;
    const double lars_wd = adapted ? wd : 0.0;
    double trust = 1.0;
    if (adapted) {
      std::vector<double> g(n);
      for (size_t i = 0; i < n; ++i) {
        g[i] = grad_scale * grads[k][i];
      }
      if (norm(w) > 0 && norm(g) > 0) {
        trust = o.param("trust_coefficient") * norm(w) / (norm(g) + wd * norm(w) + o.param("epsilon"));
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const double raw = grad_scale * grads[k][i];
      if (type == "lars") {
        const double d = raw + lars_wd * w[i];
        a[i] = o.param("momentum") * a[i] + lr * trust * d;
        w[i] -= o.param("use_nesterov") != 0 ? o.param("momentum") * a[i] + lr * trust * d : a[i];
        continue;
      }
      const bool coupled = type != "adamw" && type != "lamb" && type != "lion";
      const double g = coupled ? raw + wd * w[i] : raw;
      if (type == "sgd") {
        w[i] -= lr * g;
      } else if (type == "momentum") {
        a[i] = o.param("momentum") * a[i] + g;
        w[i] -= lr * (o.param("use_nesterov") ? g + o.param("momentum") * a[i] : a[i]);
      } else if (type == "adam" || type == "adamw" || type == "lamb") {
        a[i] = o.param("beta1") * a[i] + (1 - o.param("beta1")) * g;
        b[i] = o.param("beta2") * b[i] + (1 - o.param("beta2")) * g * g;
        const double m_hat = a[i] / (1 - std::pow(o.param("beta1"), t));
        const double v_hat = b[i] / (1 - std::pow(o.param("beta2"), t));
        if (type == "lamb") {
          u[i] = m_hat / (std::sqrt(v_hat) + o.param("epsilon")) + wd * w[i];
        } else {
          if (type == "adamw") {
            w[i] *= 1 - lr * wd;
          }
          w[i] -= lr * m_hat / (std::sqrt(v_hat) + o.param("epsilon"));
        }
      } else if (type == "rmsprop") {
        a[i] = o.param("rho") * a[i] + (1 - o.param("rho")) * g * g;
        double mean_square = a[i];
        if (o.param("centered")) {
          b[i] = o.param("rho") * b[i] + (1 - o.param("rho")) * g;
          mean_square -= b[i] * b[i];
        }
        w[i] -= lr * g / (std::sqrt(mean_square) + o.param("epsilon"));
      } else if (type == "adagrad") {
        a[i] += g * g;
        w[i] -= lr * g / (std::sqrt(a[i]) + o.param("epsilon"));
      } else if (type == "lion") {
        const double c = o.param("beta1") * a[i] + (1 - o.param("beta1")) * g;
        w[i] -= lr * (static_cast<double>((c > 0) - (c < 0)) + wd * w[i]);
        a[i] = o.param("beta2") * a[i] + (1 - o.param("beta2")) * g;
      }
    }
    if (type == "lamb") {
      const double w_norm = norm(w), u_norm = norm(u);
      const double trust = w_norm > 0 && u_norm > 0 ? w_norm / u_norm : 1.0;
      for (size_t i = 0; i < n; ++i) {
        w[i] -= lr * trust * u[i];
      }
    }
    out.push_back(w);
  }
  return out;
}

//! Three updates of a small vector with gradients of mixed signs and sizes (one element's
//! gradient is zero throughout), a changing learning rate and a gradient scale.
void check_against_reference(const Config& c) {
  INFO(c.plain.optimizer_type << " hyper-parameters " << c.optimizer.hyper.size()
                              << " set: wd=" << c.optimizer.hyper.at("weight_decay"));
  const std::vector<float> w0 = {0.5f, -1.25f, 2.0f, 0.0f, -0.03f, 0.75f, 1e-3f};
  const std::vector<std::vector<float>> grads = {
      {0.1f, -0.2f, 0.05f, 0.0f, 1.5f, -0.7f, 3e-4f},
      {-0.3f, -0.1f, 0.2f, 0.0f, 0.9f, 0.4f, -2e-4f},
      {0.25f, 0.15f, -0.6f, 0.0f, -1.1f, 0.05f, 1e-4f},
  };
  const std::vector<float> lrs = {0.1f, 0.05f, 0.02f};
  const float grad_scale = 0.5f;
  const auto ours = run(c, w0, grads, lrs, grad_scale);
  const auto theirs = reference(config::resolve(c).optimizer, w0, grads, lrs, grad_scale);
  for (size_t k = 0; k < ours.size(); ++k) {
    for (size_t i = 0; i < w0.size(); ++i) {
      INFO("update " << k + 1 << ", element " << i);
      CHECK(ours[k][i] == doctest::Approx(theirs[k][i]).epsilon(2e-6));
    }
    CHECK(ours[k] != (k == 0 ? w0 : ours[k - 1]));  // the update moved something
  }
}

}  // namespace

TEST_CASE("sgd and momentum by hand") {
  // w = [1, -2], g = [0.5, 0.25], lr 0.1, L2 0.01: w - 0.1 (g + 0.01 w).
  auto sgd = run(with("sgd", 0.01), {1.0f, -2.0f}, {{0.5f, 0.25f}}, {0.1f}, 1.0f);
  CHECK(sgd[0][0] == doctest::Approx(0.949));
  CHECK(sgd[0][1] == doctest::Approx(-2.023));

  // Momentum 0.9, g = 1 twice: velocity 1 then 1.9; heavy ball moves 0.1 then 0.19.
  Config heavy = with("momentum");
  auto h = run(heavy, {0.0f}, {{1.0f}, {1.0f}}, {0.1f, 0.1f}, 1.0f);
  CHECK(h[0][0] == doctest::Approx(-0.1));
  CHECK(h[1][0] == doctest::Approx(-0.29));
  // Nesterov steps along g + 0.9 * velocity: 1.9 then 1 + 0.9 * 1.9 = 2.71.
  Config nesterov = with("momentum");
  nesterov.optimizer.hyper["use_nesterov"] = true;
  auto nv = run(nesterov, {0.0f}, {{1.0f}, {1.0f}}, {0.1f, 0.1f}, 1.0f);
  CHECK(nv[0][0] == doctest::Approx(-0.19));
  CHECK(nv[1][0] == doctest::Approx(-0.19 - 0.271));
}

TEST_CASE("adam, adamw and adagrad by hand") {
  // Adam's first bias-corrected step is lr * g / (|g| + eps): a step of lr against the sign.
  auto adam = run(with("adam"), {1.0f, 1.0f}, {{0.3f, -4.0f}}, {0.01f}, 1.0f);
  CHECK(adam[0][0] == doctest::Approx(0.99));
  CHECK(adam[0][1] == doctest::Approx(1.01));
  // AdamW first shrinks by 1 - lr * wd = 0.999, then takes the same step.
  auto adamw = run(with("adamw", 0.1), {1.0f}, {{0.3f}}, {0.01f}, 1.0f);
  CHECK(adamw[0][0] == doctest::Approx(0.999 - 0.01));
  // With L2 in Adam the decay enters the gradient: g = 0.3 + 0.1 * 1 still > 0, same first step.
  auto adam_l2 = run(with("adam", 0.1), {1.0f}, {{0.3f}}, {0.01f}, 1.0f);
  CHECK(adam_l2[0][0] == doctest::Approx(0.99));
  // Adagrad from an accumulator of 0.1: s = 0.1 + 0.3^2 = 0.19; step 0.1 * 0.3 / sqrt(0.19).
  auto adagrad = run(with("adagrad"), {1.0f}, {{0.3f}}, {0.1f}, 1.0f);
  CHECK(adagrad[0][0] == doctest::Approx(1.0 - 0.03 / std::sqrt(0.19)));
}

TEST_CASE("lamb scales each tensor's step by the trust ratio |w| / |u|") {
  // First step: u = g / (|g| + eps) = [1, -1] (no decay); |w| = 5, |u| = sqrt 2.
  auto lamb = run(with("lamb"), {3.0f, 4.0f}, {{0.2f, -0.7f}}, {0.01f}, 1.0f);
  const double step = 0.01 * 5.0 / std::sqrt(2.0);
  CHECK(lamb[0][0] == doctest::Approx(3.0 - step));
  CHECK(lamb[0][1] == doctest::Approx(4.0 + step));
  // A tensor of zeros has no norm to trust: the ratio is 1 and the step is lr * u.
  auto zero = run(with("lamb"), {0.0f, 0.0f}, {{0.2f, -0.7f}}, {0.01f}, 1.0f);
  CHECK(zero[0][0] == doctest::Approx(-0.01));
  CHECK(zero[0][1] == doctest::Approx(0.01));
}

TEST_CASE("lars scales a matrix's step by eta |w| / |g| and leaves a vector plain momentum") {
  // |w| = 5, |g| = 1, eta 0.001, no decay: trust 0.005; lr 1 puts 0.005 g in the velocity.
  const auto matrix = run(with("lars"), {3.0f, 4.0f}, {{0.6f, 0.8f}, {0.6f, 0.8f}}, {1.0f, 1.0f}, 1.0f, {1, 2});
  CHECK(matrix[0][0] == doctest::Approx(3.0 - 0.003));
  CHECK(matrix[0][1] == doctest::Approx(4.0 - 0.004));
  // Second update: |w| barely moved; the velocity is 0.9 v + the new step.
  const double w2 = std::hypot(3.0 - 0.003, 4.0 - 0.004);
  CHECK(matrix[1][0] == doctest::Approx(3.0 - 0.003 - (0.9 * 0.003 + 0.001 * w2 * 0.6)));
  // The same numbers as a vector (a bias): no trust ratio, the whole learning rate.
  const auto vector = run(with("lars"), {3.0f, 4.0f}, {{0.6f, 0.8f}}, {1.0f}, 1.0f, {2});
  CHECK(vector[0][0] == doctest::Approx(2.4));
  CHECK(vector[0][1] == doctest::Approx(3.2));
  // A vector takes no decay either; a matrix does, in the gradient and in the ratio's denominator.
  const auto decayed_vector = run(with("lars", 0.5), {3.0f, 4.0f}, {{0.6f, 0.8f}}, {1.0f}, 1.0f, {2});
  CHECK(decayed_vector[0][0] == doctest::Approx(2.4));
  const auto decayed = run(with("lars", 0.5), {3.0f, 4.0f}, {{0.6f, 0.8f}}, {1.0f}, 1.0f, {2, 1});
  const double trust = 0.001 * 5.0 / (1.0 + 0.5 * 5.0 + 1e-8);
  CHECK(decayed[0][0] == doctest::Approx(3.0 - trust * (0.6 + 0.5 * 3.0)));
  // A zero weight (a fresh tensor) has no norm to trust: ratio 1.
  const auto zero = run(with("lars"), {0.0f, 0.0f}, {{0.6f, 0.8f}}, {0.1f}, 1.0f, {1, 2});
  CHECK(zero[0][0] == doctest::Approx(-0.06));
}

TEST_CASE("lion by hand: the sign of the interpolated momentum, then the momentum") {
  // beta1 0.9, beta2 0.99 (lion's own default), lr 0.1. Update 1 (m = 0): c = 0.1 g, so the step is
  // sign(g) = [1, -1, 0]: w = [0.9, -1.9, 0.5]; then m = 0.01 g = [0.005, -0.0025, 0].
  // Update 2, g = [-0.01, -0.25, 1]: c = 0.9 m + 0.1 g = [0.0035, -0.02725, 0.1]: the first
  // weight still steps against its old gradient, as the momentum outweighs the new one.
  const Config c = with("lion");
  CHECK(config::resolve(c).optimizer.param("beta2") == 0.99);
  auto w = run(c, {1.0f, -2.0f, 0.5f}, {{0.5f, -0.25f, 0.0f}, {-0.01f, -0.25f, 1.0f}}, {0.1f, 0.1f}, 1.0f);
  CHECK(w[0][0] == doctest::Approx(0.9));
  CHECK(w[0][1] == doctest::Approx(-1.9));
  CHECK(w[0][2] == 0.5f);  // a zero gradient and momentum: sign 0, no step
  CHECK(w[1][0] == doctest::Approx(0.8));
  CHECK(w[1][1] == doctest::Approx(-1.8));
  CHECK(w[1][2] == doctest::Approx(0.4));
  // Decoupled decay 0.5: w (1 - 0.1 * 0.5) - 0.1 sign(g) = 2 * 0.95 - 0.1 = 1.8.
  auto decayed = run(with("lion", 0.5), {2.0f}, {{-3.0f}}, {0.1f}, 1.0f);
  CHECK(decayed[0][0] == doctest::Approx(2.0));
  auto shrunk = run(with("lion", 0.5), {2.0f}, {{3.0f}}, {0.1f}, 1.0f);
  CHECK(shrunk[0][0] == doctest::Approx(1.8));
}

TEST_CASE("every optimizer agrees with the double-precision reference over three updates") {
  for (const auto* def : iputrain::optimizer_table()) {
    if (!def->shardable) {
      continue;  // adafactor: factored, against its own NumPy reference below
    }
    for (double wd : {0.0, 0.05}) {
      check_against_reference(with(std::string(def->name), wd));
    }
  }
  Config nesterov = with("momentum", 0.01);
  nesterov.optimizer.hyper["use_nesterov"] = true;
  check_against_reference(nesterov);
  Config centered = with("rmsprop", 0.01);
  centered.optimizer.hyper["centered"] = true;
  check_against_reference(centered);
  for (const bool nesterov_lars : {false, true}) {
    Config lars = with("lars", 0.01);
    lars.optimizer.hyper["adapt_vectors"] = true;
    lars.optimizer.hyper["trust_coefficient"] = 0.02;
    lars.optimizer.hyper["use_nesterov"] = nesterov_lars;
    check_against_reference(lars);
  }
  Config tuned = with("adam");
  tuned.optimizer.hyper["beta1"] = 0.5;
  tuned.optimizer.hyper["beta2"] = 0.9;
  tuned.optimizer.hyper["epsilon"] = 1e-3;
  check_against_reference(tuned);
}

TEST_CASE("every optimizer of the table writes exactly the state arrays it declares") {
  for (const auto* def : iputrain::optimizer_table()) {
    const std::string type(def->name);
    for (bool centered : {false, true}) {
      Config c = with(type);
      if (def->find("centered") != nullptr) {
        c.optimizer.hyper["centered"] = centered;
      }
      const OptimizerSettings o = config::resolve(c).optimizer;
      INFO(type << " centered=" << centered);
      auto opt = make_optimizer(o);
      // A 2 x 4 weight: the state arrays its definition declares, one after the other, then a
      // sentinel array: an optimizer that wrote more state than declared (and the planner
      // counts) would change it. Each declared array must be used.
      const iputrain::Shape shape = {2, 4};
      const std::vector<iputrain::Shape> arrays = iputrain::optimizer_state_shapes(o, shape);
      const int64_t floats = iputrain::optimizer_state_floats(o, shape);
      constexpr int64_t n = 8;
      std::vector<float> w = {0.5f, -1.0f, 2.0f, 0.25f, 0.1f, 0.2f, -0.3f, 0.4f};
      std::vector<float> g = {0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f, 0.7f, -0.8f};
      std::vector<float> state(static_cast<size_t>(floats + n), 0.0f);
      const std::vector<ParamSlot> params = {{w.data(), g.data(), state.data(), n, 0, shape}};
      opt->init_state(params[0]);
      opt->reserve(params);
      std::fill(state.end() - n, state.end(), 7.0f);
      opt->update(params, 1, 0.01f, 1.0f);
      opt->update(params, 2, 0.01f, 1.0f);
      CHECK(std::all_of(state.end() - n, state.end(), [](float x) { return x == 7.0f; }));
      int64_t offset = 0;
      for (const iputrain::Shape& a : arrays) {
        const int64_t size = iputrain::numel(a);
        CHECK(std::any_of(state.begin() + offset, state.begin() + offset + size, [](float x) { return x != 0.0f; }));
        offset += size;
      }
    }
  }
  CHECK(iputrain::optimizer_state_slots(config::resolve(with("sgd")).optimizer) == 0);
  CHECK(iputrain::optimizer_state_slots(config::resolve(with("adam")).optimizer) == 2);
  CHECK(iputrain::optimizer_state_floats(config::resolve(with("adam")).optimizer, {3, 5}) == 30);
  Config centered = with("rmsprop");
  centered.optimizer.hyper["centered"] = 1;
  CHECK(iputrain::optimizer_state_slots(config::resolve(centered).optimizer) == 2);
}

TEST_CASE("each hyper-parameter key is declared alike by every optimizer that reads it") {
  // optimizer_hyper_keys() refuses a shared name declared with another doc, range or kind.
  const auto& keys = iputrain::optimizer_hyper_keys();
  REQUIRE_FALSE(keys.empty());
  CHECK(keys.front().name == "weight_decay");  // sgd, first in the list, reads it
  for (const auto* def : iputrain::optimizer_table()) {
    for (const auto& p : def->params) {
      const auto* key = iputrain::find_hyper_key(p.name);
      REQUIRE(key != nullptr);
      CHECK(std::find(key->readers.begin(), key->readers.end(), def) != key->readers.end());
    }
  }
  CHECK(iputrain::find_hyper_key("weight_decay")->doc() ==
        "Weight decay: L2 added to the gradient, decoupled for adamw, lamb, lion and adafactor.");
}

namespace {

// The inputs of tests/engine/adafactor_reference.py.
const std::vector<float> kMatrix = {0.5f, -1.25f, 2.0f, 0.0f, -0.03f, 0.75f, 1e-3f, 0.4f, 1.5f, -0.2f, 0.3f, -0.9f};
const std::vector<std::vector<float>> kMatrixGrads = {
    {0.1f, -0.2f, 0.05f, 0.0f, 1.5f, -0.7f, 3e-4f, 0.2f, -0.1f, 0.6f, 0.0f, 0.3f},
    {-0.3f, -0.1f, 0.2f, 0.0f, 0.9f, 0.4f, -2e-4f, -0.5f, 0.2f, 0.1f, 0.0f, -0.3f},
    {0.25f, 0.15f, -0.6f, 0.0f, -1.1f, 0.05f, 1e-4f, 0.3f, 0.4f, -0.2f, 0.0f, 0.1f},
};
const std::vector<float> kLrs = {0.1f, 0.05f, 0.02f};

void check_close(const std::vector<std::vector<float>>& ours, const std::vector<std::vector<double>>& theirs) {
  REQUIRE(ours.size() == theirs.size());
  for (size_t k = 0; k < ours.size(); ++k) {
    REQUIRE(ours[k].size() == theirs[k].size());
    for (size_t i = 0; i < ours[k].size(); ++i) {
      INFO("update " << k + 1 << ", element " << i);
      CHECK(ours[k][i] == doctest::Approx(theirs[k][i]).epsilon(1e-5));
    }
  }
}

}  // namespace

TEST_CASE("adafactor agrees with a NumPy reference of the paper's algorithm: a matrix, a vector, a batch") {
  check_close(run(with("adafactor"), kMatrix, kMatrixGrads, kLrs, 0.5f, {3, 4}), kAdafactorMatrix);
  const std::vector<float> vector = {0.5f, -1.25f, 2.0f, 0.0f, -0.03f};
  const std::vector<std::vector<float>> vector_grads = {
      {0.1f, -0.2f, 0.05f, 0.0f, 1.5f}, {-0.3f, -0.1f, 0.2f, 0.0f, 0.9f}, {0.25f, 0.15f, -0.6f, 0.0f, -1.1f}};
  check_close(run(with("adafactor"), vector, vector_grads, kLrs, 0.5f), kAdafactorVector);
  // The first moment, decoupled decay, a clipping threshold that bites, a fixed step, no scale.
  // (Written in the file: beta1 = 0.9 is also the key's default, which adafactor replaces by its 0.)
  const Config options = config::parse(
      "[optimizer]\ntype = \"adafactor\"\nbeta1 = 0.9\nweight_decay = 0.1\nclip_threshold = 0.5\n"
      "relative_step = false\nscale_parameter = false\n");
  check_close(run(options, kMatrix, kMatrixGrads, kLrs, 0.5f, {3, 4}), kAdafactorOptions);
  // 2 x 3 x 4: two matrices, each factored on its own (the second is -0.5 times the first).
  std::vector<float> batched = kMatrix;
  for (float x : kMatrix) {
    batched.push_back(-0.5f * x);
  }
  std::vector<std::vector<float>> batched_grads;
  for (const auto& g : kMatrixGrads) {
    batched_grads.push_back(g);
    batched_grads.back().insert(batched_grads.back().end(), g.begin(), g.end());
  }
  check_close(run(with("adafactor"), batched, batched_grads, kLrs, 1.0f, {2, 3, 4}), kAdafactorBatched);
}

TEST_CASE("adafactor keeps rows + columns floats for a matrix, n for a vector, n more with beta1") {
  const OptimizerSettings o = config::resolve(with("adafactor")).optimizer;
  CHECK(o.param("beta2_decay") == -0.8);
  CHECK(o.param("epsilon1") == 1e-30);
  CHECK(o.param("epsilon2") == 1e-3);
  CHECK(o.param("clip_threshold") == 1.0);
  CHECK(o.param("beta1") == 0.0);
  CHECK(iputrain::optimizer_state_floats(o, {300, 200}) == 500);
  CHECK(iputrain::optimizer_state_floats(o, {4, 300, 200}) == 4 * 500);
  CHECK(iputrain::optimizer_state_floats(o, {7}) == 7);
  CHECK(iputrain::optimizer_state_shapes(o, {5, 3, 2}) == std::vector<iputrain::Shape>{{5, 3}, {5, 2}});
  const Config first = config::parse("[optimizer]\ntype = \"adafactor\"\nbeta1 = 0.9\n");
  CHECK(iputrain::optimizer_state_floats(config::resolve(first).optimizer, {300, 200}) == 500 + 60000);
  CHECK_FALSE(iputrain::find_optimizer("adafactor")->shardable);
}

TEST_CASE("adagrad starts its sums at initial_accumulator_value, the others start at zero") {
  Config c = with("adagrad");
  c.optimizer.hyper["initial_accumulator_value"] = 0.25;
  std::vector<float> w(3), g(3), state(3, 0.0f);
  make_optimizer(config::resolve(c).optimizer)->init_state({w.data(), g.data(), state.data(), 3});
  CHECK(state == std::vector<float>(3, 0.25f));
  std::vector<float> moments(6, 0.0f);
  make_optimizer(config::resolve(with("adam")).optimizer)->init_state({w.data(), g.data(), moments.data(), 3});
  CHECK(moments == std::vector<float>(6, 0.0f));
}

TEST_CASE("learning-rate schedules at chosen steps") {
  Settings settings;
  settings.plain.optimizer_learning_rate = 0.1;
  CHECK(learning_rate_at(settings, 1) == doctest::Approx(0.1));
  CHECK(learning_rate_at(settings, 1000) == doctest::Approx(0.1));

  settings.plain.optimizer_warmup_steps = 4;  // 0.025, 0.05, 0.075, 0.1, then the schedule
  CHECK(learning_rate_at(settings, 1) == doctest::Approx(0.025));
  CHECK(learning_rate_at(settings, 3) == doctest::Approx(0.075));
  CHECK(learning_rate_at(settings, 4) == doctest::Approx(0.1));
  CHECK(learning_rate_at(settings, 5) == doctest::Approx(0.1));

  settings.plain.optimizer_lr_schedule = "step";
  settings.plain.optimizer_decay_steps = 10;
  settings.plain.optimizer_decay_rate = 0.5;
  CHECK(learning_rate_at(settings, 5) == doctest::Approx(0.1));    // s = 0
  CHECK(learning_rate_at(settings, 14) == doctest::Approx(0.1));   // s = 9
  CHECK(learning_rate_at(settings, 15) == doctest::Approx(0.05));  // s = 10
  CHECK(learning_rate_at(settings, 35) == doctest::Approx(0.0125));

  settings.plain.optimizer_lr_schedule = "exponential";
  CHECK(learning_rate_at(settings, 10) == doctest::Approx(0.1 * std::pow(0.5, 0.5)));  // s = 5
  CHECK(learning_rate_at(settings, 25) == doctest::Approx(0.025));                     // s = 20

  settings.plain.optimizer_lr_schedule = "cosine";
  settings.plain.optimizer_warmup_steps = 0;
  settings.plain.optimizer_decay_steps = 100;
  settings.plain.optimizer_min_learning_rate = 0.01;
  CHECK(learning_rate_at(settings, 1) == doctest::Approx(0.1));
  CHECK(learning_rate_at(settings, 51) == doctest::Approx(0.055));  // halfway: the mean of 0.1 and 0.01
  CHECK(learning_rate_at(settings, 26) == doctest::Approx(0.01 + 0.09 * 0.5 * (1 + std::cos(std::numbers::pi / 4))));
  CHECK(learning_rate_at(settings, 101) == doctest::Approx(0.01));
  CHECK(learning_rate_at(settings, 5000) == doctest::Approx(0.01));  // held at the floor, no restart

  settings.plain.optimizer_lr_schedule = "linear";  // 0.1 down to 0.01 over 100 updates
  CHECK(learning_rate_at(settings, 1) == doctest::Approx(0.1));
  CHECK(learning_rate_at(settings, 51) == doctest::Approx(0.055));
  CHECK(learning_rate_at(settings, 76) == doctest::Approx(0.01 + 0.09 * 0.25));
  CHECK(learning_rate_at(settings, 101) == doctest::Approx(0.01));
  CHECK(learning_rate_at(settings, 5000) == doctest::Approx(0.01));
  settings.plain.optimizer_warmup_steps = 10;  // the decay starts where the warmup ends
  settings.plain.optimizer_min_learning_rate = 0.0;
  CHECK(learning_rate_at(settings, 10) == doctest::Approx(0.1));
  CHECK(learning_rate_at(settings, 11) == doctest::Approx(0.1));
  CHECK(learning_rate_at(settings, 61) == doctest::Approx(0.05));
  CHECK(learning_rate_at(settings, 111) == doctest::Approx(0.0));
}

TEST_CASE("clipping by global norm spans several slots and follows clip_grad_norm_") {
  std::vector<float> w(2), g1 = {3.0f, 0.0f}, g2 = {4.0f};
  const std::vector<ParamSlot> slots = {{w.data(), g1.data(), nullptr, 2}, {w.data(), g2.data(), nullptr, 1}};
  CHECK(sum_of_squares(slots) == 25.0);
  Settings settings;
  CHECK(clip_scale(25.0, settings) == 1.0f);  // off
  settings.plain.optimizer_gradient_clip_norm = 1.0;
  CHECK(clip_scale(25.0, settings) == doctest::Approx(1.0 / (5.0 + 1e-6)));
  CHECK(clip_scale(0.25, settings) == 1.0f);  // within the limit: untouched
  CHECK(clip_scale(0.0, settings) == 1.0f);
  settings.plain.optimizer_gradient_clip_norm = 10.0;
  CHECK(clip_scale(25.0, settings) == 1.0f);

  // Scaling the gradients by the clip factor is the same as clipping them beforehand.
  settings.plain.optimizer_gradient_clip_norm = 1.0;
  auto clipped = run(with("sgd"), {1.0f, 1.0f}, {{3.0f, 4.0f}}, {0.1f}, clip_scale(25.0, settings));
  CHECK(clipped[0][0] == doctest::Approx(1.0 - 0.1 * 0.6));
  CHECK(clipped[0][1] == doctest::Approx(1.0 - 0.1 * 0.8));
}

TEST_CASE("every learning-rate schedule of the table is documented in docs/training.md") {
  std::ifstream in(std::string(IPUTRAIN_SOURCE_DIR) + "/docs/training.md");
  REQUIRE(in.good());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const LrScheduleDef* def : lr_schedule_table()) {
    INFO(def->name);
    CHECK(text.find("| `" + std::string(def->name) + "`") != std::string::npos);
    CHECK(find_lr_schedule(def->name) == def);
  }
  CHECK(find_lr_schedule("warm") == nullptr);
}

TEST_CASE("schedule keys are checked: decay_steps required, parameters only where used") {
  CHECK_NOTHROW(config::parse("[optimizer]\nlr_schedule = \"step\"\ndecay_steps = 10\ndecay_rate = 0.5\n"));
  CHECK_NOTHROW(config::parse("[optimizer]\nwarmup_steps = 10\n"));
  CHECK_THROWS_WITH_AS(config::parse("[optimizer]\nlr_schedule = \"linear\"\n"),
                       doctest::Contains("the linear schedule needs `optimizer.decay_steps`"), iputrain::Error);
  CHECK_THROWS_WITH_AS(config::parse("[optimizer]\nlr_schedule = \"linear\"\ndecay_steps = 5\ndecay_rate = 0.5\n"),
                       doctest::Contains("has no effect with `optimizer.lr_schedule` = \"linear\""), iputrain::Error);
  CHECK_THROWS_WITH_AS(
      config::parse("[optimizer]\nlr_schedule = \"linear\"\ndecay_steps = 5\nmin_learning_rate = 1.0\n"),
      doctest::Contains("the linear schedule decays from `learning_rate`"), iputrain::Error);
  CHECK_THROWS_WITH_AS(config::parse("[optimizer]\nlr_schedule = \"exponential\"\n"),
                       doctest::Contains("needs `optimizer.decay_steps`"), iputrain::Error);
  CHECK_THROWS_WITH_AS(config::parse("[optimizer]\nmin_learning_rate = 0.001\n"),
                       doctest::Contains("has no effect with `optimizer.lr_schedule` = \"constant\""), iputrain::Error);
}

TEST_CASE("a session trains with each optimizer, a schedule and clipping") {
  for (const auto* def : iputrain::optimizer_table()) {
    const std::string opt(def->name);
    if (opt == "sgd") {
      continue;  // trains in every other test
    }
    INFO(opt);
    const std::string extra = "[optimizer]\ntype = \"" + opt +
                              "\"\nweight_decay = 0.001\ngradient_clip_norm = 1.0\nlr_schedule = \"cosine\"\n"
                              "decay_steps = 60\nwarmup_steps = 5\n";
    // synthetic_config opens [optimizer] first; a second table would be a duplicate, so splice.
    std::string text = iputrain::testing::synthetic_config(60, 0.01);
    text.replace(0, std::string("[optimizer]\n").size(), extra);
    Config config = config::parse(text, "t.toml");
    iputrain::Session session(iputrain::Model::parse(iputrain::testing::kMlp, "mlp.ipu"), config);
    const double before = session.evaluate("train").means.at("loss");
    session.train();
    const double after = session.evaluate("train").means.at("loss");
    CHECK(std::isfinite(after));
    CHECK(after < before);
  }
}

// optimizer.type is a line named from the optimizer table: the loader keeps the table's spelling, and a
// Config built in code that names no optimizer is refused at the key, with the names, when it is resolved.
TEST_CASE("optimizer.type names a row of the optimizer table") {
  CHECK(config::parse("[optimizer]\ntype = \"AdamW\"\n").plain.optimizer_type == "adamw");
  CHECK(config::resolve(with("LAMB")).optimizer.type == "lamb");
  try {
    config::resolve(with("nadam"));
    FAIL("an optimizer the table lacks was resolved");
  } catch (const iputrain::Error& e) {
    CHECK(std::string(e.what()).find("`optimizer.type` = \"nadam\" is not an optimizer") != std::string::npos);
    CHECK(e.hint().find("sgd, momentum, adam") != std::string::npos);
  }
}
