// iputrain — the public API: load a Model and a Config, open a Session, train, evaluate, save.
//
//   auto config = iputrain::Config::load("configs/mnist.toml");
//   auto model = iputrain::Model::load("examples/mnist_mlp.ipu", config.model);
//   iputrain::Session session(model, config);
//   session.train();
//   auto result = session.evaluate("test");
#pragma once

#include "iputrain/config.hpp"
#include "iputrain/error.hpp"
#include "iputrain/model.hpp"
#include "iputrain/plan.hpp"
#include "iputrain/session.hpp"
