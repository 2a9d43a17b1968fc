// The verifier of aimz.log_prob: a distribution the runtime has, a name
// per parameter, and every operand of the result's dims (a vector
// distribution's operands lead with them and end in their event axes).
// RUN: aimz-opt --split-input-file --verify-diagnostics %s

aimz.model @unknown attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : <["n"], f32>
  // expected-error @+1 {{unknown distribution 'Gaussian'}}
  %l = aimz.log_prob "Gaussian"(%x, %x) at %x {param_names = ["loc", "scale"]} : (!aimz.array<["n"], f32>, !aimz.array<["n"], f32>), <["n"], f32> -> <["n"], f32>
}

// -----

aimz.model @event attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : <["n", 3], f32>
  %ok = aimz.log_prob "Dirichlet"(%x) at %x {param_names = ["concentration"]} : (!aimz.array<["n", 3], f32>), <["n", 3], f32> -> <["n"], f32>
  // expected-error @+1 {{the value must have the result's dims}}
  %l = aimz.log_prob "Dirichlet"(%x) at %x {param_names = ["concentration"]} : (!aimz.array<["n", 3], f32>), <["n", 3], f32> -> <["n", 4], f32>
}

// -----

aimz.model @dims attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : <["n"], f32>
  %c = aimz.input "c" [1] : <[], f32>
  // expected-error @+1 {{every parameter must have the result's dims and element type}}
  %l = aimz.log_prob "Normal"(%x, %c) at %x {param_names = ["loc", "scale"]} : (!aimz.array<["n"], f32>, !aimz.array<[], f32>), <["n"], f32> -> <["n"], f32>
}

// -----

aimz.model @names attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : <["n"], f32>
  // expected-error @+1 {{needs one name per parameter}}
  %l = aimz.log_prob "Normal"(%x, %x) at %x {param_names = ["loc"]} : (!aimz.array<["n"], f32>, !aimz.array<["n"], f32>), <["n"], f32> -> <["n"], f32>
}
