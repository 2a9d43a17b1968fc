// Work no requested site needs is not done. In the posterior predictive an
// op runs only when a site it feeds is asked for (results[site] given):
// x + a[g] feeds eta (site 1) and y (site 3), exp only eta, log only logx
// (site 2). The gather always runs (it reports indices out of range), and
// so does the latent a that it reads. The log-likelihood records no
// deterministic: exp and log are not emitted there at all.
// RUN: aimz-opt --aimz-lower-to-loops %s | FileCheck %s

// CHECK-LABEL: func.func @aimz_predict(
// The gather's range check is not behind a test of requested sites.
// CHECK: arith.cmpi slt
// CHECK: %[[BAD:.*]] = arith.ori
// CHECK-NEXT: scf.if %[[BAD]] {
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr
// x + a[g]: results[1] or results[3] (slots 2 and 6 of the table).
// CHECK: %[[T1:.*]] = llvm.getelementptr %{{.*}}[%c2_i64{{[_0-9]*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK: %[[P1:.*]] = llvm.load %[[T1]]
// CHECK: %[[W1:.*]] = llvm.icmp "ne" %[[P1]],
// CHECK: %[[T3:.*]] = llvm.getelementptr %{{.*}}[%c6_i64{{[_0-9]*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK: %[[P3:.*]] = llvm.load %[[T3]]
// CHECK: %[[W3:.*]] = llvm.icmp "ne" %[[P3]],
// CHECK: %[[EITHER:.*]] = arith.ori %[[W1]], %[[W3]] : i1
// CHECK: scf.if %[[EITHER]] {
// CHECK: scf.for
// CHECK: arith.addf
// exp(x + a[g]): results[1] only.
// CHECK: %[[T1B:.*]] = llvm.getelementptr %{{.*}}[%c2_i64{{[_0-9]*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK: %[[P1B:.*]] = llvm.load %[[T1B]]
// CHECK: %[[W1B:.*]] = llvm.icmp "ne" %[[P1B]],
// CHECK-NOT: arith.ori
// CHECK: scf.if %[[W1B]] {
// CHECK: scf.for
// CHECK: call @aimz_rt_exp_f32(
// log(x): results[2] only.
// CHECK: %[[T2:.*]] = llvm.getelementptr %{{.*}}[%c4_i64{{[_0-9]*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK: %[[P2:.*]] = llvm.load %[[T2]]
// CHECK: %[[W2:.*]] = llvm.icmp "ne" %[[P2]],
// CHECK-NOT: arith.ori
// CHECK: scf.if %[[W2]] {
// CHECK: scf.for
// CHECK: call @aimz_rt_log_f32(
// CHECK: call @aimz_rt_sample_row_normal_f32(
// CHECK: return

// CHECK-LABEL: func.func @aimz_log_likelihood(
// CHECK-NOT: call @aimz_rt_exp_f32(
// CHECK-NOT: call @aimz_rt_log_f32(
// CHECK: call @aimz_rt_logp_normal_f32(
// CHECK-NOT: call @aimz_rt_exp_f32(
// CHECK-NOT: call @aimz_rt_log_f32(
// CHECK: return
// CHECK-LABEL: func.func @aimz_prior_predictive(

module {
  aimz.model @demand attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
    %x = aimz.input "x"[0] : <["n"], f32>
    %g = aimz.input "g"[1] : <["n"], i32>
    %zero = aimz.constant 0.000000e+00 : f32 -> <[], f32>
    %one = aimz.constant 1.000000e+00 : f32 -> <[], f32>
    %z4 = aimz.broadcast %zero [] : <[], f32> -> <[4], f32>
    %o4 = aimz.broadcast %one [] : <[], f32> -> <[4], f32>
    %a = aimz.sample "a" = "Normal"(%z4, %o4) {param_names = ["loc", "scale"], plates = ["groups"], site_class = "global", site_id = 0 : i64} : (!aimz.array<[4], f32>, !aimz.array<[4], f32>) -> !aimz.array<[4], f32>
    %an = aimz.broadcast %a [1] : <[4], f32> -> <["n", 4], f32>
    %ag = aimz.gather %an[%g] batch 1 : <["n", 4], f32>, !aimz.array<["n"], i32> -> <["n"], f32>
    %s = aimz.binary add %x, %ag : <["n"], f32>, <["n"], f32> -> <["n"], f32>
    %e = aimz.unary exp %s : <["n"], f32> -> <["n"], f32>
    %d = aimz.deterministic "eta" = %e {plates = ["obs"], site_id = 1 : i64} : <["n"], f32> -> <["n"], f32>
    %l = aimz.unary log %x : <["n"], f32> -> <["n"], f32>
    %dl = aimz.deterministic "logx" = %l {plates = ["obs"], site_id = 2 : i64} : <["n"], f32> -> <["n"], f32>
    %sn = aimz.broadcast %one [] : <[], f32> -> <["n"], f32>
    %y = aimz.observe "y" = "Normal"(%s, %sn) {param_names = ["loc", "scale"], plates = ["obs"], site_id = 3 : i64} : (!aimz.array<["n"], f32>, !aimz.array<["n"], f32>) -> !aimz.array<["n"], f32>
  }
}
