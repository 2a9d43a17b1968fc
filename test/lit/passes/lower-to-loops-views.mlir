// A slice is a pointer offset (start times stride, here the derived start
// K - 1 computed from the dims array) and no copy; a transpose swaps strides.
// RUN: aimz-opt --aimz-lower-to-loops %s | FileCheck %s

// CHECK-LABEL: func.func @aimz_predict
// CHECK: %[[K:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[KM1:.*]] = arith.addi %{{.*}} : index
// CHECK: scf.for
aimz.model @views attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "K"]} {
  %x = aimz.input "x" [0] : <["n", "K"], f32>
  %s = aimz.slice %x starts [0, "K - 1"] dropped [false, true] : <["n", "K"], f32> -> <["n"], f32>
  %t = aimz.deterministic "last" = %s {plates = ["obs"], site_id = 0 : i64} : <["n"], f32> -> <["n"], f32>
}
