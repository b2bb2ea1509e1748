// The iputrain commands. Each is a thin client of the public API (include/iputrain/).
#pragma once

#include <string>
#include <vector>

#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

struct CommonArgs {
  std::string model;
  std::string config;
  std::vector<std::string> sets;  //!< --set key=value
};

struct TrainArgs : CommonArgs {
  std::string init_from;
  std::string save;
  bool quiet = false;
  bool no_eval = false;  //!< skip the evaluation on data.test after training
  std::string trace;  //!< Chrome trace JSON of the run ("" = none)
  std::string outfeed;  //!< what the outfeed held, per step: FILE.csv or FILE.npy ("" = none)
  std::string resume;  //!< checkpoint directory or file to continue from ("" = a new run)
  bool no_checkpoint = false;       //!< write no checkpoint, whatever checkpoint.* says
  bool overwrite = false;           //!< a new run may clear a checkpoint directory another run used
  bool verbose = false;             //!< the run report's every bubble figure
  std::string log_format = "text";  //!< text | json (one JSON object per line)
};

struct EvalArgs : CommonArgs {
  std::string weights;
  std::string split = "test";
};

struct PlanArgs : CommonArgs {
  std::string format = "text";          //!< text | json | dot
  std::vector<std::string> dump_after;  //!< planner pass names
  std::string output;                   //!< "" = standard output
  std::string gantt;                    //!< write the schedule as SVG here ("" = no)
  std::string memory_svg;               //!< write memory per IPU over time as SVG here ("" = no)
  std::string html;                     //!< write the plan as one HTML page here ("" = no)
  bool inference = false;               //!< the plan eval and predict run (forward only)
  bool explain_passes = false;          //!< print the planner's pass table instead of a plan
};

//! The config (with --set overrides) and the model it parameterises; prints model warnings to stderr.
struct Loaded {
  Config config;
  Model model;
};
Loaded load(const CommonArgs& args);

//! Loads `weights` into the session (warnings to stderr); with none given, a model that has
//! parameters is refused (Error(Usage)): only a parameter-free model runs without weights.
void load_weights_for(Session& session, const Model& model, const std::string& weights, const char* command);

struct PredictArgs : CommonArgs {
  std::string weights;
  std::string split = "test";
  std::vector<std::string> outputs;  //!< --output NAME (repeatable); empty: every per-sample output
  std::string out;                   //!< -o: FILE.npy, FILE.csv or a directory (one NAME.npy each)
  std::string format;                //!< npy | csv; "" = from the -o path
};

int run_train(const TrainArgs& args);

struct ExportArgs : CommonArgs {
  std::string from;  //!< checkpoint directory (its newest) or file, or a weight file
  std::string out;   //!< weight file to write
};
//! `iputrain export MODEL CONFIG --from CKPT|W -o W`: a checkpoint's weights, or a weight file's read
//! as --init-from reads it, as a plain weight file.
int run_export(const ExportArgs& args);
//! `iputrain predict MODEL CONFIG --weights W -o OUT`: per-sample outputs as .npy or CSV.
int run_predict(const PredictArgs& args);
int run_eval(const EvalArgs& args);

struct BenchDataArgs : CommonArgs {
  int64_t epochs = 1;
  int64_t elements = 0;  //!< per epoch; 0 = the split's whole batches
  std::string split = "train";
  std::string format = "table";  //!< table | json
  bool no_memcpy = false;
};
//! `iputrain bench-data MODEL CONFIG`: the host feed alone, per epoch, against the plan's rate.
int run_bench_data(const BenchDataArgs& args);
int run_check(const CommonArgs& args);
//! `iputrain plan MODEL CONFIG`: placement, memory, schedule and predicted throughput.
int run_plan(const PlanArgs& args);
struct ReplArgs : CommonArgs {
  bool echo = false;  //!< scripted mode: print each command as "> COMMAND" before its output
};

//! `iputrain repl MODEL CONFIG`: inspect and re-plan interactively, or run a command script from stdin.
int run_repl(const ReplArgs& args);

struct ConfigShowArgs {
  std::string config;
  std::vector<std::string> sets;  //!< --set key=value
};

//! `iputrain config show CONFIG`: the effective config, defaults filled in (loads back the same).
int run_config_show(const ConfigShowArgs& args);
//! `iputrain config explain KEY`: type, default, allowed values, meaning and effect of a key.
int run_config_explain(const std::string& key);
//! `iputrain config keys`: every key path.
int run_config_keys();
//! `iputrain config docs`: the Markdown key reference (docs/config.md).
int run_config_docs();

}  // namespace iputrain::cli
