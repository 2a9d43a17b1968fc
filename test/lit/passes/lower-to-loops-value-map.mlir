// A value map on an output: the log-likelihood scores the base's density
// at the inverse (here log y, then (x - loc) / scale backwards through
// the affine map) plus the inverse's log Jacobian, -inf where y is outside
// the map's range; predict draws the base and maps each draw forward.
// RUN: aimz-opt --aimz-lower-to-loops %s | FileCheck %s

// CHECK-LABEL: func.func @aimz_predict
// CHECK: func.call @aimz_rt_sample_row_gamma_f64
// CHECK: %[[M:.*]] = arith.mulf
// CHECK: %[[A:.*]] = arith.addf %{{.*}}, %[[M]]
// CHECK: func.call @aimz_rt_exp_f64(%[[A]])
// CHECK-LABEL: func.func @aimz_log_likelihood
// CHECK: %[[OUT:.*]] = arith.cmpf ole, %[[Y:.*]], %{{.*}} : f64
// CHECK: %[[OUTSIDE:.*]] = arith.ori %false, %[[OUT]]
// CHECK: %[[LOG:.*]] = func.call @aimz_rt_log_f64(%[[Y]])
// CHECK: %[[J1:.*]] = arith.negf %[[LOG]]
// CHECK: %[[SHIFT:.*]] = arith.subf %[[LOG]]
// CHECK: %[[X:.*]] = arith.divf %[[SHIFT]]
// CHECK: %[[L:.*]] = func.call @aimz_rt_logp_gamma_f64(%[[X]],
// CHECK: %[[SUM:.*]] = arith.addf %[[L]]
// CHECK: arith.select %[[OUTSIDE]], %{{.*}}, %[[SUM]]
aimz.model @mapped attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : <["n"], f64>
  %y = aimz.observe "y" = "Gamma"(%x, %x, %x, %x) {param_names = ["concentration", "rate", "affine.loc", "affine.scale"], plates = ["obs"], site_id = 0 : i64, value_map = ["affine", "exp"]} : (!aimz.array<["n"], f64>, !aimz.array<["n"], f64>, !aimz.array<["n"], f64>, !aimz.array<["n"], f64>) -> !aimz.array<["n"], f64>
}
