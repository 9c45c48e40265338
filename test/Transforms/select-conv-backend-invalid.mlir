// RUN: autodist-opt %s -split-input-file -verify-diagnostics --autodist-select-conv-backend=backend=fast

// expected-error@+1 {{unknown convolution backend 'fast' (expected auto, im2col or onednn)}}
module {
}
