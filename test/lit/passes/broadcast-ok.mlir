// Valid broadcasts: a scalar to any shape, a known-1 dim to a symbol, a
// vector into the trailing dim of a matrix, an identity map.
// RUN: aimz-opt %s | FileCheck %s

aimz.model @broadcasts attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
  %0 = aimz.constant 2.000000e+00 : f32 -> <[], f32>
  // CHECK: aimz.broadcast %{{.*}} [] : <[], f32> -> <["n", "k"], f32>
  %1 = aimz.broadcast %0 [] : <[], f32> -> <["n", "k"], f32>
  %2 = aimz.broadcast %0 [] : <[], f32> -> <[1], f32>
  // CHECK: aimz.broadcast %{{.*}} [1] : <[1], f32> -> <["n", "k"], f32>
  %3 = aimz.broadcast %2 [1] : <[1], f32> -> <["n", "k"], f32>
  %4 = aimz.input "v"[0] : <["k"], f32>
  // CHECK: aimz.broadcast %{{.*}} [1] : <["k"], f32> -> <["n", "k"], f32>
  %5 = aimz.broadcast %4 [1] : <["k"], f32> -> <["n", "k"], f32>
  // CHECK: aimz.broadcast %{{.*}} [0] : <["k"], f32> -> <["k"], f32>
  %6 = aimz.broadcast %4 [0] : <["k"], f32> -> <["k"], f32>
}
