// aimz.log_prob is a loop over its elements calling the support library's
// log density (the value converted to the parameters' precision), the
// same function the output's log-likelihood calls.
// RUN: aimz-opt --aimz-lower-to-loops %s | FileCheck %s

// CHECK-LABEL: func.func @aimz_log_likelihood
// CHECK: scf.for
// CHECK: %[[V:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK: func.call @aimz_rt_logp_poisson_f32(%[[V]], %{{.*}}) : (f32, f32
aimz.model @terms attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : <["n"], f32>
  %c = aimz.input "c" [1] : <["n"], i32>
  %r = aimz.unary exp %x : <["n"], f32> -> <["n"], f32>
  %l = aimz.log_prob "Poisson"(%r) at %c {param_names = ["rate"]} : (!aimz.array<["n"], f32>), <["n"], i32> -> <["n"], f32>
  %f = aimz.factor "counts" = %l {plates = ["obs"], site_id = 0 : i64} : <["n"], f32> -> <["n"], f32>
}
