//===- Options.h - The trainer's command line -------------------*- C++ -*-===//

#ifndef AUTODIST_RUNTIME_OPTIONS_H
#define AUTODIST_RUNTIME_OPTIONS_H

#include "autodist/runtime/Affinity.h"
#include "autodist/runtime/NonFinite.h"

#include <cstdint>
#include <optional>
#include <string>

namespace autodist::rt {

struct Options {
  std::string data;      // --data: training .npz (needed when steps > 0)
  int64_t steps = -1;    // --steps (required, except for inference)
  int64_t batchSize = 0; // --batch-size, per rank (required, except for
                         // inference, where 0 means one call)
  std::optional<double> lr;
  std::optional<uint64_t> seed; // --seed: dropout's generator
  std::string log, save, eval, predict;
  std::string trace;           // --trace: Chrome trace, one file per rank
  std::string checkpoint;      // --checkpoint: directory, empty = none
  int64_t checkpointEvery = 0; // --checkpoint-every; 0 = at the end only
  bool resume = false;         // --resume: continue from --checkpoint
  bool overwrite = false;      // --overwrite: replace its checkpoint
  bool help = false;
  // --external-data: where the model's ONNX external data files are
  // (default: the directory recorded at compile time).
  std::string externalData;
  // --inputs/--outputs: inference only (both or neither).
  std::string inputs, outputs;
  // --pin: the CPU affinity of the rank's threads (Affinity.h); pinGiven
  // when the flag was on the command line (the choice is then printed).
  PinMode pin = PinMode::Auto;
  bool pinGiven = false;
  // --on-nonfinite: what a step with a NaN/inf loss or update does.
  NonFinitePolicy onNonFinite = NonFinitePolicy::Stop;
  // --comm-timeout: seconds a collective may take before the job is
  // aborted (0: no limit).
  double commTimeout = 600;

  /// Whether this run is `--inputs=IN.npz --outputs=OUT.npz` inference.
  bool inferenceOnly() const { return !inputs.empty(); }
};

/// Parses `--flag=value` / `--flag value` arguments; throws Error with
/// ExitUsage on unknown flags, malformed values and missing required flags.
/// With --help the other flags are not checked. With --inputs/--outputs,
/// --steps and --batch-size are optional and training flags are errors.
Options parseOptions(int argc, char **argv);

/// The --help text.
std::string helpText(const char *program);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_OPTIONS_H
