// RUN: autodist-opt %s -split-input-file -verify-diagnostics --dist-partition

// expected-error@+1 {{no dist.strategy attribute (run dist-strategy first)}}
module {
}

// -----

// expected-error@+1 {{no @train_step to partition}}
module attributes {dist.strategy = #dist.strategy<id = "x", replicas = [], nodes = []>} {
}
