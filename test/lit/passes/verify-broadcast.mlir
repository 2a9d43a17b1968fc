// The verifier of aimz.broadcast: dim_map has one entry per operand dim,
// strictly increasing and below the result rank; each operand dim becomes
// an equal result dim unless it is a known 1; the element type is kept.
// RUN: not aimz-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: aimz-opt --split-input-file --verify-diagnostics %s

aimz.model @wrong_map_length attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
  %0 = aimz.input "v"[0] : <["k"], f32>
  // CHECK: error: 'aimz.broadcast' op dim_map has 2 entries for an operand of rank 1
  // expected-error @+1 {{dim_map has 2 entries for an operand of rank 1}}
  %1 = aimz.broadcast %0 [0, 1] : <["k"], f32> -> <["n", "k"], f32>
}

// -----

aimz.model @decreasing_map attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
  %0 = aimz.input "X"[0] : <["k", "k"], f32>
  // CHECK: error: 'aimz.broadcast' op dim_map must increase and stay below the result rank
  // expected-error @+1 {{dim_map must increase and stay below the result rank}}
  %1 = aimz.broadcast %0 [1, 0] : <["k", "k"], f32> -> <["k", "k"], f32>
}

// -----

aimz.model @map_past_rank attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
  %0 = aimz.input "v"[0] : <["k"], f32>
  // CHECK: error: 'aimz.broadcast' op dim_map must increase and stay below the result rank
  // expected-error @+1 {{dim_map must increase and stay below the result rank}}
  %1 = aimz.broadcast %0 [2] : <["k"], f32> -> <["n", "k"], f32>
}

// -----

aimz.model @mismatched_dim attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k", "m"]} {
  %0 = aimz.input "v"[0] : <["k"], f32>
  // CHECK: error: 'aimz.broadcast' op operand dim 0 ("k") cannot become result dim 1 ("m")
  // expected-error @+1 {{operand dim 0 ("k") cannot become result dim 1 ("m")}}
  %1 = aimz.broadcast %0 [1] : <["k"], f32> -> <["n", "m"], f32>
}

// -----

aimz.model @mismatched_extent attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.constant 0.000000e+00 : f32 -> <[], f32>
  %1 = aimz.broadcast %0 [] : <[], f32> -> <[3], f32>
  // CHECK: error: 'aimz.broadcast' op operand dim 0 (3 : i64) cannot become result dim 1 (4 : i64)
  // expected-error @+1 {{operand dim 0 (3 : i64) cannot become result dim 1 (4 : i64)}}
  %2 = aimz.broadcast %1 [1] : <[3], f32> -> <["n", 4], f32>
}

// -----

aimz.model @changes_element_type attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
  %0 = aimz.input "v"[0] : <["k"], f32>
  // CHECK: error: 'aimz.broadcast' op broadcast cannot change the element type
  // expected-error @+1 {{broadcast cannot change the element type}}
  %1 = aimz.broadcast %0 [1] : <["k"], f32> -> <["n", "k"], f64>
}
