// The [ipu] keys: every IPUConfig attribute, with the attribute's own path
// (../shared/reference/config_and_loops.md §1). Effects follow the catalogue's tags: CORE keys
// change how the virtual IPUs run, SIM keys feed the cost/memory model, HW keys need silicon.
#include "frontend/config/bind.hpp"

namespace iputrain::config {

std::vector<KeySpec> ipu_keys() {
  using detail::key;
  using enum KeyType;
  using enum Effect;
  const Range non_negative = Range::at_least(0);
  const Range bytes = Range::at_least(0);
  std::vector<KeySpec> out = {
      key(IPUTRAIN_KEY(ipu.auto_select_ipus), Int, 1, Runs,
          "Number of virtual IPUs to acquire as one device (replicas = this / IPUs per replica).",
          Range::at_least(1)),
      key(IPUTRAIN_KEY(ipu.select_ipus), IntList, ValueList{}, Runs,
          "Devices to acquire by id in the emulated 16-IPU gc-info listing (0-15 single IPUs, 16-23 "
          "pairs, 24-27 quads, 28-29 eights, 30 all); exclusive with `auto_select_ipus`.",
          Range::between(0, 30)),
      key(IPUTRAIN_KEY(ipu.allow_recompute), Bool, false, Runs,
          "Recompute forward activations during backpropagation instead of keeping them (dropout masks "
          "are regenerated from the seed, not kept)."),
      key(IPUTRAIN_KEY(ipu.selection_order), Enum, "auto", Models,
          "How shards map to physical IPUs of the modelled C2 topology.", {},
          {"auto", "zigzag", "snake", "hoof"}),
      key(IPUTRAIN_KEY(ipu.serialization_output_folder), String, "", Runs,
          "Directory where the compiled (planned) program is saved; \"\" = do not save."),
      key(IPUTRAIN_KEY(ipu.compilation_poplar_options), OptionMap, ValueTable{}, None,
          "Engine-level Poplar options, e.g. `{ \"debug.instrument\" = \"true\" }`."),
      key(IPUTRAIN_KEY(ipu.gcl_poplar_options), OptionMap, ValueTable{}, Models,
          "Options of the collectives library, applied to every collective."),

      key(IPUTRAIN_KEY(ipu.convolutions.poplar_options), OptionMap, ValueTable{}, Models,
          "PopLibs options for every convolution: availableMemoryProportion (default 0.6) caps its "
          "temporaries and partialsType (\"float\" or \"half\") sizes its partial sums in the memory model; "
          "other options are not read."),

      key(IPUTRAIN_KEY(ipu.device_connection.type), Enum, "always", Runs,
          "When to attach the IPUs; `pre_compile` never attaches and every run returns zeros.", {},
          {"always", "on_demand", "pre_compile", "never"}),
      key(IPUTRAIN_KEY(ipu.device_connection.version), Enum, "", Models,
          "Target IPU version when no device is attached; required for `pre_compile` and `never`.", {},
          {"", "ipu1", "ipu2"}),
      key(IPUTRAIN_KEY(ipu.device_connection.enable_remote_buffers), Bool, false, Models,
          "Declare that the unattached target supports remote buffers (ignored for `always`)."),

      key(IPUTRAIN_KEY(ipu.experimental.always_rearrange_copies_on_the_host), Bool, false, None,
          "Rearrange streamed data on the host instead of the device."),
      key(IPUTRAIN_KEY(ipu.experimental.enable_remote_buffer_embedding), Bool, false, Models,
          "Host embeddings use remote buffers instead of host callbacks."),
      key(IPUTRAIN_KEY(ipu.experimental.multi_replica_distribution.process_count), Int, 0, Runs,
          "Processes sharing one program; global replicas = local replicas x this; 0 = off.", non_negative),
      key(IPUTRAIN_KEY(ipu.experimental.multi_replica_distribution.process_index), Int, 0, Runs,
          "This process's index, less than `process_count`.", non_negative),

      key(IPUTRAIN_KEY(ipu.floating_point_behaviour.inv), Bool, false, Runs,
          "Stop at the first op that makes a NaN from operands without NaN (0/0, log(-1), inf - inf); "
          "the error names the op, its stage and micro-batch."),
      key(IPUTRAIN_KEY(ipu.floating_point_behaviour.div0), Bool, false, Runs,
          "Stop at the first op that makes an infinity from finite operands (x/0, log(0), rsqrt(0))."),
      key(IPUTRAIN_KEY(ipu.floating_point_behaviour.oflo), Bool, false, Runs,
          "Stop at the first op whose finite result overflows f32 (exp(100)); underflow is never trapped."),
      key(IPUTRAIN_KEY(ipu.floating_point_behaviour.esr), Bool, false, Runs,
          "Stochastic rounding of fp16 results, seeded by the run's seed."),
      key(IPUTRAIN_KEY(ipu.floating_point_behaviour.nanoo), Bool, false, Runs,
          "fp16 overflow gives NaN instead of saturating to the largest half."),
      key(IPUTRAIN_KEY(ipu.floating_point_behaviour.set_all), Bool, false, Runs,
          "Turn all five flags above on."),

      key(IPUTRAIN_KEY(ipu.io_tiles.num_io_tiles), Int, 0, Models,
          "Tiles per IPU reserved for I/O; compute tiles = tiles - this.", non_negative),
      key(IPUTRAIN_KEY(ipu.io_tiles.place_ops_on_io_tiles), Bool, false, Models,
          "Place the feeds' I/O ops on the I/O tiles (needs `num_io_tiles` > 0)."),
      key(IPUTRAIN_KEY(ipu.io_tiles.available_memory_proportion), Float, 0.9, Models,
          "Share of I/O-tile memory usable for data; the rest is assumed to hold code.",
          Range{0, true, 1, false}),

      key(IPUTRAIN_KEY(ipu.ipu_model.compile_ipu_code), Bool, true, Models,
          "Count the code size in reported memory."),
      key(IPUTRAIN_KEY(ipu.ipu_model.tiles_per_ipu), Int, 0, Models,
          "Tiles per virtual IPU, which sets `device.tiles_per_ipu` (capacity = tiles x "
          "`device.memory_per_tile`); 0 = the version's count. Both set must agree.",
          non_negative),
      key(IPUTRAIN_KEY(ipu.ipu_model.version), Enum, "ipu2", Models,
          "Simulated IPU version, the same choice as `device.version`: ipu1 (1216 tiles x 256 KiB, 1.6 GHz), "
          "ipu2 (1472 tiles x 624 KiB, 1.33 GHz) or bow (ipu2 at 1.85 GHz); both set must agree.",
          {}, DeviceSection::versions()),

      key(IPUTRAIN_KEY(ipu.matmuls.clear_pass_type), Bool, false, Models,
          "Do not tell the matmul library which pass (forward, gradient, weight update) it serves."),
      key(IPUTRAIN_KEY(ipu.matmuls.poplar_options), OptionMap, ValueTable{}, Models,
          "PopLibs options for every matmul: availableMemoryProportion (default 0.6) caps its temporaries "
          "and partialsType (\"float\" or \"half\") sizes its partial sums in the memory model; other "
          "options are not read."),

      key(IPUTRAIN_KEY(ipu.norms.use_stable_statistics), Bool, false, Runs,
          "Two-pass variance (subtract the mean first) in batch, group, layer and instance norms."),
      key(IPUTRAIN_KEY(ipu.norms.experimental.distributed_batch_norm_replica_group_size), Int, 1, Runs,
          "All-reduce training batch-norm statistics over groups of this many consecutive replicas.",
          Range::at_least(1)),

      key(IPUTRAIN_KEY(ipu.optimizations.prefetch_data_streams), Bool, true, Runs,
          "Prefetch infeed batches on a background thread while the device runs."),
      key(IPUTRAIN_KEY(ipu.optimizations.combine_embedding_lookups), Bool, false, Models,
          "Fuse embedding lookups on the same tensor."),
      key(IPUTRAIN_KEY(ipu.optimizations.combine_matmuls), Bool, false, Models,
          "Fuse matmuls that share weights or inputs."),
      key(IPUTRAIN_KEY(ipu.optimizations.enable_graph_outlining), Bool, true, Models,
          "Reuse code for identical ops (less code, more exchange)."),
      key(IPUTRAIN_KEY(ipu.optimizations.merge_infeed_io_copies), Bool, false, Models,
          "Merge host-to-device input copies into one."),
      key(IPUTRAIN_KEY(ipu.optimizations.maximum_cross_replica_sum_buffer_size), Int, 0, Runs,
          "Bytes of gradients gathered before one cross-replica sum is issued; 0 = one sum per tensor.",
          bytes),
      key(IPUTRAIN_KEY(ipu.optimizations.maximum_reduce_scatter_buffer_size), Int, 0, Models,
          "Bytes gathered before one reduce-scatter is issued.", bytes),
      key(IPUTRAIN_KEY(ipu.optimizations.maximum_inter_ipu_copies_buffer_size), Int, 0, Models,
          "Bytes gathered before one inter-IPU (stage to stage) copy is issued.", bytes),
      key(IPUTRAIN_KEY(ipu.optimizations.maximum_send_recv_cluster_size), Int, 0, Models,
          "Bytes gathered before one host send/receive is issued.", bytes),
      key(IPUTRAIN_KEY(ipu.optimizations.minimum_remote_tensor_size), Int, 128, Models,
          "Smallest tensor, in bytes, that may live in remote (streaming) memory.", bytes),
      key(IPUTRAIN_KEY(ipu.optimizations.merge_remote_buffers), Enum, "if_beneficial", Models,
          "Merge compatible remote buffers.", {}, {"no_merging", "merge", "if_beneficial"}),
      key(IPUTRAIN_KEY(ipu.optimizations.enable_gather_simplifier), Bool, true, Models,
          "More aggressive embedding-lookup optimisation."),
      key(IPUTRAIN_KEY(ipu.optimizations.triangular_solve_expander_block_size), Int, 0, Models,
          "Block size of triangular solves; 0 = the implementation's default.", non_negative),
      key(IPUTRAIN_KEY(ipu.optimizations.cholesky_block_size), Int, 0, Models,
          "Block size of Cholesky factorisations; 0 = the implementation's default.", non_negative),
      key(IPUTRAIN_KEY(ipu.optimizations.enable_fast_math), Bool, false, Runs,
          "Allow reordered reductions and other non-IEEE transformations."),

      key(IPUTRAIN_KEY(ipu.pooling.poplar_options), OptionMap, ValueTable{}, None,
          "PopLibs options for every pooling op, e.g. `{ poolUseIntrospectiveMapping = \"false\" }`."),

      key(IPUTRAIN_KEY(ipu.scheduling.algorithm), Enum, "choose_best", Models,
          "Scheduling algorithm; `choose_best` keeps the lowest predicted peak liveness.", {},
          {"choose_best", "clustering", "post_order", "look_ahead", "shortest_path"}),
      key(IPUTRAIN_KEY(ipu.scheduling.maximum_scheduler_lookahead_depth), Int, 5, Models,
          "How far `look_ahead` looks ahead.", Range::at_least(1)),
      key(IPUTRAIN_KEY(ipu.scheduling.maximum_scheduler_search_space_size), Int, 64, Models,
          "Cap on `look_ahead`'s search space.", Range::at_least(1)),
  };
  out[0].conflicts = {"ipu.select_ipus"};
  out[1].conflicts = {"ipu.auto_select_ipus"};
  out[1].unique = true;
  return out;
}

}  // namespace iputrain::config
