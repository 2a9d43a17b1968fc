// The verifiers of aimz.slice, aimz.transpose and aimz.dim: starts are
// integers or dimensions of the model, the observation axis is never cut,
// a transpose is a permutation, a dimension's arithmetic uses its symbols.
// RUN: aimz-opt --split-input-file --verify-diagnostics %s

aimz.model @slice_obs attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "K"]} {
  %x = aimz.input "x" [0] : <["n", "K"], f32>
  // expected-error @+1 {{the observation axis cannot be cut}}
  %s = aimz.slice %x starts [1, 0] dropped [false, false] : <["n", "K"], f32> -> <["n - 1", "K"], f32>
}

// -----

aimz.model @slice_start attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "K"]} {
  %x = aimz.input "x" [0] : <["n", "K"], f32>
  // expected-error @+1 {{start 1 must be a non-negative integer or a dimension}}
  %s = aimz.slice %x starts [0, "Q - 1"] dropped [false, true] : <["n", "K"], f32> -> <["n"], f32>
}

// -----

aimz.model @slice_rank attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "K"]} {
  %x = aimz.input "x" [0] : <["n", "K"], f32>
  // expected-error @+1 {{the result must have one dim per kept operand dim}}
  %s = aimz.slice %x starts [0, 0] dropped [false, true] : <["n", "K"], f32> -> <["n", "K"], f32>
}

// -----

aimz.model @transpose_perm attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "K"]} {
  %x = aimz.input "x" [0] : <["K", "K"], f32>
  // expected-error @+1 {{permutation must list every dim once}}
  %t = aimz.transpose %x [0, 0] : <["K", "K"], f32> -> <["K", "K"], f32>
}

// -----

aimz.model @dim_obs attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "K"]} {
  // expected-error @+1 {{'n - 1' is not a dimension of the model}}
  %d = aimz.dim "n - 1" : <[], i64>
}
