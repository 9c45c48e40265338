// RUN: not autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=magic" 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not autodist-opt %S/Inputs/mlp.mlir --dist-strategy="chunk-size=0" 2>&1 | FileCheck %s --check-prefix=CHUNK
// RUN: not autodist-opt %S/Inputs/mlp.mlir --dist-strategy="compressor=zip" 2>&1 | FileCheck %s --check-prefix=COMP
// RUN: not autodist-opt %S/Inputs/mlp.mlir --dist-strategy="builder=ps sync=false staleness=2" 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: not autodist-opt %S/Inputs/mlp.mlir --dist-strategy="cluster-file=%S/Inputs/missing.yaml" 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: not autodist-opt %s --dist-strategy 2>&1 | FileCheck %s --check-prefix=NOFN

// NAME: error: unknown strategy builder 'magic' (supported: ps, ps-lb, partitioned-ps, uneven-ps, allreduce, partitioned-ar, random-axis-ar, parallax)
// CHUNK: error: chunk size must be >= 1, got 0
// COMP: error: dist-strategy: unknown compressor 'zip' (supported: none, fp16, fp16_ef, powersgd)
// STALE: error: staleness must be >= 0 and needs sync
// FILE: error: cannot read resource spec '{{.*}}missing.yaml'
// NOFN: error: no @train_step or @forward to distribute
module {
}
