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
          Range::between(1, 1024))
          .as_layout(),
      key(IPUTRAIN_KEY(ipu.select_ipus), IntList, ValueList{}, Runs,
          "Devices to acquire by id in the emulated 16-IPU gc-info listing (0-15 single IPUs, 16-23 "
          "pairs, 24-27 quads, 28-29 eights, 30 all); exclusive with `auto_select_ipus`.",
          Range::between(0, 30))
          .as_layout(),
      key(IPUTRAIN_KEY(ipu.allow_recompute), Bool, false, Runs,
          "Recompute forward activations during backpropagation instead of keeping them (dropout masks "
          "are regenerated from the seed, not kept).")
          .as_tunable()
          .as_layout(),
      key(IPUTRAIN_KEY(ipu.serialization_output_folder), String, "", Runs,
          "Directory where a session saves what it will run, as the seed saves its executables: "
          "<model>.plan.json and <model>.programs.txt (each IPU's instructions); \"\" = do not save.")
          .as_path(),

      key(IPUTRAIN_KEY(ipu.convolutions.poplar_options), OptionMap, ValueTable{}, Models,
          "PopLibs options for every convolution: availableMemoryProportion (default 0.6) caps its "
          "temporaries and partialsType (\"float\" or \"half\") sizes its partial sums in the memory model; "
          "other options are not read.")
          .as_tunable(),

      key(IPUTRAIN_KEY(ipu.device_connection.type), Enum, "always", Refused,
          "When to attach the IPUs; `pre_compile` never attaches and every run returns zeros.", {},
          {"always", "on_demand", "pre_compile", "never"})
          .refused(
              "every virtual IPU is attached when the run starts; deferred or no attachment is not implemented yet",
              "remove it; `iputrain plan` and `iputrain check` work without running"),
      key(IPUTRAIN_KEY(ipu.device_connection.version), Enum, "", None,
          "Target IPU version when no device is attached; required for `pre_compile` and `never`.", {},
          {"", "ipu1", "ipu2"})
          .no_effect("the virtual IPUs are attached when a run starts, so there is no unattached target; the simulated "
                     "IPU is `ipu.ipu_model.version` (or `device.version`)"),
      key(IPUTRAIN_KEY(ipu.device_connection.enable_remote_buffers), Bool, false, None,
          "Declare that the unattached target supports remote buffers (ignored for `always`).")
          .no_effect("the virtual IPUs are attached when a run starts; remote memory is modelled by the "
                     "`pipeline.offload_*` keys"),

      key(IPUTRAIN_KEY(ipu.experimental.multi_replica_distribution.process_count), Int, 0, Runs,
          "Instances (processes started by `mpirun -n`) sharing the replicas, each holding replicas / this; "
          "0 = as launched. Set, it must equal mpirun's count.",
          Range::between(0, std::numeric_limits<int32_t>::max()))
          .as_layout(),
      key(IPUTRAIN_KEY(ipu.experimental.multi_replica_distribution.process_index), Int, 0, Runs,
          "This instance's index, less than `process_count`; taken from mpirun's rank (set, it must equal it).",
          Range::between(0, std::numeric_limits<int32_t>::max()))
          .as_layout(),

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
      key(IPUTRAIN_KEY(ipu.floating_point_behaviour.set_all), Bool, false, Runs, "Turn all five flags above on."),

      key(IPUTRAIN_KEY(ipu.io_tiles.num_io_tiles), Int, 0, Models,
          "Tiles per IPU reserved for I/O: they take no compute and no model data, so the compute "
          "rate and the capacity shrink to the remaining tiles.",
          non_negative),
      key(IPUTRAIN_KEY(ipu.io_tiles.place_ops_on_io_tiles), Bool, false, Models,
          "Stage the infeed and outfeed on the I/O tiles (needs `num_io_tiles` > 0): the staging leaves "
          "the compute tiles and host transfers overlap compute in the cycle model."),
      key(IPUTRAIN_KEY(ipu.io_tiles.available_memory_proportion), Float, 0.9, Models,
          "Share of I/O-tile memory that holds the feeds' staging (the rest is code); staging that "
          "does not fit is an error.",
          Range{0, true, 1, false}),

      key(IPUTRAIN_KEY(ipu.ipu_model.tiles_per_ipu), Int, 0, Models,
          "Tiles per virtual IPU, which sets `device.tiles_per_ipu` (capacity = tiles x "
          "`device.memory_per_tile`); 0 = the version's count. Both set must agree.",
          Range::between(0, 1 << 20)),
      key(IPUTRAIN_KEY(ipu.ipu_model.version), Enum, "ipu2", Models,
          "Simulated IPU version, the same choice as `device.version`: ipu1 (1216 tiles x 256 KiB, 1.6 GHz), "
          "ipu2 (1472 tiles x 624 KiB, 1.33 GHz) or bow (ipu2 at 1.85 GHz); both set must agree.",
          {}, DeviceSection::versions()),

      key(IPUTRAIN_KEY(ipu.matmuls.poplar_options), OptionMap, ValueTable{}, Models,
          "PopLibs options for every matmul: availableMemoryProportion (default 0.6) caps its temporaries "
          "and partialsType (\"float\" or \"half\") sizes its partial sums in the memory model; other "
          "options are not read.")
          .as_tunable(),

      key(IPUTRAIN_KEY(ipu.norms.experimental.distributed_batch_norm_replica_group_size), Int, 1, Runs,
          "Training batch-norm statistics shared by groups of this many consecutive replicas: nn.batch_norm "
          "averages its batch mean and variance over the group's micro-batches with cross_replica_mean (the "
          "model's compile-time int `batch_norm_replica_group`; a layer's `replica_group` overrides it).",
          Range::at_least(1)),

      key(IPUTRAIN_KEY(ipu.optimizations.prefetch_data_streams), Bool, true, Runs,
          "Prefetch infeed batches on a background thread while the device runs."),
      key(IPUTRAIN_KEY(ipu.optimizations.maximum_cross_replica_sum_buffer_size), Int, 0, Runs,
          "Bytes of gradients gathered before one cross-replica sum is issued; 0 = one sum per tensor.", bytes),
  };
  out[0].conflicts = {"ipu.select_ipus"};
  out[1].conflicts = {"ipu.auto_select_ipus"};
  out[1].unique = true;
  return out;
}

}  // namespace iputrain::config
