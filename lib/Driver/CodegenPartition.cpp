//===- CodegenPartition.cpp - split a module for parallel codegen ---------===//
//
// A training step lowers to a few huge `optnone` entry points (one block of
// thousands of calls) plus many small loop-nest functions. Compiled as one
// module, the entry points went through module passes that are not skipped
// for `optnone` (CalledValuePropagation took a quarter of a 48-block GPT's
// compile) and through the optimizing instruction selector and register
// allocator, both superlinear in the size of a block. Split, the entry
// points take the -O0 code generator, which is linear, and the pieces
// compile on all cores.
//
//===----------------------------------------------------------------------===//

#include "autodist/Driver/CodegenPartition.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <numeric>

namespace autodist {

/// The most instructions in one block of an `optnone` function.
static constexpr size_t kSequencerBlockSize = 1000;

/// Makes every defined symbol of local linkage external and hidden: a
/// partition then refers to a symbol of another one by name, and the
/// executable exports none of them.
static void externalizeLocals(llvm::Module &module) {
  for (llvm::GlobalValue &gv : module.global_values()) {
    if (gv.isDeclaration() || !gv.hasLocalLinkage())
      continue;
    if (!gv.hasName())
      gv.setName("autodist.local");
    gv.setLinkage(llvm::GlobalValue::ExternalLinkage);
    gv.setVisibility(llvm::GlobalValue::HiddenVisibility);
  }
}

/// Cuts the blocks of `f` into blocks of at most `maxSize` instructions.
/// Instruction selection works a block at a time, and the -O0 selector
/// falls back to SelectionDAG for the rest of a block at the first
/// instruction it cannot take (an aggregate), so an entry point of one
/// block of 100k instructions was one DAG, combined in superlinear time.
/// Constant-size allocas move to the entry block first: elsewhere they
/// would be dynamic stack allocations.
static void boundBlockSizes(llvm::Function &f, size_t maxSize) {
  llvm::BasicBlock &entry = f.getEntryBlock();
  llvm::Instruction *insertAt = &*entry.getFirstNonPHIOrDbgOrAlloca();
  for (llvm::BasicBlock &bb : f)
    for (llvm::Instruction &inst : llvm::make_early_inc_range(bb))
      if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
        if (&bb != &entry && llvm::isa<llvm::Constant>(alloca->getArraySize()))
          alloca->moveBefore(insertAt->getIterator());
  std::vector<llvm::BasicBlock *> blocks;
  for (llvm::BasicBlock &bb : f)
    if (bb.size() > maxSize)
      blocks.push_back(&bb);
  for (llvm::BasicBlock *bb : blocks) {
    // Cut points every maxSize instructions after the PHIs and allocas,
    // never at the terminator; cut from the back, so that each split moves
    // one piece only (splitting from the front moves the whole tail).
    std::vector<llvm::Instruction *> cuts;
    size_t n = 0;
    for (llvm::Instruction &inst : *bb) {
      if (llvm::isa<llvm::PHINode>(inst) || llvm::isa<llvm::AllocaInst>(inst) ||
          inst.isTerminator())
        continue;
      if (++n % maxSize == 0)
        cuts.push_back(&inst);
    }
    for (auto it = cuts.rbegin(); it != cuts.rend(); ++it)
      bb->splitBasicBlock(*it);
  }
}

/// The number of instructions of `f`: the measure of its codegen cost.
static size_t instructionCount(const llvm::Function &f) {
  size_t n = 0;
  for (const llvm::BasicBlock &bb : f)
    n += bb.size();
  return n;
}

std::vector<CodegenPartition> partitionForCodegen(llvm::Module &module,
                                                  unsigned kernelParts) {
  kernelParts = std::max(1u, kernelParts);
  externalizeLocals(module);

  // Partition 0: the optnone functions; 1..kernelParts: the others, the
  // largest first into the lightest partition; globals go to partition 1.
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> owner;
  std::vector<std::pair<size_t, llvm::Function *>> kernels;
  for (llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    if (f.hasOptNone()) {
      owner[&f] = 0;
      boundBlockSizes(f, kSequencerBlockSize);
    } else
      kernels.push_back({instructionCount(f), &f});
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](auto &a, auto &b) { return a.first > b.first; });
  std::vector<size_t> load(kernelParts, 0);
  for (auto &[size, f] : kernels) {
    unsigned lightest =
        std::min_element(load.begin(), load.end()) - load.begin();
    load[lightest] += size;
    owner[f] = 1 + lightest;
  }
  for (llvm::GlobalVariable &gv : module.globals())
    if (!gv.isDeclaration())
      owner[&gv] = 1;
  for (llvm::GlobalAlias &ga : module.aliases())
    owner[&ga] = 1;
  for (llvm::GlobalIFunc &gi : module.ifuncs())
    owner[&gi] = 1;

  std::vector<CodegenPartition> parts;
  for (unsigned p = 0; p <= kernelParts; ++p) {
    bool any = llvm::any_of(owner, [&](auto &e) { return e.second == p; });
    if (!any)
      continue;
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> piece =
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue *gv) {
          auto it = owner.find(gv);
          return it != owner.end() && it->second == p;
        });
    CodegenPartition part;
    part.sequencer = p == 0;
    part.holdsGlobals = p == 1;
    llvm::raw_svector_ostream os(part.bitcode);
    llvm::WriteBitcodeToFile(*piece, os);
    parts.push_back(std::move(part));
  }
  return parts;
}

} // namespace autodist
