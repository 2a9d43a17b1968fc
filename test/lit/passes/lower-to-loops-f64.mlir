// An f64 model calls the f64 support functions; discrete outputs are drawn
// as i32 whatever the precision; binomial and bernoulli variants follow the
// parameter names (probs / logits); a gather of a group effect lowers to a
// loop (with its range check) inside the observation loop.
// RUN: aimz-opt --aimz-lower-to-loops %s | FileCheck %s

// CHECK-DAG: func.func private @aimz_rt_sample_rows_normal_f64(i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64)
// CHECK-DAG: func.func private @aimz_rt_sample_row_binomial_logits_f64(i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64)
// CHECK-DAG: func.func private @aimz_rt_logp_binomial_logits_f64(f64, f64, f64, f64, f64, f64) -> f64
// CHECK-DAG: func.func private @aimz_rt_sample_row_bernoulli_probs_f64(i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64)
// CHECK-NOT: _f32(

// CHECK-LABEL: func.func @aimz_predict(%{{.*}}: !llvm.ptr) -> i32
// CHECK: scf.for
// CHECK: call @aimz_rt_sample_rows_normal_f64(
// CHECK: scf.for
// CHECK: call @aimz_rt_sample_row_bernoulli_probs_f64(
// CHECK: call @aimz_rt_sample_row_binomial_logits_f64(
// CHECK-LABEL: func.func @aimz_log_likelihood(%{{.*}}: !llvm.ptr) -> i32
// CHECK: call @aimz_rt_logp_binomial_logits_f64(
// The prior predictive runs the predictive kernel with no posterior.
// CHECK-LABEL: func.func @aimz_prior_predictive(%{{.*}}: !llvm.ptr) -> i32
// CHECK: call @aimz_predict(

module {
  aimz.model @groups attributes {manifest = "{}", obs_dim = "n", plan = "draw", symbols = ["n"]} {
    %g = aimz.input "g"[0] : <["n"], i32>
    %t = aimz.input "t"[1] : <["n"], f64>
    %zero = aimz.constant 0.000000e+00 : f64 -> <[], f64>
    %one = aimz.constant 1.000000e+00 : f64 -> <[], f64>
    %half = aimz.constant 5.000000e-01 : f64 -> <[], f64>
    %z5 = aimz.broadcast %zero [] : <[], f64> -> <[5], f64>
    %o5 = aimz.broadcast %one [] : <[], f64> -> <[5], f64>
    %a = aimz.sample "a" = "Normal"(%z5, %o5) {param_names = ["loc", "scale"], plates = ["groups"], site_class = "global", site_id = 0 : i64} : (!aimz.array<[5], f64>, !aimz.array<[5], f64>) -> !aimz.array<[5], f64>
    %an = aimz.broadcast %a [1] : <[5], f64> -> <["n", 5], f64>
    %ag = aimz.gather %an[%g] batch 1 : <["n", 5], f64>, !aimz.array<["n"], i32> -> <["n"], f64>
    %hn = aimz.broadcast %half [] : <[], f64> -> <["n"], f64>
    %sw = aimz.sample "switch" = "Bernoulli"(%hn) {param_names = ["probs"], plates = ["obs"], site_class = "obs_aligned", site_id = 1 : i64} : (!aimz.array<["n"], f64>) -> !aimz.array<["n"], i32>
    %y = aimz.observe "y" = "Binomial"(%t, %ag) {param_names = ["total_count", "logits"], plates = ["obs"], site_id = 2 : i64} : (!aimz.array<["n"], f64>, !aimz.array<["n"], f64>) -> !aimz.array<["n"], i32>
  }
}
