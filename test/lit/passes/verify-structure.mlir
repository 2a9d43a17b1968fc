// The verifiers of the structural ops: aimz.model, aimz.constant,
// aimz.cast, aimz.matmul, aimz.gather, aimz.deterministic and aimz.factor
// reject malformed forms with a message naming what is wrong.
// RUN: aimz-opt --split-input-file --verify-diagnostics %s

// expected-error @+1 {{plan must be "obs" or "draw"; got "rows"}}
aimz.model @bad_plan attributes {manifest = "{}", obs_dim = "n", plan = "rows", symbols = ["n"]} {
}

// -----

// expected-error @+1 {{obs_dim 'm' must be one of the symbols}}
aimz.model @bad_obs_dim attributes {manifest = "{}", obs_dim = "m", plan = "obs", symbols = ["n"]} {
}

// -----

aimz.model @constant_rank attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  // expected-error @+1 {{the result must be a scalar (rank 0); broadcast it}}
  %0 = aimz.constant 1.0 : f32 -> <[2], f32>
}

// -----

aimz.model @constant_type attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  // expected-error @+1 {{the value's type 'f64' is not the result's element type 'f32'}}
  %0 = aimz.constant 1.0 : f64 -> <[], f32>
}

// -----

aimz.model @cast_shape attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
  %0 = aimz.input "x"[0] : <["n"], i32>
  // expected-error @+1 {{operand and result shapes differ}}
  %1 = aimz.cast %0 : <["n"], i32> -> <["k"], f32>
}

// -----

aimz.model @matmul_contract attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k", "j"]} {
  %0 = aimz.input "X"[0] : <["n", "k"], f32>
  %1 = aimz.input "b"[1] : <["n", "j"], f32>
  // expected-error @+1 {{the contracted dims differ: "k" and "j"}}
  %2 = aimz.matmul %0, %1 batch 1 : <["n", "k"], f32>, <["n", "j"], f32> -> <["n"], f32>
}

// -----

aimz.model @matmul_result attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
  %0 = aimz.input "W"[0] : <[3, "k"], f32>
  %1 = aimz.input "V"[1] : <["k", 4], f32>
  // expected-error @+1 {{the result's dims must be the batch dims, the left's rows and the right's columns}}
  %2 = aimz.matmul %0, %1 batch 0 : <[3, "k"], f32>, <["k", 4], f32> -> <[4, 3], f32>
}

// -----

aimz.model @matmul_rank attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
  %0 = aimz.input "X"[0] : <["n", "k"], f32>
  // expected-error @+1 {{each operand must be a vector or a matrix after batch_rank dims}}
  %1 = aimz.matmul %0, %0 batch 2 : <["n", "k"], f32>, <["n", "k"], f32> -> <["n", "k"], f32>
}

// -----

aimz.model @gather_index_type attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "a"[0] : <[4], f32>
  %1 = aimz.input "g"[1] : <["n"], f32>
  // expected-error @+1 {{indices must be integers}}
  %2 = aimz.gather %0[%1] batch 0 : <[4], f32>, !aimz.array<["n"], f32> -> <["n"], f32>
}

// -----

aimz.model @gather_index_shape attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "m"]} {
  %0 = aimz.input "a"[0] : <[4], f32>
  %1 = aimz.input "g"[1] : <["m"], i32>
  // expected-error @+1 {{every index must have the result's leading (batch and index) dims}}
  %2 = aimz.gather %0[%1] batch 0 : <[4], f32>, !aimz.array<["m"], i32> -> <["n"], f32>
}

// -----

aimz.model @deterministic_type attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "x"[0] : <["n"], f32>
  // expected-error @+1 {{the result must have the value's type}}
  %1 = aimz.deterministic "d" = %0 {plates = [], site_id = 0 : i64} : <["n"], f32> -> <["n"], f64>
}

// -----

aimz.model @factor_int attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "x"[0] : <["n"], i32>
  // expected-error @+1 {{a log-density term must be floating point}}
  %1 = aimz.factor "t" = %0 {plates = [], site_id = 0 : i64} : <["n"], i32> -> <["n"], i32>
}
