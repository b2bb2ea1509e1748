// iputrain — the public API: load a Model and a Config, plan them, open a Session, give it data,
// train, evaluate, save. In CMake: find_package(iputrain 0.2 REQUIRED) and link iputrain::iputrain.
//
//   auto config = iputrain::config::load("configs/mnist.toml");
//   auto model = iputrain::Model::load("examples/mnist_mlp.ipu", config);
//   auto plan = iputrain::Plan::make(model, config);          // placement, memory, schedule
//   iputrain::Session session(model, config, plan);
//   session.set_data("train", {iputrain::ArrayData::f32("image", {n, 28, 28}, pixels),
//                              iputrain::ArrayData::i32("label", {n}, labels)});   // or data.train
//   session.train([&](const iputrain::Progress& p) { if (p.step >= 100) session.request_stop(); });
//   auto result = session.evaluate("test");
//
// examples/embed is a whole program (a model in a string, data in memory) built against the
// installed package.
#pragma once

#include "iputrain/config.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/custom_op.hpp"
#include "iputrain/error.hpp"
#include "iputrain/files.hpp"
#include "iputrain/instances.hpp"
#include "iputrain/model.hpp"
#include "iputrain/plan.hpp"
#include "iputrain/session.hpp"
#include "iputrain/version.hpp"
