//===- OpRegistry.cpp - one entry per imported ONNX operator --------------===//

#include "OpRegistry.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

namespace autodist::detail {

const AttrSpec *OpSpec::attribute(llvm::StringRef attr) const {
  for (const AttrSpec &a : attributes)
    if (a.name == attr)
      return &a;
  return nullptr;
}

const OpRegistry &OpRegistry::get() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    registerContractionOps(r);
    registerElementwiseOps(r);
    registerReductionOps(r);
    registerNormalizationOps(r);
    registerShapeOps(r);
    registerConstantOps(r);
    registerConvPoolOps(r);
    registerRecurrentOps(r);
    registerScatterOps(r);
    registerEmbeddingBagOps(r);
    return r;
  }();
  return registry;
}

void OpRegistry::add(OpSpec spec) {
  if (!index.emplace(spec.name, specs.size()).second)
    llvm::report_fatal_error("ONNX operator '" + llvm::Twine(spec.name) +
                             "' registered twice");
  specs.push_back(std::move(spec));
}

const OpSpec *OpRegistry::lookup(llvm::StringRef opType) const {
  auto it = index.find(opType);
  return it == index.end() ? nullptr : &specs[it->second];
}

static std::string opsetsCell(const OpSpec &s) {
  return std::to_string(s.sinceOpset) + "+" + s.doc.opsetNote;
}

void printOperatorTable(const OpRegistry &registry, llvm::raw_ostream &os) {
  os << "| ONNX op | opsets | nn op | gradient | notes |\n"
     << "|---|---|---|---|---|\n";
  llvm::ArrayRef<OpSpec> ops = registry.ops();
  for (size_t i = 0; i < ops.size();) {
    // Operators documented alike share a row (Add, Sub, Mul).
    size_t j = i + 1;
    while (j < ops.size() && opsetsCell(ops[j]) == opsetsCell(ops[i]) &&
           ops[j].doc.gradient == ops[i].doc.gradient &&
           ops[j].doc.notes == ops[i].doc.notes)
      ++j;
    llvm::ArrayRef<OpSpec> row = ops.slice(i, j - i);
    std::string names, nnOps;
    bool sameNN = llvm::all_of(
        row, [&](const OpSpec &s) { return s.doc.nnOp == row[0].doc.nnOp; });
    for (const OpSpec &s : row) {
      names += (names.empty() ? "" : ", ") + s.name;
      if (!sameNN || nnOps.empty())
        nnOps += (nnOps.empty() ? "" : ", ") + s.doc.nnOp;
    }
    const std::string &notes = row[0].doc.notes;
    os << "| " << names << " | " << opsetsCell(row[0]) << " | " << nnOps
       << " | " << row[0].doc.gradient << " |"
       << (notes.empty() ? "" : " " + notes) << " |\n";
    i = j;
  }
}

} // namespace autodist::detail
