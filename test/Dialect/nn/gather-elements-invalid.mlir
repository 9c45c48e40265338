// RUN: autodist-opt %s -split-input-file -verify-diagnostics

func.func @rank(%t: tensor<4x5xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error@+1 {{indices of rank 1 for data of rank 2 (they must be equal)}}
  %0 = nn.gather_elements %t, %i {axis = 0 : i64} : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @axis(%t: tensor<4x5xf32>, %i: tensor<4x5xi64>) -> tensor<4x5xf32> {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %0 = nn.gather_elements %t, %i {axis = 2 : i64} : (tensor<4x5xf32>, tensor<4x5xi64>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @dynamic_axis(%t: tensor<?x5xf32>, %i: tensor<4x5xi64>) -> tensor<4x5xf32> {
  // expected-error@+1 {{gathers along dynamic dim 0}}
  %0 = nn.gather_elements %t, %i {axis = 0 : i64} : (tensor<?x5xf32>, tensor<4x5xi64>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @larger(%t: tensor<4x5xf32>, %i: tensor<4x6xi64>) -> tensor<4x6xf32> {
  // expected-error@+1 {{indices dim 1 (6) is larger than the data's (5)}}
  %0 = nn.gather_elements %t, %i {axis = 0 : i64} : (tensor<4x5xf32>, tensor<4x6xi64>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
