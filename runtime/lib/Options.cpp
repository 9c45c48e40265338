//===- Options.cpp - The trainer's command line ---------------------------===//

#include "autodist/runtime/Options.h"
#include "autodist/runtime/Comm.h"
#include "autodist/runtime/Error.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace autodist::rt {

namespace {
Error invalid(const std::string &flag, const std::string &value,
              const char *expected) {
  return Error("invalid value " + inQuotes(value) + " for " + flag + " (" +
                   expected + ")",
               ExitUsage);
}

int64_t parseInt(const std::string &flag, const std::string &value,
                 int64_t min) {
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end || errno || v < min ||
      !std::isdigit(static_cast<unsigned char>(value[0])))
    throw invalid(flag, value,
                  min > 0 ? "expected a positive integer"
                          : "expected a non-negative integer");
  return v;
}

double parseFloat(const std::string &flag, const std::string &value) {
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end || errno || !std::isfinite(v))
    throw invalid(flag, value, "expected a number");
  return v;
}
} // namespace

Options parseOptions(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  Options o;
  for (const std::string &a : args)
    if (a == "--help" || a == "-h") {
      o.help = true;
      return o;
    }

  bool haveSteps = false, haveBatch = false;
  std::vector<std::string> given; // flags in command-line order
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (arg.rfind("--", 0) != 0)
      throw Error("unexpected argument " + inQuotes(arg) + " (see --help)",
                  ExitUsage);
    size_t eq = arg.find('=');
    std::string flag = arg.substr(0, eq);
    static const char *const known[] = {"--data",         "--steps",
                                        "--batch-size",   "--lr",
                                        "--log",          "--save",
                                        "--eval",         "--predict",
                                        "--checkpoint",   "--checkpoint-every",
                                        "--resume",       "--inputs",
                                        "--outputs",      "--seed",
                                        "--trace",        "--external-data",
                                        "--pin",          "--on-nonfinite",
                                        "--comm-timeout", "--overwrite",
                                        "--comm-progress"};
    bool isKnown = false;
    for (const char *k : known)
      isKnown |= flag == k;
    if (!isKnown)
      throw Error("unknown flag " + inQuotes(flag) + " (see --help)",
                  ExitUsage);
    given.push_back(flag);
    if (flag == "--resume" || flag == "--overwrite") {
      // A switch: it never takes the next argument.
      if (eq != std::string::npos)
        throw Error(flag + " takes no value", ExitUsage);
      (flag == "--resume" ? o.resume : o.overwrite) = true;
      continue;
    }
    std::string value;
    if (eq != std::string::npos)
      value = arg.substr(eq + 1);
    else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0)
      value = args[++i];
    else
      throw Error("missing value for " + flag, ExitUsage);

    if (flag == "--steps") {
      o.steps = parseInt(flag, value, 0);
      haveSteps = true;
    } else if (flag == "--batch-size") {
      o.batchSize = parseInt(flag, value, 1);
      haveBatch = true;
    } else if (flag == "--lr") {
      o.lr = parseFloat(flag, value);
    } else if (flag == "--seed") {
      o.seed = static_cast<uint64_t>(parseInt(flag, value, 0));
    } else if (flag == "--pin") {
      std::optional<PinMode> mode = parsePinMode(value);
      if (!mode)
        throw invalid(flag, value, "expected auto, cores or none");
      o.pin = *mode;
      o.pinGiven = true;
    } else if (flag == "--comm-timeout") {
      o.commTimeout = parseFloat(flag, value);
      if (o.commTimeout < 0)
        throw invalid(flag, value, "expected seconds, 0 for no limit");
    } else if (flag == "--comm-progress") {
      // Taken before MPI starts (runMain: threads need MPI_Init_thread);
      // checked here with the other flags.
      if (!comm::parseProgress(value))
        throw invalid(flag, value, "expected starts, ops or thread");
    } else if (flag == "--on-nonfinite") {
      std::optional<NonFinitePolicy> policy = parseNonFinitePolicy(value);
      if (!policy)
        throw invalid(flag, value, "expected stop, skip or continue");
      o.onNonFinite = *policy;
    } else if (flag == "--checkpoint-every") {
      o.checkpointEvery = parseInt(flag, value, 1);
    } else {
      if (value.empty())
        throw invalid(flag, value,
                      flag == "--checkpoint" || flag == "--external-data"
                          ? "expected a directory"
                          : "expected a file name");
      std::string *dest = flag == "--data"            ? &o.data
                          : flag == "--log"           ? &o.log
                          : flag == "--save"          ? &o.save
                          : flag == "--eval"          ? &o.eval
                          : flag == "--checkpoint"    ? &o.checkpoint
                          : flag == "--inputs"        ? &o.inputs
                          : flag == "--outputs"       ? &o.outputs
                          : flag == "--trace"         ? &o.trace
                          : flag == "--external-data" ? &o.externalData
                                                      : &o.predict;
      *dest = value;
    }
  }

  if (!o.inputs.empty() || !o.outputs.empty()) {
    if (o.outputs.empty())
      throw Error("--inputs needs --outputs=FILE.npz (where to write the "
                  "model's outputs)",
                  ExitUsage);
    if (o.inputs.empty())
      throw Error("--outputs needs --inputs=FILE.npz (the samples to run the "
                  "model on)",
                  ExitUsage);
    // Inference only: --steps=0 is allowed (and implied), nothing else of
    // training or of --eval/--predict.
    for (const std::string &flag : given) {
      if (flag == "--inputs" || flag == "--outputs" || flag == "--batch-size" ||
          flag == "--external-data" || flag == "--pin" ||
          (flag == "--steps" && o.steps == 0))
        continue;
      std::string shown =
          flag == "--steps" ? "--steps=" + std::to_string(o.steps) : flag;
      throw Error(shown +
                      " cannot be combined with --inputs/--outputs, which "
                      "only run inference (drop " +
                      flag + ")",
                  ExitUsage);
    }
    o.steps = 0;
    return o;
  }
  if (!haveSteps)
    throw Error("missing required flag --steps (see --help)", ExitUsage);
  if (!haveBatch)
    throw Error("missing required flag --batch-size (see --help)", ExitUsage);
  if (o.steps > 0 && o.data.empty())
    throw Error("missing required flag --data (see --help)", ExitUsage);
  if (!o.predict.empty() && o.eval.empty())
    throw Error("--predict needs --eval (the samples to predict)", ExitUsage);
  if (o.resume && o.checkpoint.empty())
    throw Error("--resume needs --checkpoint=DIR (where to resume from)",
                ExitUsage);
  if (o.overwrite && o.checkpoint.empty())
    throw Error("--overwrite needs --checkpoint=DIR (the checkpoint to "
                "replace)",
                ExitUsage);
  if (o.overwrite && o.resume)
    throw Error("--overwrite and --resume exclude each other (--resume "
                "continues from the checkpoint, --overwrite starts over)",
                ExitUsage);
  if (o.checkpointEvery && o.checkpoint.empty())
    throw Error("--checkpoint-every needs --checkpoint=DIR (where to write)",
                ExitUsage);
  return o;
}

std::string helpText(const char *program) {
  return std::string("usage: ") + program +
         " --data=FILE.npz --steps=N --batch-size=B [options]\n"
         "       mpirun -np R " +
         program +
         " ...   (data-parallel over R ranks)\n"
         "       " +
         program +
         " --inputs=IN.npz --outputs=OUT.npz [--batch-size=B]\n"
         "\n"
         "Trains the compiled model with its compiled loss and optimizer on\n"
         "the arrays of FILE.npz (one per model input, plus the labels), in\n"
         "file order. With --inputs/--outputs it only runs the model's\n"
         "forward pass.\n"
         "\n"
         "Inference (any build, training flags not allowed):\n"
         "  --inputs=IN.npz     one array per model input, named like it;\n"
         "                      the leading dimension is the sample count\n"
         "  --outputs=OUT.npz   write every model output over all samples,\n"
         "                      named like it (written on rank 0 only)\n"
         "  --batch-size=B      run the samples in calls of B (the last may\n"
         "                      be smaller; default: all in one call)\n"
         "\n"
         "Either way:\n"
         "  --external-data=DIR read the parameters' ONNX external data\n"
         "                      files from DIR (default: the directory of\n"
         "                      the model compiled, recorded in the\n"
         "                      executable; no effect without external data)\n"
         "  --pin=auto|cores|none\n"
         "                      CPU affinity of each rank's threads, printed\n"
         "                      per rank when given. cores: the ranks of a\n"
         "                      node split its CPUs into contiguous blocks;\n"
         "                      auto (default): keep the launcher's binding\n"
         "                      if it gave the ranks disjoint CPUs, else as\n"
         "                      cores; none: leave it alone. One BLAS thread\n"
         "                      per CPU of the rank unless "
         "OPENBLAS_NUM_THREADS\n"
         "                      or OMP_NUM_THREADS is set\n"
         "\n"
         "Training:\n"
         "  --data=FILE.npz     training data (not needed with --steps=0)\n"
         "  --steps=N           total training steps, counting those before\n"
         "                      a resumed checkpoint (0: only "
         "--eval/--predict)\n"
         "  --batch-size=B      samples per rank per step; a step uses B*R\n"
         "                      samples, rank r the r-th B of them\n"
         "  --lr=F              base learning rate of the compiled schedule\n"
         "                      (default: the compiled one)\n"
         "  --seed=K            seed of dropout's masks (default: the\n"
         "                      compiled --seed; no effect without dropout)\n"
         "  --log=FILE.jsonl    per-step metrics of this run, one JSON object\n"
         "                      per line: step, loss, samples_per_s, lr, "
         "time_s\n"
         "  --trace=FILE.json   Chrome/Perfetto trace of the training steps,\n"
         "                      one file per rank (FILE.rank<R>.json):\n"
         "                      steps, compiled code, sgemm calls, "
         "collectives\n"
         "  --save=FILE.onnx    write the model with the trained parameters\n"
         "  --eval=FILE.npz     after training, run inference on FILE.npz in\n"
         "                      chunks of B and print the accuracy if it has\n"
         "                      labels\n"
         "  --predict=FILE.npy  write output 0 over the --eval samples\n"
         "  --on-nonfinite=stop|skip|continue\n"
         "                      a step whose loss or updated parameters are\n"
         "                      NaN or inf: stop (default) exits with an\n"
         "                      error before anything is saved; skip drops\n"
         "                      that step's update; continue keeps it\n"
         "  --comm-timeout=S    under mpirun, a collective that takes more\n"
         "                      than S seconds (default 600; 0: no limit)\n"
         "                      aborts the job, naming the ranks that did\n"
         "                      not arrive (a stopped or frozen process)\n"
         "  --comm-progress=starts|ops|thread\n"
         "                      how started all-reduces progress while the\n"
         "                      step computes: tested at each start, also\n"
         "                      at every operator boundary (ops, default),\n"
         "                      or by a progress thread\n"
         "  --checkpoint=DIR    write DIR/checkpoint.npz (parameters, "
         "optimizer\n"
         "                      state, step) at the end of training; an\n"
         "                      existing one needs --resume or --overwrite;\n"
         "                      one run at a time per DIR (DIR/.lock)\n"
         "  --checkpoint-every=K\n"
         "                      also write it after every K-th step\n"
         "  --resume            continue from DIR/checkpoint.npz at the step\n"
         "                      after it, with the same ranks and "
         "--batch-size\n"
         "  --overwrite         replace DIR/checkpoint.npz, starting over\n"
         "  --help              show this help\n";
}

} // namespace autodist::rt
