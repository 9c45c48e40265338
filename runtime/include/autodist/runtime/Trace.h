//===- Trace.h - Chrome/Perfetto trace of the training loop -----*- C++ -*-===//
//
// With `--trace=FILE.json` every rank records complete ("X") events of the
// Chrome trace event format and writes them at the end of training to
// FILE with `.rank<R>` before the extension (trace.rank0.json, ...):
//   train_step  each step (args: step, loss),
//   compute     compiled code between runtime calls inside a step,
//   sgemm       each BLAS call (args: m, n, k),
//   allreduce   each collective (args: bytes), including the time spent
//               waiting for the slowest rank,
//   <node>      each compiled loop nest, named after the ONNX nodes it
//               computes ("grad <node>" in the backward pass), category
//               "op", inside the compute events.
// Timestamps are microseconds since a point all ranks pass together (a
// collective), so the files of one machine line up when loaded together.
// On a device that runs the step asynchronously (the cuda target) these are
// the host's times of issuing the work; the device's own times come from
// its DeviceClock (CUDA events) as a second thread, "gpu" (tid 1): the
// same op and call events measured on the device, placed from the step's
// start, and a `gpu_step` event from the step's first to its last work.
// Off (the default), each hook costs one branch.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_RUNTIME_TRACE_H
#define AUTODIST_RUNTIME_TRACE_H

#include <cstdint>
#include <string>
#include <vector>

namespace autodist::rt::trace {

/// A device's timeline: marks on its work queue (CUDA events on the compute
/// stream), resolved once the step's work is done.
class DeviceClock {
public:
  virtual ~DeviceClock() = default;
  /// Marks the point the device's queue has reached; returns its index in
  /// this step (0 for the step's first mark).
  virtual int mark() = 0;
  /// Waits for the step's last mark; the milliseconds from mark 0 to each
  /// mark, in order. Forgets them: the next mark() is 0 again.
  virtual std::vector<double> resolve() = 0;
};

/// Times the device's work with `clock` too (null: the host's times only).
/// Installed by the device, before start().
void setDeviceClock(DeviceClock *clock);

/// Whether events are being recorded.
bool enabled();

/// Starts recording for `rank` into `path` (with the rank inserted; see
/// the file comment); the time origin is now. A non-empty `label` (e.g. the
/// rank's CPU pinning) becomes the process's label in the trace metadata.
void start(const std::string &path, int rank, const std::string &label = "");

/// The file rank `rank` writes for `--trace=path`.
std::string rankPath(const std::string &path, int rank);

/// Microseconds since the origin.
double now();

/// Brackets a train step: `beginStep` opens it; `endStep` closes it, with
/// the compiled code since the last runtime call as a compute event.
void beginStep();
void endStep(int64_t step, double loss);

/// Bracket a call of a compiled loop nest; `id` indexes the names the
/// compiler emits (`autodist_trace_op_names`, docs/abi.md).
void beginOp(int32_t id);
void endOp();

/// Records a runtime call that ran from `begin` until now (`now()` values),
/// preceded by the compiled code since the previous call. `args` is a JSON
/// object body, e.g. `"bytes": 64`.
void call(const char *name, const char *category, double begin,
          const std::string &args, int deviceBegin = -1);
/// A device mark for the start of a runtime call (call()'s `deviceBegin`),
/// or -1 without a device clock or when tracing is off.
int deviceMark();

/// Writes the recorded events; throws Error if the file cannot be written.
void finish();

} // namespace autodist::rt::trace

#endif // AUTODIST_RUNTIME_TRACE_H
