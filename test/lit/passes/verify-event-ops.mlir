// The new ops parse and print back (aimz.stack, aimz.cholesky, aimz.cumsum,
// aimz.reduce with axis, composite distributions), and their verifiers
// reject malformed forms.
// RUN: not aimz-opt --split-input-file %s 2>&1 | FileCheck %s --check-prefix=OK
// RUN: aimz-opt --split-input-file --verify-diagnostics %s

// OK-LABEL: aimz.model @good
// OK: aimz.stack %{{.*}}, %{{.*}} axis 0 : !aimz.array<[], f32>, !aimz.array<[], f32> -> <[2], f32>
// OK: aimz.cholesky %{{.*}} batch 0 : <[2, 2], f32> -> <[2, 2], f32>
// OK: aimz.cumsum %{{.*}} axis 1 : <[2, 2], f32> -> <[2, 2], f32>
// OK: aimz.reduce sum %{{.*}} batch 0 axis 0 : <[2, 2], f32> -> <[2], f32>
// OK: aimz.sample "m" = "MixtureSameFamily(Normal)"
aimz.model @good attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.constant 1.0 : f32 -> <[], f32>
  %1 = aimz.stack %0, %0 axis 0 : !aimz.array<[], f32>, !aimz.array<[], f32> -> <[2], f32>
  %2 = aimz.stack %1, %1 axis 0 : !aimz.array<[2], f32>, !aimz.array<[2], f32> -> <[2, 2], f32>
  %3 = aimz.cholesky %2 batch 0 : <[2, 2], f32> -> <[2, 2], f32>
  %4 = aimz.cumsum %3 axis 1 : <[2, 2], f32> -> <[2, 2], f32>
  %5 = aimz.reduce sum %4 batch 0 axis 0 : <[2, 2], f32> -> <[2], f32>
  %6 = aimz.sample "m" = "MixtureSameFamily(Normal)"(%1, %1, %1) {param_names = ["logits", "loc", "scale"], plates = [], site_class = "global", site_id = 0 : i64} : (!aimz.array<[2], f32>, !aimz.array<[2], f32>, !aimz.array<[2], f32>) -> !aimz.array<[], f32>
}

// -----

aimz.model @stack_count attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.constant 1.0 : f32 -> <[], f32>
  // expected-error @+1 {{the stacked dim must equal the number of elements}}
  %1 = aimz.stack %0, %0 axis 0 : !aimz.array<[], f32>, !aimz.array<[], f32> -> <[3], f32>
}

// -----

aimz.model @cholesky_square attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "a"[0] : <[2, 3], f32>
  // expected-error @+1 {{the matrices must be square}}
  %1 = aimz.cholesky %0 batch 0 : <[2, 3], f32> -> <[2, 3], f32>
}

// -----

aimz.model @cumsum_axis attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "a"[0] : <[2, 3], f32>
  // expected-error @+1 {{axis must be a dim of the input}}
  %1 = aimz.cumsum %0 axis 2 : <[2, 3], f32> -> <[2, 3], f32>
}

// -----

aimz.model @reduce_axis attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "a"[0] : <[2, 3], f32>
  // expected-error @+1 {{the result must have the input's dims without axis}}
  %1 = aimz.reduce sum %0 batch 0 axis 1 : <[2, 3], f32> -> <[3], f32>
}

// -----

aimz.model @unknown_dist attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.constant 1.0 : f32 -> <[], f32>
  // expected-error @+1 {{unknown distribution 'MixtureSameFamily(Dirichlet)'}}
  %1 = aimz.sample "m" = "MixtureSameFamily(Dirichlet)"(%0, %0) {param_names = ["logits", "concentration"], plates = [], site_class = "global", site_id = 0 : i64} : (!aimz.array<[], f32>, !aimz.array<[], f32>) -> !aimz.array<[], f32>
}
