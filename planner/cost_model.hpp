// What a plan costs on IPU hardware: cycles per op and per pipeline task, and bytes per IPU.
// The constants come from a device preset (ipu1/ipu2/bow); the model is deliberately simple and
// documented so its figures can be checked by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "iputrain/config.hpp"
#include "planner/schedule.hpp"

namespace iputrain::planner {

//! The hardware constants of one IPU.
struct DeviceModel {
  std::string name = "ipu2";
  int64_t tiles = 1472;                      //!< GC200
  int64_t bytes_per_tile = 624 * 1024;       //!< In-Processor Memory per tile
  double clock_hz = 1.33e9;
  double f32_flops_per_tile_cycle = 32;      //!< 62.5 TFLOPS f32 peak / (1472 tiles x 1.33 GHz)
  double f16_flops_per_tile_cycle = 128;     //!< 250 TFLOPS f16 peak (ops whose result is f16/bf16)
  double bytes_per_tile_cycle = 16;          //!< tile-local memory bandwidth
  double op_overhead_cycles = 200;           //!< sync + exchange set-up per compute step
  //! Share of the peak FLOP rate compute-bound ops reach (device.compute_efficiency, calibrated).
  double compute_efficiency = 0.39;
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
  //! The presets of DeviceSection::preset() (frontend/config/devices.cpp, the one table of
  //! figures); the constants it does not carry keep the defaults above.
  static DeviceModel preset(const std::string& version);
  static DeviceModel ipu1() { return preset("ipu1"); }
  static DeviceModel ipu2() { return preset("ipu2"); }
  static DeviceModel bow() { return preset("bow"); }
  //! The `[device]` section of a resolved config (the version's preset with the keys set
  //! explicitly, see DeviceSection); constants the section does not carry keep their defaults.
  static DeviceModel from_config(const DeviceSection& section);
};

//! Cycles one op instance takes: compute-bound or memory-bound, whichever is slower, plus the
//! fixed overhead of a compute step. Ops with an f16/bf16 result, and every float op when the
//! compute type is half, run at the f16 FLOP rate.
//! Leaves and reshapes cost nothing.
double op_cycles(const ir::Graph& g, ir::ValueId id, const DeviceModel& d);

//! Cycles of the nodes of `stage` in `phase` within `program` (one micro-batch).
double stage_cycles(const ir::Graph& g, const std::vector<ir::ValueId>& program, int32_t stage, ir::Phase phase,
                    const DeviceModel& d);

//! Bytes that cross from one pipeline position to the next per micro-batch (forward activations
//! and, in training, the matching gradients coming back).
int64_t boundary_bytes(const ir::Graph& g, const Pipeline& p, int32_t position, const std::vector<ir::ValueId>& program);

}  // namespace iputrain::planner
