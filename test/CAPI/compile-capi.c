/* The C API used from C: options set by flag name, a strategy-only compile
 * of a model, diagnostics and progress through the callbacks, bad options
 * and a failing compile. Run by test/CAPI/compile.test. */

#include "autodist-c/Compile.h"

#include <stdio.h>
#include <string.h>

static void onDiagnostic(const AutodistDiagnostic *d, void *userData) {
  (void)userData;
  printf("diagnostic %s [%s] %s\n", d->severity, d->file[0] ? "file" : "-",
         d->message);
}

static void onLine(const char *line, void *userData) {
  printf("%s: %s\n", (const char *)userData, line);
}

int main(int argc, char **argv) {
  char set[] = "set", progress[] = "progress";
  if (argc != 3) {
    fprintf(stderr, "usage: compile-capi MODEL.onnx OUT.json\n");
    return 2;
  }
  printf("version %d\n", autodistCapiVersion());
  int flags = 0;
  while (autodistCompileOptionFlag(flags))
    ++flags;
  printf("first option %s, %s option\n", autodistCompileOptionFlag(0),
         flags > 40 ? "over 40" : "under 40");

  AutodistCompileOptions *o = autodistCompileOptionsCreate();
  autodistCompileOptionsSet(o, "input", argv[1], onLine, set);
  autodistCompileOptionsSet(o, "o", argv[2], onLine, set);
  autodistCompileOptionsSet(o, "emit", "strategy", onLine, set);
  autodistCompileOptionsSet(o, "strategy", "ps", onLine, set);
  printf("bad number: %d\n",
         autodistCompileOptionsSet(o, "chunk-size", "many", onLine, set));
  printf("bad flag: %d\n",
         autodistCompileOptionsSet(o, "chunks", "1", onLine, set));
  printf("compile: %d\n", autodistCompile(o, onDiagnostic, onLine, progress));
  autodistCompileOptionsDestroy(o);

  o = autodistCompileOptionsCreate();
  autodistCompileOptionsSet(o, "input", argv[1], onLine, set);
  autodistCompileOptionsSet(o, "o", argv[2], onLine, set);
  autodistCompileOptionsSet(o, "momentum", "0.5", onLine, set);
  autodistCompileOptionsSet(o, "quiet", "true", onLine, set);
  printf("failing compile: %d\n",
         autodistCompile(o, onDiagnostic, onLine, progress));
  autodistCompileOptionsDestroy(o);
  return 0;
}
