// RUN: autodist-opt %s -split-input-file -verify-diagnostics --convert-nn-conv-to-library=backend=fast

// expected-error@+1 {{unknown convolution backend 'fast' (expected auto, im2col or onednn)}}
module {
}
