// A module with a @prepass model beside the model (transformed data with a
// statistic of an expression, `mean(log(x))`): the pass builds its entry
// point aimz_prepass as it builds aimz_predict (one draw loop, blocks of
// observations, the deterministic rows written to results[slot]), and
// both model ops are gone.
// RUN: aimz-opt --aimz-lower-to-loops %s | FileCheck %s

// CHECK-NOT: aimz.model
// CHECK: func.func @aimz_predict(
// CHECK-NOT: call @aimz_rt_log_f32(
// CHECK: func.func @aimz_log_likelihood(
// CHECK-NOT: call @aimz_rt_log_f32(
// CHECK: func.func @aimz_prepass(%{{.*}}: !llvm.ptr) -> i32
// CHECK: scf.for
// CHECK: scf.for
// CHECK: call @aimz_rt_log_f32(
// CHECK: llvm.store
// CHECK: return
// CHECK: func.func @aimz_prior_predictive(
// CHECK-NOT: aimz.model
module {
  aimz.model @m attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
    %0 = aimz.input "x"[0] : <["n"], f32>
    %1 = aimz.input "mean(log(x))"[1] : <[], f32>
    %2 = aimz.broadcast %1 [] : <[], f32> -> <["n"], f32>
    %3 = aimz.binary sub %0, %2 : <["n"], f32>, <["n"], f32> -> <["n"], f32>
    %4 = aimz.deterministic "xc" = %3 {plates = [], site_id = 0 : i64} : <["n"], f32> -> <["n"], f32>
  }
  aimz.model @prepass attributes {manifest = "", obs_dim = "n", plan = "obs", symbols = ["n"]} {
    %0 = aimz.input "x"[0] : <["n"], f32>
    %1 = aimz.unary log %0 : <["n"], f32> -> <["n"], f32>
    %2 = aimz.deterministic "mean(log(x))" = %1 {plates = [], site_id = 0 : i64} : <["n"], f32> -> <["n"], f32>
  }
}
