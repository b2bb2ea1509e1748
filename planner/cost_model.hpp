// What a plan costs on IPU hardware: cycles per op and per pipeline task, and bytes per IPU.
// The constants come from a device preset (ipu1/ipu2/bow); the model is deliberately simple and
// documented so its figures can be checked by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "iputrain/hardware.hpp"
#include "iputrain/plain_keys.hpp"
#include "planner/timeline.hpp"

namespace iputrain::planner {

//! The hardware constants of one IPU.
struct DeviceModel {
  std::string name = "ipu2";
  int64_t tiles = 1472;                      //!< GC200
  int64_t bytes_per_tile = 624 * 1024;       //!< In-Processor Memory per tile
  double clock_hz = 1.33e9;
  double f32_flops_per_tile_cycle = 32;      //!< 62.5 TFLOPS f32 peak / (1472 tiles x 1.33 GHz)
  double f16_flops_per_tile_cycle = 128;     //!< 250 TFLOPS f16 peak (ops whose result is f16/bf16)
  //! Tile-local memory: a tile loads 128 bits per cycle (Jia et al. 2019, "Dissecting the Graphcore
  //! IPU architecture via microbenchmarking": 31.1 TB/s read ceiling = 1216 tiles x 1.6 GHz x 16 B).
  double bytes_per_tile_cycle = 16;
  //! In-IPU exchange: each tile sends and receives 4 bytes per cycle (GC200: 8 TB/s on-chip
  //! exchange, Graphcore's product figure, = 1472 tiles x 1.33 GHz x 4.1 B).
  double exchange_bytes_per_tile_cycle = 4;
  //! Fixed cost of one compute set: the supervisors start the vertices on every tile's workers.
  //! Not published: assumed (half of the earlier 200 cycles per step), not fitted.
  double compute_set_cycles = 100;
  //! One IPU-wide synchronisation (the barrier of a BSP superstep, before its exchange). Not
  //! published: assumed (the other half of the earlier 200 cycles per step), not fitted.
  double sync_cycles = 100;
  //! The one calibrated scale on top of PopLibs' vertex estimates (device.compute_efficiency): an
  //! op's kernels take the estimate divided by it.
  double compute_efficiency = 0.606;
  //! PopLibs' partialsType of matmuls and convolutions (ipu.matmuls / ipu.convolutions
  //! poplar_options): f16 partial sums double the f16 AMP rate.
  bool half_partials_matmul = false;
  bool half_partials_convolution = false;
  double link_bytes_per_second = 320e9;      //!< IPU-Link bandwidth of one IPU
  double host_bytes_per_second = 32e9;       //!< host link (PCIe) for infeed and outfeed
  //! Host round trip of one engine call (launch, sync, result fetch), shared by the weight updates
  //! the call runs: an assumed ~15 us at 1.33 GHz, not a measured figure.
  double host_call_cycles = 20000;
  //! The type float results are computed in (training.precision): f16 and bf16 run at the f16 rate.
  DType compute = DType::F32;

  //! Tiles reserved for I/O (ipu.io_tiles.num_io_tiles): they compute nothing and hold no model
  //! data; with `feeds_on_io_tiles` they stage the infeed and outfeed and stream them while the
  //! compute tiles work.
  int64_t io_tiles = 0;
  double io_data_proportion = 0.9;  //!< share of an I/O tile's memory for data (the rest is code)
  bool feeds_on_io_tiles = false;

  int64_t compute_tiles() const { return tiles - io_tiles; }
  //! Memory of the compute tiles: what weights, state, buffers and activations share.
  int64_t memory_bytes() const { return compute_tiles() * bytes_per_tile; }
  //! Data memory of the I/O tiles, where the feeds' staging lives when they are used.
  int64_t io_memory_bytes() const {
    return feeds_on_io_tiles ? static_cast<int64_t>(io_data_proportion * static_cast<double>(io_tiles * bytes_per_tile)) : 0;
  }
  //! The presets of DeviceSection::preset() (core/hardware_presets.cpp, the one table of
  //! figures); the constants it does not carry keep the defaults above.
  static DeviceModel preset(const std::string& version);
  static DeviceModel ipu1() { return preset("ipu1"); }
  static DeviceModel ipu2() { return preset("ipu2"); }
  static DeviceModel bow() { return preset("bow"); }
  //! The figures of `section` (a preset, or the settled `device.*` lines); constants the section
  //! does not carry keep their defaults.
  static DeviceModel from_config(const DeviceSection& section);
  //! The `device.*` lines of a resolved run (settled: the version's preset with the keys written).
  static DeviceModel from_keys(const PlainKeys& plain);
};

//! Cycles of one op instance by what they are spent on. Each op runs as BSP supersteps (sync,
//! exchange, compute set): its kernels are compute-bound or memory-bound, whichever is slower
//! (ops with an f16/bf16 result, and every float op when the compute type is half, run at the f16
//! FLOP rate); its operands move between tiles at the exchange bandwidth (op_exchange_bytes); each
//! superstep pays one synchronisation and one compute set's fixed cost.
struct OpCost {
  double compute = 0;   //!< kernels on the tiles
  double exchange = 0;  //!< operands moved between the IPU's tiles
  double sync = 0;      //!< fixed costs: synchronisations and compute-set launches
  double total() const { return compute + exchange + sync; }
};

//! The cost of node `id`; leaves and reshapes cost nothing.
OpCost op_cost(const ir::Graph& g, ir::ValueId id, const DeviceModel& d);

//! op_cost(..).total().
double op_cycles(const ir::Graph& g, ir::ValueId id, const DeviceModel& d);

//! Elements a contraction C[m, n] = A[m, k] B[k, n] (sizes `a`, `b`, `c` in elements) moves between
//! `tiles` tiles when they split it m' x n' x k' ways (m' n' k' = tiles): each block of A is read
//! by n' tiles, each of B by m' tiles, each partial sum of C is reduced over k' tiles, so
//! a n' + b m' + c k' elements move. The split that minimises it, each factor at least 1:
//! 3 (a b c tiles)^(1/3) when none is clamped. With one tile or less, every operand moves once.
double contraction_exchange_elements(double a, double b, double c, double tiles);

//! Bytes op `id` moves between the tiles of its IPU: contractions (matmul, convolutions) by
//! contraction_exchange_elements over their groups (the batch of a batched matmul, a convolution's
//! groups: each group on its share of the tiles, no group reads another's operands); ops that
//! rearrange data (transpose, gather, slice, concat, scatter, sort) their result; elementwise ops
//! and reductions run where their operands are and move nothing but their partial sums.
double op_exchange_bytes(const ir::Graph& g, ir::ValueId id, const DeviceModel& d);

//! Cycles of the nodes of `stage` in `phase` within `program` (one micro-batch).
double stage_cycles(const ir::Graph& g, const std::vector<ir::ValueId>& program, int32_t stage, ir::Phase phase,
                    const DeviceModel& d);

//! Bytes that cross from one pipeline position to the next per micro-batch (forward activations
//! and, in training, the matching gradients coming back).
int64_t boundary_bytes(const ir::Graph& g, const Pipeline& p, int32_t position, const std::vector<ir::ValueId>& program);

}  // namespace iputrain::planner
