// X @ beta: an input's rows are packed once per call (before the draw
// loop) and every draw's product reads the packed tiles; a left side the
// model computes, or a right side that varies with the observation, takes
// the general product inside the block loop, and nothing is packed.
// RUN: aimz-opt --split-input-file --aimz-lower-to-loops %s | FileCheck %s

// CHECK-LABEL: func.func @aimz_predict(
// CHECK: call @aimz_rt_pack_row_tiles_f64(
// CHECK: scf.for
// CHECK: scf.for
// CHECK: call @aimz_rt_row_tiles_times_vector_f64(
// CHECK-NOT: call @aimz_rt_matmul_f64(
// CHECK: return
module {
  aimz.model @input_lhs attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
    %x = aimz.input "X"[0] : <["n", "k"], f64>
    %zero = aimz.constant 0.000000e+00 : f64 -> <[], f64>
    %one = aimz.constant 1.000000e+00 : f64 -> <[], f64>
    %zk = aimz.broadcast %zero [] : <[], f64> -> <["k"], f64>
    %ok = aimz.broadcast %one [] : <[], f64> -> <["k"], f64>
    %beta = aimz.sample "beta" = "Normal"(%zk, %ok) {param_names = ["loc", "scale"], plates = [], site_class = "global", site_id = 0 : i64} : (!aimz.array<["k"], f64>, !aimz.array<["k"], f64>) -> !aimz.array<["k"], f64>
    %bb = aimz.broadcast %beta [1] : <["k"], f64> -> <["n", "k"], f64>
    %mu = aimz.matmul %x, %bb batch 1 : <["n", "k"], f64>, <["n", "k"], f64> -> <["n"], f64>
    %y = aimz.observe "y" = "Normal"(%mu, %one) {param_names = ["loc", "scale"], plates = ["obs"], site_id = 1 : i64} : (!aimz.array<["n"], f64>, !aimz.array<[], f64>) -> !aimz.array<["n"], f64>
  }
}

// -----

// CHECK-LABEL: func.func @aimz_predict(
// CHECK-NOT: call @aimz_rt_pack_row_tiles
// CHECK: call @aimz_rt_matmul_f32(
// CHECK-NOT: call @aimz_rt_row_tiles_times_vector
// CHECK: return
module {
  aimz.model @computed_lhs attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
    %x = aimz.input "X"[0] : <["n", "k"], f32>
    %zero = aimz.constant 0.000000e+00 : f32 -> <[], f32>
    %one = aimz.constant 1.000000e+00 : f32 -> <[], f32>
    %zk = aimz.broadcast %zero [] : <[], f32> -> <["k"], f32>
    %ok = aimz.broadcast %one [] : <[], f32> -> <["k"], f32>
    %beta = aimz.sample "beta" = "Normal"(%zk, %ok) {param_names = ["loc", "scale"], plates = [], site_class = "global", site_id = 0 : i64} : (!aimz.array<["k"], f32>, !aimz.array<["k"], f32>) -> !aimz.array<["k"], f32>
    %bb = aimz.broadcast %beta [1] : <["k"], f32> -> <["n", "k"], f32>
    %x2 = aimz.unary exp %x : <["n", "k"], f32> -> <["n", "k"], f32>
    %mu = aimz.matmul %x2, %bb batch 1 : <["n", "k"], f32>, <["n", "k"], f32> -> <["n"], f32>
    %y = aimz.observe "y" = "Normal"(%mu, %one) {param_names = ["loc", "scale"], plates = ["obs"], site_id = 1 : i64} : (!aimz.array<["n"], f32>, !aimz.array<[], f32>) -> !aimz.array<["n"], f32>
  }
}

// -----

// CHECK-LABEL: func.func @aimz_predict(
// CHECK-NOT: call @aimz_rt_pack_row_tiles
// CHECK: call @aimz_rt_matmul_f32(
// CHECK: return
module {
  aimz.model @obs_rhs attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
    %x = aimz.input "X"[0] : <["n", "k"], f32>
    %w = aimz.input "W"[1] : <["n", "k"], f32>
    %one = aimz.constant 1.000000e+00 : f32 -> <[], f32>
    %mu = aimz.matmul %x, %w batch 1 : <["n", "k"], f32>, <["n", "k"], f32> -> <["n"], f32>
    %y = aimz.observe "y" = "Normal"(%mu, %one) {param_names = ["loc", "scale"], plates = ["obs"], site_id = 0 : i64} : (!aimz.array<["n"], f32>, !aimz.array<[], f32>) -> !aimz.array<["n"], f32>
  }
}
