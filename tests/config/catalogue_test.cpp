// Every option of the catalogues has a schema key. The lists are copied by hand from
// ../shared/reference/config_and_loops.md §1.1-1.12 and §1.14 and ops_and_optimizers.md §1.1, so a
// key removed from the schema (or an option forgotten) fails here.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/optim_table.hpp"
#include "frontend/config/schema.hpp"

using iputrain::config::find_key;

namespace {

// IPUConfig attribute paths (config_and_loops.md §1.1-1.12): each is `ipu.<path>`.
const std::vector<std::string> kIpuConfig = {
    "auto_select_ipus",
    "select_ipus",
    "allow_recompute",
    "selection_order",
    "serialization_output_folder",
    "compilation_poplar_options",
    "gcl_poplar_options",
    "convolutions.poplar_options",
    "device_connection.type",
    "device_connection.version",
    "device_connection.enable_remote_buffers",
    "experimental.always_rearrange_copies_on_the_host",
    "experimental.enable_remote_buffer_embedding",
    "experimental.multi_replica_distribution.process_count",
    "experimental.multi_replica_distribution.process_index",
    "floating_point_behaviour.inv",
    "floating_point_behaviour.div0",
    "floating_point_behaviour.oflo",
    "floating_point_behaviour.esr",
    "floating_point_behaviour.nanoo",
    "floating_point_behaviour.set_all",
    "io_tiles.num_io_tiles",
    "io_tiles.place_ops_on_io_tiles",
    "io_tiles.available_memory_proportion",
    "ipu_model.compile_ipu_code",
    "ipu_model.tiles_per_ipu",
    "ipu_model.version",
    "matmuls.clear_pass_type",
    "matmuls.poplar_options",
    "norms.use_stable_statistics",
    "norms.experimental.distributed_batch_norm_replica_group_size",
    "optimizations.prefetch_data_streams",
    "optimizations.combine_embedding_lookups",
    "optimizations.combine_matmuls",
    "optimizations.enable_graph_outlining",
    "optimizations.merge_infeed_io_copies",
    "optimizations.maximum_cross_replica_sum_buffer_size",
    "optimizations.maximum_reduce_scatter_buffer_size",
    "optimizations.maximum_inter_ipu_copies_buffer_size",
    "optimizations.maximum_send_recv_cluster_size",
    "optimizations.minimum_remote_tensor_size",
    "optimizations.merge_remote_buffers",
    "optimizations.enable_gather_simplifier",
    "optimizations.triangular_solve_expander_block_size",
    "optimizations.cholesky_block_size",
    "optimizations.enable_fast_math",
    "pooling.poplar_options",
    "scheduling.algorithm",
    "scheduling.maximum_scheduler_lookahead_depth",
    "scheduling.maximum_scheduler_search_space_size",
};

// pipeline() arguments (ops_and_optimizers.md §1.1, including the later-SDK ones) -> their key.
const std::vector<std::pair<std::string, std::string>> kPipelineArgs = {
    {"computational_stages", "pipeline.stages"},
    {"gradient_accumulation_count", "pipeline.gradient_accumulation_count"},
    {"gradient_accumulation_dtype", "pipeline.gradient_accumulation_dtype"},
    {"repeat_count", "pipeline.repeat_count"},
    {"batch_serialization_iterations", "pipeline.batch_serialization_iterations"},
    {"inputs", "model"},             // constant inputs of stage 0 are the model's parameters
    {"infeed_queue", "data.train"},  // the infeed is built from the data source
    {"outfeed_queue", "training.outfeed_mode"},
    {"optimizer_function", "optimizer.type"},
    {"device_mapping", "pipeline.device_mapping"},
    {"pipeline_schedule", "pipeline.schedule"},
    {"recomputation_mode", "pipeline.recomputation_mode"},
    {"forward_propagation_stages_poplar_options", "pipeline.forward_propagation_stages_poplar_options"},
    {"backward_propagation_stages_poplar_options", "pipeline.backward_propagation_stages_poplar_options"},
    {"weight_update_poplar_options", "pipeline.weight_update_poplar_options"},
    {"offload_weight_update_variables", "pipeline.offload_weight_update_variables"},
    {"replicated_optimizer_state_sharding", "pipeline.replicated_optimizer_state_sharding"},
    {"offload_activations", "pipeline.offload_activations"},
    {"offload_gradient_accumulation_buffers", "pipeline.offload_gradient_accumulation_buffers"},
    {"replicated_weight_sharding", "pipeline.replicated_weight_sharding"},
    {"offload_weights", "pipeline.offload_weights"},
    {"continuous_weight_updates", "pipeline.continuous_weight_updates"},
    {"outfeed_loss", "pipeline.outfeed_loss"},
    {"accumulate_outfeed", "pipeline.accumulate_outfeed"},
    {"accumulate_outfeed_dtype", "pipeline.accumulate_outfeed_dtype"},
    {"outfeed_mask", "pipeline.outfeed_mask"},
    {"name", "pipeline.name"},
    {"reduction_method", "pipeline.reduction_method"},
    {"gradient_accumulation_for_captured_grads", "pipeline.gradient_accumulation_for_captured_grads"},
};

// Legacy options with no IPUConfig path (config_and_loops.md §1.14) -> their key.
const std::vector<std::pair<std::string, std::string>> kLegacy = {
    {"profiling", "profiling.enabled"},
    {"enable_ipu_events", "profiling.enable_ipu_events"},
    {"use_poplar_text_report", "profiling.use_poplar_text_report"},
    {"use_poplar_cbor_report", "profiling.use_poplar_cbor_report"},
    {"profile_execution", "profiling.profile_execution"},
    {"enable_poplar_serialized_graph", "profiling.enable_poplar_serialized_graph"},
    {"report_every_nth_execution", "profiling.report_every_nth_execution"},
    {"max_report_size", "profiling.max_report_size"},
    {"report_directory", "profiling.report_directory"},
    {"retain_control_dependencies", "profiling.retain_control_dependencies"},
    {"set_report_options.graph_options", "profiling.graph_options"},
    {"set_report_options.execution_options", "profiling.execution_options"},
    {"set_transfer_options.use_verified_transfers", "transfers.use_verified_transfers"},
};

// The brief's sections and the design example's keys.
const std::vector<std::string> kRun = {
    "extends",
    "optimizer.type",
    "optimizer.learning_rate",
    "optimizer.momentum",
    "data.train",
    "data.test",
    "data.batch_size",
    "data.shuffle",
    "data.prefetch_depth",
    "training.steps",
    "training.steps_per_execution",
    "training.seed",
    "training.outfeed_mode",
    "checkpoint.dir",
    "checkpoint.every",
    "checkpoint.keep",
    "device.tiles_per_ipu",
    "device.memory_per_tile",
    "device.clock_hz",
    "device.flops_per_tile_per_cycle",
    "device.ipu_link_bandwidth",
    "device.host_bandwidth",
};

}  // namespace

TEST_CASE("every IPUConfig attribute has a key under [ipu] with the same path") {
  CHECK(kIpuConfig.size() == 50);
  for (const auto& attr : kIpuConfig) {
    INFO(attr);
    CHECK(find_key("ipu." + attr) != nullptr);
  }
}

TEST_CASE("every pipeline() argument has a key") {
  CHECK(kPipelineArgs.size() == 29);
  for (const auto& [arg, key] : kPipelineArgs) {
    INFO(arg << " -> " << key);
    CHECK(find_key(key) != nullptr);
  }
}

TEST_CASE("every legacy profiling and transfer option has a key") {
  for (const auto& [opt, key] : kLegacy) {
    INFO(opt << " -> " << key);
    CHECK(find_key(key) != nullptr);
  }
}

TEST_CASE("the run sections have their keys") {
  for (const auto& key : kRun) {
    INFO(key);
    CHECK(find_key(key) != nullptr);
  }
  const auto* type = find_key("optimizer.type");
  REQUIRE(type != nullptr);
  for (const auto* def : iputrain::optimizer_table()) {
    CHECK(std::find(type->allowed.begin(), type->allowed.end(), def->name) != type->allowed.end());
  }
  CHECK(type->allowed.size() == iputrain::optimizer_table().size());
}
