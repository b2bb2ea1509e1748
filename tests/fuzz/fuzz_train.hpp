// Shared by the `program` and `config_values` fuzz targets: what `iputrain check` and `train` do
// with a model and a config (load, plan, open a session, one training step), on data made up in
// memory, so that a harness sees every stage's answer to its input.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "iputrain/config.hpp"
#include "iputrain/model.hpp"

namespace iputrain::fuzz {

//! Plans `model` under `config`, opens a Session, gives it `samples` samples of made-up training
//! data (f32 values in [-1, 1]; i32 values below `bounds[input]`, or 2) and trains until the first
//! device execution ends (request_stop() then). The training is left out when that execution
//! (`updates_per_execution` weight updates of Session::global_batch() samples) would go past
//! kMaxSamplesPerExecution samples, and the session when the plan spans more than kMaxSessionIpus
//! IPUs: a fuzz input must stay fast. Throws what they throw.
void plan_and_train(const Model& model, const Config& config, const std::map<std::string, int64_t>& bounds,
                    int64_t updates_per_execution = 1);

constexpr int64_t kMaxSamplesPerExecution = 4096;
//! Plans over more IPUs than this are made but not opened (a session of 1024 virtual IPUs takes
//! seconds).
constexpr int64_t kMaxSessionIpus = 64;

}  // namespace iputrain::fuzz
