//===- StepProfile.cpp - a measured step for the cost models --------------===//
//
// Reads the runtime's metrics log (docs/runtime: one JSON object per step,
// `time_s` the seconds since training started) into the median step time.
//
//===----------------------------------------------------------------------===//

#include "autodist/Strategy/StepProfile.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <vector>

using namespace mlir;
using namespace autodist;

FailureOr<double> autodist::readStepProfile(StringRef path, Location loc) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return emitError(loc, "cannot read the step profile '")
           << path << "': " << buffer.getError().message();
  std::vector<double> times;
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (auto [i, line] : llvm::enumerate(lines)) {
    if (line.trim().empty())
      continue;
    llvm::Expected<llvm::json::Value> v = llvm::json::parse(line);
    const llvm::json::Object *o = v ? v->getAsObject() : nullptr;
    std::optional<double> t = o ? o->getNumber("time_s") : std::nullopt;
    if (!v)
      llvm::consumeError(v.takeError());
    if (!t || !o->getInteger("step"))
      return emitError(loc, "step profile '")
             << path << "', line " << i + 1
             << ": not a metrics log row (a JSON object with 'step' and "
                "'time_s', as the runtime's --log writes)";
    times.push_back(*t);
  }
  if (times.size() < 4)
    return emitError(loc, "step profile '")
           << path << "' has " << times.size()
           << " step(s); at least 4 are needed for a step time";
  std::vector<double> steps;
  for (size_t i = times.size() >= 10 ? 5 : 1; i < times.size(); ++i)
    steps.push_back(times[i] - times[i - 1]);
  std::nth_element(steps.begin(), steps.begin() + steps.size() / 2,
                   steps.end());
  double median = steps[steps.size() / 2];
  if (!(median > 0))
    return emitError(loc, "step profile '")
           << path << "': its steps do not take time (time_s must grow)";
  return median;
}
