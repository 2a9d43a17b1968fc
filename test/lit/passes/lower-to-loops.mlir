// aimz-lower-to-loops turns the model into the three C entry points of
// abi.h, each `i32 (ptr)`, with loops over draws and observation blocks and
// calls into the support library: samplers (i64 x 5 addresses, then the
// parameters; a whole row at a time for the vectorizable ones, such as
// Normal and Poisson, out of line (sample_rows) for a global site's rows)
// for latents and for the output when predicting, the output's
// log density for the log-likelihood, and matrix products. The model op is
// gone; the manifest stays on the module.
// RUN: aimz-opt --aimz-lower-to-loops %s | FileCheck %s
// RUN: aimz-opt --aimz-lower-to-loops %s | aimz-opt | FileCheck %s

// CHECK: module attributes {aimz.manifest = "{\22model\22:\22counts\22}"}
// CHECK-NOT: aimz.model
// CHECK-DAG: func.func private @aimz_rt_sample_rows_normal_f32(i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64)
// CHECK-DAG: func.func private @aimz_rt_sample_row_poisson_f32(i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64)
// CHECK-DAG: func.func private @aimz_rt_logp_poisson_f32(f32, f32, f32, f32, f32, f32) -> f32
// CHECK-DAG: func.func private @aimz_rt_pack_row_tiles_f32(i64, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr)
// CHECK-DAG: func.func private @aimz_rt_row_tiles_times_vector_f32(i64, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64)

// Posterior predictive: the input X packed once per call (X @ beta with X
// an input), beta from the posterior or drawn, then per block the product,
// and the output drawn (never scored).
// CHECK-LABEL: func.func @aimz_predict(%{{.*}}: !llvm.ptr) -> i32
// CHECK: call @aimz_rt_pack_row_tiles_f32(
// CHECK: scf.for
// CHECK: call @aimz_rt_sample_rows_normal_f32(
// CHECK: scf.for
// CHECK: call @aimz_rt_row_tiles_times_vector_f32(
// CHECK: call @aimz_rt_sample_row_poisson_f32(
// CHECK-NOT: call @aimz_rt_logp_
// CHECK: return

// Log-likelihood: the output is scored, not drawn.
// CHECK-LABEL: func.func @aimz_log_likelihood(%{{.*}}: !llvm.ptr) -> i32
// CHECK: call @aimz_rt_pack_row_tiles_f32(
// CHECK: scf.for
// CHECK: scf.for
// CHECK: call @aimz_rt_row_tiles_times_vector_f32(
// CHECK: call @aimz_rt_logp_poisson_f32(
// CHECK-NOT: call @aimz_rt_sample_row_poisson_f32(
// CHECK: return

// Prior predictive: the posterior predictive on a copy of the call whose
// posterior table (one NULL view per site) is all zero; scratch_needed is
// copied back to the caller's struct.
// CHECK-LABEL: func.func @aimz_prior_predictive(
// CHECK-SAME: %[[CALL:[^:]*]]: !llvm.ptr) -> i32
// CHECK: %[[COPY:.*]] = llvm.alloca %{{.*}} x i64
// CHECK: "llvm.intr.memcpy"(%[[COPY]], %[[CALL]], %{{.*}})
// CHECK: %[[TABLE:.*]] = llvm.alloca %{{.*}} x i64
// CHECK: "llvm.intr.memset"(%[[TABLE]], %{{.*}}, %{{.*}})
// CHECK: llvm.store %[[TABLE]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: %[[R:.*]] = call @aimz_predict(%[[COPY]])
// CHECK: llvm.store %{{.*}}, %{{.*}} : i64, !llvm.ptr
// CHECK: return %[[R]]
// CHECK-NOT: aimz.sample
// CHECK-NOT: aimz.observe

module {
  aimz.model @counts attributes {manifest = "{\22model\22:\22counts\22}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
    %x = aimz.input "X"[0] : <["n", "k"], f32>
    %zero = aimz.constant 0.000000e+00 : f32 -> <[], f32>
    %one = aimz.constant 1.000000e+00 : f32 -> <[], f32>
    %zk = aimz.broadcast %zero [] : <[], f32> -> <["k"], f32>
    %ok = aimz.broadcast %one [] : <[], f32> -> <["k"], f32>
    %beta = aimz.sample "beta" = "Normal"(%zk, %ok) {param_names = ["loc", "scale"], plates = [], site_class = "global", site_id = 0 : i64} : (!aimz.array<["k"], f32>, !aimz.array<["k"], f32>) -> !aimz.array<["k"], f32>
    %bb = aimz.broadcast %beta [1] : <["k"], f32> -> <["n", "k"], f32>
    %eta = aimz.matmul %x, %bb batch 1 : <["n", "k"], f32>, <["n", "k"], f32> -> <["n"], f32>
    %rate = aimz.unary exp %eta : <["n"], f32> -> <["n"], f32>
    %d = aimz.deterministic "rate" = %rate {plates = ["obs"], site_id = 1 : i64} : <["n"], f32> -> <["n"], f32>
    %y = aimz.observe "y" = "Poisson"(%rate) {param_names = ["rate"], plates = ["obs"], site_id = 2 : i64} : (!aimz.array<["n"], f32>) -> !aimz.array<["n"], i32>
  }
}
