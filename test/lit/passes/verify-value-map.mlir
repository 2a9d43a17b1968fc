// The verifier of a value map (a TransformedDistribution's transforms, on
// aimz.sample, aimz.observe and aimz.log_prob): words of
// ValueTransforms.def, each with its operands after the base's, over a
// continuous distribution of numbers, and no CDF.
// RUN: aimz-opt --split-input-file --verify-diagnostics %s

aimz.model @unknown attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : <["n"], f32>
  // expected-error @+1 {{value_map needs transforms of the table (affine, exp, power, sigmoid, softplus), each with its operands}}
  %s = aimz.observe "y" = "Normal"(%x, %x) {param_names = ["loc", "scale"], plates = ["obs"], site_id = 0 : i64, value_map = ["tanh"]} : (!aimz.array<["n"], f32>, !aimz.array<["n"], f32>) -> !aimz.array<["n"], f32>
}

// -----

aimz.model @operands attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : <["n"], f32>
  // expected-error @+1 {{value_map needs transforms of the table}}
  %s = aimz.observe "y" = "Normal"(%x) {param_names = ["loc"], plates = ["obs"], site_id = 0 : i64, value_map = ["affine"]} : (!aimz.array<["n"], f32>) -> !aimz.array<["n"], f32>
}

// -----

aimz.model @ok attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : <["n"], f32>
  %s = aimz.observe "y" = "Normal"(%x, %x, %x, %x) {param_names = ["loc", "scale", "affine.loc", "affine.scale"], plates = ["obs"], site_id = 0 : i64, value_map = ["exp", "affine"]} : (!aimz.array<["n"], f32>, !aimz.array<["n"], f32>, !aimz.array<["n"], f32>, !aimz.array<["n"], f32>) -> !aimz.array<["n"], f32>
}

// -----

aimz.model @counts attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : <["n"], f32>
  // expected-error @+1 {{a value map needs a continuous distribution of numbers; 'Poisson' is not one}}
  %s = aimz.observe "y" = "Poisson"(%x) {param_names = ["rate"], plates = ["obs"], site_id = 0 : i64, value_map = ["exp"]} : (!aimz.array<["n"], f32>) -> !aimz.array<["n"], i32>
}

// -----

aimz.model @vector attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %c = aimz.input "c" [0] : <[3], f32>
  // expected-error @+1 {{a value map needs a continuous distribution of numbers; 'Dirichlet' is not one}}
  %s = aimz.sample "p" = "Dirichlet"(%c) {param_names = ["concentration"], plates = [], site_class = "global", site_id = 0 : i64, value_map = ["exp"]} : (!aimz.array<[3], f32>) -> !aimz.array<[3], f32>
}

// -----

aimz.model @cdf attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : <["n"], f32>
  // expected-error @+1 {{a value map has no CDF here}}
  %l = aimz.log_prob "Normal"(%x, %x) at %x {fn = "log_cdf", param_names = ["loc", "scale"], value_map = ["exp"]} : (!aimz.array<["n"], f32>, !aimz.array<["n"], f32>), <["n"], f32> -> <["n"], f32>
}
