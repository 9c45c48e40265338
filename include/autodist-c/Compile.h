/*===- autodist-c/Compile.h - the compiler's C API ----------------*- C -*-===*\
|*                                                                            *|
|* A small, stable C interface to autodist::compile (the Python package       *|
|* binds it): options set by their command-line flag names, diagnostics and   *|
|* progress lines through callbacks. No MLIR type crosses it.                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef AUTODIST_C_COMPILE_H
#define AUTODIST_C_COMPILE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface; grows when functions are added. */
#define AUTODIST_CAPI_VERSION 1

/* Compile options: autodist-compile's flags (CompileOptions.def). */
typedef struct AutodistCompileOptions AutodistCompileOptions;

/* One diagnostic of a compile. `file` is the model (or another input) the
 * diagnostic is located at, or "" when none; the strings live until the
 * callback returns. */
typedef struct {
  const char *severity; /* "error", "warning" or "note" */
  const char *file;
  const char *message;
} AutodistDiagnostic;

typedef void (*AutodistDiagnosticCallback)(const AutodistDiagnostic *diagnostic,
                                           void *userData);
typedef void (*AutodistProgressCallback)(const char *line, void *userData);

int autodistCapiVersion(void);

/* New options, with every default of autodist-compile. */
AutodistCompileOptions *autodistCompileOptionsCreate(void);
void autodistCompileOptionsDestroy(AutodistCompileOptions *options);

/* Sets the option named by its flag without dashes ("lr", "input-shape",
 * "o" or "output", "input" for the model) from its text form; a list
 * option appends. Returns 0, or nonzero with the reason passed to
 * `onError` (may be NULL). */
int autodistCompileOptionsSet(AutodistCompileOptions *options, const char *flag,
                              const char *value,
                              AutodistProgressCallback onError, void *userData);

/* The flag of option `index` (0-based) in the order of CompileOptions.def,
 * or NULL past the last one. */
const char *autodistCompileOptionFlag(int index);

/* Compiles as autodist-compile does with these options. Returns 0 on
 * success; otherwise nonzero, with at least one error diagnostic given to
 * `onDiagnostic`, and every output as it was. Callbacks may be NULL. */
int autodistCompile(const AutodistCompileOptions *options,
                    AutodistDiagnosticCallback onDiagnostic,
                    AutodistProgressCallback onProgress, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* AUTODIST_C_COMPILE_H */
