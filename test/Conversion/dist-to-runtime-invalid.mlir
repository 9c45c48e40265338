// RUN: autodist-opt %s -verify-diagnostics --convert-dist-to-runtime

func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{operand of dynamic shape 'tensor<?xf32>' cannot be bucketed}}
  %r = dist.all_reduce mean %a : tensor<?xf32>
  return %r : tensor<?xf32>
}
