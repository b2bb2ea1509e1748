// iputrain — tune: the planner proposes the fastest layout of a model that fits a cluster of IPUs.
//
//   iputrain::TuneRequest request;
//   request.model_path = "examples/ipu_scale/bert.ipu";
//   request.config_path = "examples/ipu_scale/bert_base_128.toml";
//   request.ipus = 16;
//   iputrain::TuneResult result = iputrain::tune(request);
//   std::cout << result.ranked.front().toml;   // `iputrain plan` on it predicts the same figures
//
// The search (docs/tune.md): pipeline depth against replicas, the stages' cut points (a dynamic
// programme over the model's declared stage sizes, or `pipeline.auto_stages`' balanced re-cut), the
// device mapping (a tied head back on IPU 0), micro-batch x accumulation holding the global batch,
// the schedule, recomputation, availableMemoryProportion, the accumulators' type and order,
// offloading, sharding and batch serialization, within the config's [tune] section.
// Every candidate is planned by the real planner (Plan::make), so a figure of a tuned plan is the
// figure `iputrain plan` prints for it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace iputrain {

//! What the search has done so far, for a progress line.
struct TuneProgress {
  int64_t planned = 0;  //!< candidates planned (fitting or not)
  int64_t pruned = 0;   //!< candidates skipped by a memory bound without planning
  double seconds = 0;
  double budget_seconds = 0;
  double best_samples_per_second = 0;  //!< 0 while nothing fits
  std::string best;                    //!< the best plan so far in one line
};

struct TuneRequest {
  std::string model_path;
  std::string config_path;
  std::vector<std::string> sets;  //!< "key=value" overrides of the config (constraints like its own keys)
  // The command's flags: each overrides the config's [tune] key of the same name (docs/tune.md);
  // 0 (or -1) = that key's value.
  int64_t ipus = 0;             //!< IPUs in all; 0 = [tune] ipus, else the config's
  int64_t global_batch = 0;     //!< samples per weight update; 0 = [tune] global_batch, else the input plan's
  double batch_tolerance = -1;  //!< relative distance a candidate's global batch may have from it; < 0 = [tune]'s
  double time_seconds = 0;      //!< budget ([tune] time: 60 s); the best plan found is returned when it runs out
  int64_t plans = 0;            //!< candidates planned at most; 0 = [tune] plans (0: only the time limits)
  int32_t top = 0;              //!< ranked plans returned ([tune] top: 5)
  //! Free the layout keys the config sets (stages, mapping, accumulation, micro-batch, schedule,
  //! recomputation, memory proportions, offloading, sharding, the model's stage sizes): the search
  //! then starts from the model, the IPU count and the global batch only. Or [tune] vary_layout.
  bool vary_layout = false;
  //! Keep the layout keys the config sets although [tune] vary_layout = true (`--keep-layout`).
  bool keep_layout = false;
  //! Spaces of at most this many candidates are planned in full; larger ones by coordinate search.
  int64_t exhaustive_limit = 256;
  std::function<void(const TuneProgress&)> progress;  //!< called between rounds, on the calling thread
  bool keep_candidates = false;                       //!< fill TuneResult::candidates (for tests: the space is small)
};

//! A candidate of the space as the search left it (TuneRequest::keep_candidates).
struct TunedCandidate {
  std::vector<std::string> sets;  //!< its overrides of the input config
  bool planned = false;
  bool fits = false;
  bool pruned = false;      //!< dropped unplanned: a candidate that needs no more memory did not fit
  int64_t peak_bytes = 0;   //!< when it fits
  int64_t bound_bytes = 0;  //!< its memory lower bound: the largest peak of the fitting candidates that need no more
};

//! One plan of the search.
struct TunedPlan {
  std::vector<std::string> changes;  //!< "key=value" over the input config, in key order
  std::string summary;               //!< "4 replicas x 4 IPUs, grouped, micro-batch 8 x 32, ..."
  double samples_per_second = 0;
  double bubble_fraction = 0;
  int64_t peak_bytes = 0;  //!< the largest peak over a replica's IPUs
  int64_t capacity = 0;    //!< bytes per IPU
  int32_t replicas = 1;
  int32_t ipus_per_replica = 1;
  int64_t micro_batch = 0;
  int64_t accumulation = 0;
  int64_t global_batch = 0;
  std::string schedule;
  bool pareto = false;  //!< on the front of throughput against memory headroom
  std::string toml;     //!< the whole config of this plan, commented (filled for the ranked plans)
};

struct TuneResult {
  bool input_fits = false;        //!< the input config plans and fits
  TunedPlan input;                //!< its figures when it does
  int64_t global_batch = 0;       //!< the global batch held
  //! When the global batch was taken from the input config on other IPUs than its own (--ipus
  //! without --global-batch): its own IPU count and the global batch it plans there; else 0.
  int64_t own_ipus = 0;
  int64_t own_global_batch = 0;
  std::vector<TunedPlan> ranked;  //!< the fastest first, at most TuneRequest::top
  std::vector<TunedPlan> pareto;  //!< throughput against headroom, fastest first
  // Each candidate of the space is counted once: planned (in `planned`, of which `failed` did not
  // place), pruned, or untried; space = planned - variants + pruned + untried.
  int64_t planned = 0;   //!< plans made, the per-stage memory variants included
  int64_t failed = 0;    //!< planned but not placeable (does not fit, or a rule refused it)
  int64_t pruned = 0;    //!< skipped unplanned: a candidate that needs no more memory did not fit
  int64_t untried = 0;   //!< neither planned nor pruned: the search (or its budget) did not reach them
  int64_t variants = 0;  //!< plans outside the space: per-stage memory proportions around the best
  int64_t space = 0;     //!< candidates in the whole space (those that hold the global batch)
  double seconds = 0;
  bool timed_out = false;
  bool plans_spent = false;  //!< the search stopped at its plan budget (TuneRequest::plans)
  bool exhaustive = false;  //!< every candidate of the space was planned
  double budget_seconds = 0;
  std::vector<TunedCandidate> candidates;  //!< when TuneRequest::keep_candidates
};

//! Searches the layouts of the model on the IPUs under the config's fixed keys. Throws
//! iputrain::Error (Usage or Config, located) when the request cannot be met: no layout divides the
//! global batch, or no candidate fits.
TuneResult tune(const TuneRequest& request);

}  // namespace iputrain
