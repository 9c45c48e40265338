//===- StepState.cpp - state arguments and results of @train_step ---------===//

#include "StepState.h"

using namespace mlir;

namespace autodist {

BlockArgument addStepStateArgument(func::FuncOp step, Type type,
                                   DictionaryAttr attrs) {
  unsigned at = 0;
  for (unsigned i = 0; i < step.getNumArguments(); ++i)
    if (step.getArgAttr(i, "nn.state") || step.getArgAttr(i, "nn.param"))
      at = i + 1;
  (void)step.insertArgument(at, type, attrs, step.getLoc());
  return step.getArgument(at);
}

void addStepStateResult(func::FuncOp step, StringAttr name, Value v) {
  unsigned at = 0;
  for (unsigned i = 0; i < step.getNumResults(); ++i)
    if (step.getResultAttr(i, "nn.loss") ||
        step.getResultAttr(i, "nn.param_out") ||
        step.getResultAttr(i, "nn.state_out"))
      at = i + 1;
  Builder b(step.getContext());
  (void)step.insertResult(
      at, v.getType(),
      b.getDictionaryAttr(b.getNamedAttr("nn.state_out", name)));
  step.getBody().front().getTerminator()->insertOperands(at, v);
}

} // namespace autodist
