// The config's pipeline keys checked against a model's stages as the planner's place pass checks
// them (planner/layout_check.cpp): the config resolved once into Settings, which keep the keys'
// locations for the errors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iputrain/config_loader.hpp"
#include "planner/placement.hpp"

namespace iputrain::config_test {

//! `positions`: the stage names of each pipeline position (a parallel block has several).
inline planner::PipelineShape check_against_positions(const Config& c,
                                                      const std::vector<std::vector<std::string>>& positions,
                                                      int64_t last_stage_outputs = -1, bool training = true) {
  return planner::check_layout(positions, last_stage_outputs, training, config::resolve(c));
}

//! One position per stage.
inline planner::PipelineShape check_against_model(const Config& c, const std::vector<std::string>& stages,
                                                  int64_t last_stage_outputs = -1, bool training = true) {
  std::vector<std::vector<std::string>> positions;
  for (const std::string& s : stages) {
    positions.push_back({s});
  }
  return check_against_positions(c, positions, last_stage_outputs, training);
}

}  // namespace iputrain::config_test
