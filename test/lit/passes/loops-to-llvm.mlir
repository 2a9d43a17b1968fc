// aimz-loops-to-llvm lowers the loop form (func, scf, arith, math and the
// llvm memory ops) to the LLVM dialect alone; aimz-to-llvm does both steps
// from the model. Nothing but llvm.* ops (and the module) may remain.
// RUN: aimz-opt --aimz-lower-to-loops %s | aimz-opt --aimz-loops-to-llvm | FileCheck %s
// RUN: aimz-opt --aimz-to-llvm %s | FileCheck %s
// RUN: aimz-opt --aimz-to-llvm %s | FileCheck %s --check-prefix=ONLY

// CHECK: module attributes {aimz.manifest = "{}"}
// CHECK-DAG: llvm.func @aimz_rt_sample_rows_normal_f32(i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64)
// CHECK-DAG: llvm.func @aimz_rt_logp_normal_f32(f32, f32, f32, f32, f32, f32) -> f32
// CHECK-DAG: llvm.func @aimz_rt_row_tiles_times_vector_f32(i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64)
// CHECK-LABEL: llvm.func @aimz_predict(%{{.*}}: !llvm.ptr) -> i32
// CHECK: llvm.call @aimz_rt_sample_rows_normal_f32(
// CHECK: llvm.call @aimz_rt_row_tiles_times_vector_f32(
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @aimz_log_likelihood(%{{.*}}: !llvm.ptr) -> i32
// CHECK: llvm.call @aimz_rt_logp_normal_f32(
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @aimz_prior_predictive(%{{.*}}: !llvm.ptr) -> i32
// CHECK: llvm.return

// ONLY-NOT: {{^ *(%[^ ]+ = )?"?(func|scf|arith|math|cf|index|memref|aimz)\.}}
// ONLY-NOT: unrealized_conversion_cast
// ONLY: llvm.func @aimz_predict
// ONLY-NOT: {{^ *(%[^ ]+ = )?"?(func|scf|arith|math|cf|index|memref|aimz)\.}}
// ONLY-NOT: unrealized_conversion_cast

module {
  aimz.model @linreg attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
    %x = aimz.input "X"[0] : <["n", "k"], f32>
    %zero = aimz.constant 0.000000e+00 : f32 -> <[], f32>
    %one = aimz.constant 1.000000e+00 : f32 -> <[], f32>
    %zk = aimz.broadcast %zero [] : <[], f32> -> <["k"], f32>
    %ok = aimz.broadcast %one [] : <[], f32> -> <["k"], f32>
    %beta = aimz.sample "beta" = "Normal"(%zk, %ok) {param_names = ["loc", "scale"], plates = [], site_class = "global", site_id = 0 : i64} : (!aimz.array<["k"], f32>, !aimz.array<["k"], f32>) -> !aimz.array<["k"], f32>
    %bb = aimz.broadcast %beta [1] : <["k"], f32> -> <["n", "k"], f32>
    %mu = aimz.matmul %x, %bb batch 1 : <["n", "k"], f32>, <["n", "k"], f32> -> <["n"], f32>
    %e = aimz.unary tanh %mu : <["n"], f32> -> <["n"], f32>
    %l = aimz.unary log1p %e : <["n"], f32> -> <["n"], f32>
    %d = aimz.deterministic "l" = %l {plates = ["obs"], site_id = 1 : i64} : <["n"], f32> -> <["n"], f32>
    %sn = aimz.broadcast %one [] : <[], f32> -> <["n"], f32>
    %y = aimz.observe "y" = "Normal"(%mu, %sn) {param_names = ["loc", "scale"], plates = ["obs"], site_id = 2 : i64} : (!aimz.array<["n"], f32>, !aimz.array<["n"], f32>) -> !aimz.array<["n"], f32>
  }
}
