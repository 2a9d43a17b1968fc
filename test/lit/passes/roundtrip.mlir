// Every aimz op parses, verifies and prints back in its custom form, also
// through the generic form; the printed form parses again.
// RUN: aimz-opt %s | FileCheck %s
// RUN: aimz-opt %s | aimz-opt | FileCheck %s
// RUN: aimz-opt --mlir-print-op-generic %s | aimz-opt | FileCheck %s
// RUN: aimz-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: aimz.model @every_op
// CHECK-SAME: manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]
// CHECK: %[[X:.*]] = aimz.input "X"[0] : <["n", "k"], f32>
// CHECK: %[[G:.*]] = aimz.input "g"[1] : <["n"], i32>
// CHECK: %[[ZERO:.*]] = aimz.constant 0.000000e+00 : f32 -> <[], f32>
// CHECK: %[[ONE:.*]] = aimz.constant 1.000000e+00 : f32 -> <[], f32>
// CHECK: %[[ZK:.*]] = aimz.broadcast %[[ZERO]] [] : <[], f32> -> <["k"], f32>
// CHECK: %[[OK:.*]] = aimz.broadcast %[[ONE]] [] : <[], f32> -> <["k"], f32>
// CHECK: %[[BETA:.*]] = aimz.sample "beta" = "Normal"(%[[ZK]], %[[OK]]) {param_names = ["loc", "scale"], plates = [], site_class = "global", site_id = 0 : i64} : (!aimz.array<["k"], f32>, !aimz.array<["k"], f32>) -> !aimz.array<["k"], f32>
// CHECK: %[[A:.*]] = aimz.sample "a" = "Normal"({{.*}}) {{{.*}}plates = ["groups"]{{.*}}site_id = 1 : i64} : ({{.*}}) -> !aimz.array<[4], f32>
// CHECK: %[[BB:.*]] = aimz.broadcast %[[BETA]] [1] : <["k"], f32> -> <["n", "k"], f32>
// CHECK: %[[MU:.*]] = aimz.matmul %[[X]], %[[BB]] batch 1 : <["n", "k"], f32>, <["n", "k"], f32> -> <["n"], f32>
// CHECK: %[[AN:.*]] = aimz.broadcast %[[A]] [1] : <[4], f32> -> <["n", 4], f32>
// CHECK: %[[AG:.*]] = aimz.gather %[[AN]][%[[G]]] batch 1 : <["n", 4], f32>, !aimz.array<["n"], i32> -> <["n"], f32>
// CHECK: %[[S:.*]] = aimz.binary add %[[MU]], %[[AG]] : <["n"], f32>, <["n"], f32> -> <["n"], f32>
// CHECK: %[[E:.*]] = aimz.unary exp %[[S]] : <["n"], f32> -> <["n"], f32>
// CHECK: aimz.cast %[[G]] : <["n"], i32> -> <["n"], f32>
// CHECK: aimz.reduce sum %[[X]] batch 1 : <["n", "k"], f32> -> <["n"], f32>
// CHECK: aimz.deterministic "eta" = %[[E]] {plates = ["obs"], site_id = 2 : i64} : <["n"], f32> -> <["n"], f32>
// CHECK: %[[SN:.*]] = aimz.broadcast %[[ONE]] [] : <[], f32> -> <["n"], f32>
// CHECK: aimz.observe "y" = "Normal"(%[[S]], %[[SN]]) {param_names = ["loc", "scale"], plates = ["obs"], site_id = 3 : i64} : (!aimz.array<["n"], f32>, !aimz.array<["n"], f32>) -> !aimz.array<["n"], f32>

// GENERIC: "aimz.model"()
// GENERIC-SAME: sym_name = "every_op"
// GENERIC: "aimz.input"() <{index = 0 : i64, name = "X", observed = false}> : () -> !aimz.array<["n", "k"], f32>
// GENERIC: "aimz.broadcast"(%{{.*}}) <{dim_map = array<i64: 1>}>
// GENERIC: "aimz.matmul"(%{{.*}}, %{{.*}}) <{batch_rank = 1 : i64}>
// GENERIC: "aimz.gather"(%{{.*}}, %{{.*}}) <{batch_rank = 1 : i64}>
// GENERIC: "aimz.observe"

module {
  aimz.model @every_op attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
    %x = aimz.input "X"[0] : <["n", "k"], f32>
    %g = aimz.input "g"[1] : <["n"], i32>
    %zero = aimz.constant 0.000000e+00 : f32 -> <[], f32>
    %one = aimz.constant 1.000000e+00 : f32 -> <[], f32>
    %zk = aimz.broadcast %zero [] : <[], f32> -> <["k"], f32>
    %ok = aimz.broadcast %one [] : <[], f32> -> <["k"], f32>
    %beta = aimz.sample "beta" = "Normal"(%zk, %ok) {param_names = ["loc", "scale"], plates = [], site_class = "global", site_id = 0 : i64} : (!aimz.array<["k"], f32>, !aimz.array<["k"], f32>) -> !aimz.array<["k"], f32>
    %z4 = aimz.broadcast %zero [] : <[], f32> -> <[4], f32>
    %o4 = aimz.broadcast %one [] : <[], f32> -> <[4], f32>
    %a = aimz.sample "a" = "Normal"(%z4, %o4) {param_names = ["loc", "scale"], plates = ["groups"], site_class = "global", site_id = 1 : i64} : (!aimz.array<[4], f32>, !aimz.array<[4], f32>) -> !aimz.array<[4], f32>
    %bb = aimz.broadcast %beta [1] : <["k"], f32> -> <["n", "k"], f32>
    %mu = aimz.matmul %x, %bb batch 1 : <["n", "k"], f32>, <["n", "k"], f32> -> <["n"], f32>
    %an = aimz.broadcast %a [1] : <[4], f32> -> <["n", 4], f32>
    %ag = aimz.gather %an[%g] batch 1 : <["n", 4], f32>, !aimz.array<["n"], i32> -> <["n"], f32>
    %s = aimz.binary add %mu, %ag : <["n"], f32>, <["n"], f32> -> <["n"], f32>
    %e = aimz.unary exp %s : <["n"], f32> -> <["n"], f32>
    %gf = aimz.cast %g : <["n"], i32> -> <["n"], f32>
    %sum = aimz.reduce sum %x batch 1 : <["n", "k"], f32> -> <["n"], f32>
    %d = aimz.deterministic "eta" = %e {plates = ["obs"], site_id = 2 : i64} : <["n"], f32> -> <["n"], f32>
    %sn = aimz.broadcast %one [] : <[], f32> -> <["n"], f32>
    %y = aimz.observe "y" = "Normal"(%s, %sn) {param_names = ["loc", "scale"], plates = ["obs"], site_id = 3 : i64} : (!aimz.array<["n"], f32>, !aimz.array<["n"], f32>) -> !aimz.array<["n"], f32>
  }
}
