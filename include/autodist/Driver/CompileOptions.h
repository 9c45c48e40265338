//===- CompileOptions.h - the options of autodist::compile ------*- C++ -*-===//
//
// Every option of the compiler, defined once in CompileOptions.def: the
// fields here, autodist-compile's flags, setting by name for the C API and
// the Python package.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_DRIVER_COMPILEOPTIONS_H
#define AUTODIST_DRIVER_COMPILEOPTIONS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace autodist {

struct CompileOptions {
  /// The ONNX model.
  std::string input;
  /// The file to write (-o).
  std::string output;
#define AUTODIST_OPTION(TYPE, FIELD, FLAG, DEFAULT, VALUE_DESC, DESCRIPTION)   \
  TYPE FIELD = DEFAULT;
#define AUTODIST_LIST_OPTION(FIELD, FLAG, COMMA_SEPARATED, VALUE_DESC,         \
                             DESCRIPTION)                                      \
  std::vector<std::string> FIELD;
#include "autodist/Driver/CompileOptions.def"

  /// The flags set explicitly (on the command line, or by set()): a flag
  /// that means nothing without another is an error only when given.
  std::set<std::string, std::less<>> given;
  bool isGiven(llvm::StringRef flag) const { return given.count(flag); }

  /// Sets the option named by its flag (`lr`, `input-shape`, ...) from its
  /// text form, as on the command line; a list option appends (the values
  /// of a comma-separated one are split). Fails naming the flag and the
  /// value.
  llvm::Error set(llvm::StringRef flag, llvm::StringRef value);

  /// The flags of every option, in the order of CompileOptions.def.
  static std::vector<std::string> flags();
};

} // namespace autodist

#endif // AUTODIST_DRIVER_COMPILEOPTIONS_H
