//===- Module.cpp - autodist._autodist: the C API for Python --------------===//
//
// Binds autodist-c/Compile.h only, as MLIR's own bindings bind its C API.
// The typed Python API (python/autodist) builds on these three functions.
//
//===----------------------------------------------------------------------===//

#include "autodist-c/Compile.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace {

struct Diagnostic {
  std::string severity, file, message;
};

/// What the callbacks collect during one compile.
struct Collected {
  std::vector<Diagnostic> diagnostics;
  std::optional<nb::callable> progress;
  std::string optionError;
};

/// Compiles with `options` (flag, value) pairs; returns whether it
/// succeeded and its diagnostics. `progress` gets each progress line.
std::pair<bool, std::vector<Diagnostic>>
compile(const std::vector<std::pair<std::string, std::string>> &options,
        std::optional<nb::callable> progress) {
  std::unique_ptr<AutodistCompileOptions, void (*)(AutodistCompileOptions *)> o(
      autodistCompileOptionsCreate(), autodistCompileOptionsDestroy);
  Collected c;
  c.progress = std::move(progress);
  for (const auto &[flag, value] : options)
    if (autodistCompileOptionsSet(
            o.get(), flag.c_str(), value.c_str(),
            [](const char *msg, void *data) {
              static_cast<Collected *>(data)->optionError = msg;
            },
            &c))
      throw nb::value_error(c.optionError.c_str());
  int rc;
  {
    // The compile runs without the GIL; the callbacks take it back.
    nb::gil_scoped_release release;
    rc = autodistCompile(
        o.get(),
        [](const AutodistDiagnostic *d, void *data) {
          static_cast<Collected *>(data)->diagnostics.push_back(
              {d->severity, d->file, d->message});
        },
        [](const char *line, void *data) {
          auto *c = static_cast<Collected *>(data);
          if (!c->progress)
            return;
          nb::gil_scoped_acquire acquire;
          try {
            (*c->progress)(std::string(line));
          } catch (nb::python_error &e) {
            e.discard_as_unraisable("autodist progress callback");
          }
        },
        &c);
  }
  return {rc == 0, std::move(c.diagnostics)};
}

std::vector<std::string> optionFlags() {
  std::vector<std::string> flags;
  for (int i = 0; const char *f = autodistCompileOptionFlag(i); ++i)
    flags.push_back(f);
  return flags;
}

} // namespace

NB_MODULE(_autodist, m) {
  m.doc() = "The AutoDist-MLIR compiler's C API (use the autodist package)";
  nb::class_<Diagnostic>(m, "Diagnostic")
      .def_ro("severity", &Diagnostic::severity)
      .def_ro("file", &Diagnostic::file)
      .def_ro("message", &Diagnostic::message)
      .def("__repr__", [](const Diagnostic &d) {
        return d.severity + ": " + (d.file.empty() ? "" : d.file + ": ") +
               d.message;
      });
  m.def("compile", &compile, nb::arg("options"),
        nb::arg("progress") = nb::none(),
        "Compiles with (flag, value) options; returns (ok, diagnostics).");
  m.def("option_flags", &optionFlags,
        "The flags of every compiler option, in definition order.");
  m.def("capi_version", &autodistCapiVersion);
}
