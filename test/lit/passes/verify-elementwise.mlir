// The verifiers of aimz.unary, aimz.binary and aimz.select: known function
// names (an enum attribute from AimzEnums.td: the parser lists them), equal
// shapes (operands are broadcast explicitly before), equal element types.
// RUN: not aimz-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: aimz-opt --split-input-file --verify-diagnostics %s

aimz.model @unknown_unary attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "x"[0] : <["n"], f32>
  // CHECK: error: custom op 'aimz.unary' expected string or keyword containing one of the following enum values for attribute 'fn' [neg, exp,{{.*}}, square, tan,{{.*}}, Phi_approx]
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'fn'}}
  %1 = aimz.unary cosine %0 : <["n"], f32> -> <["n"], f32>
}

// -----

// The generic form bypasses the parser; the attribute's constraint holds.
aimz.model @unknown_unary_generic attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "x"[0] : <["n"], f32>
  // CHECK: error: 'aimz.unary' op attribute 'fn' failed to satisfy constraint: elementwise function
  // expected-error @+1 {{attribute 'fn' failed to satisfy constraint: elementwise function}}
  %1 = "aimz.unary"(%0) {fn = 99 : i32} : (!aimz.array<["n"], f32>) -> !aimz.array<["n"], f32>
}

// -----

aimz.model @unary_shape attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
  %0 = aimz.input "x"[0] : <["n"], f32>
  // CHECK: error: 'aimz.unary' op operand and result shapes differ
  // expected-error @+1 {{operand and result shapes differ}}
  %1 = aimz.unary exp %0 : <["n"], f32> -> <["k"], f32>
}

// -----

aimz.model @unknown_binary attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "x"[0] : <["n"], f32>
  // CHECK: error: custom op 'aimz.binary' expected string or keyword containing one of the following enum values for attribute 'fn' [add, sub,{{.*}}, lchoose, atan2,{{.*}}, log_inv_logit_diff, owens_t, log_bessel_i, ive, iv]
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'fn'}}
  %1 = aimz.binary mod %0, %0 : <["n"], f32>, <["n"], f32> -> <["n"], f32>
}

// -----

aimz.model @binary_implicit_broadcast attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "x"[0] : <["n"], f32>
  %1 = aimz.constant 1.000000e+00 : f32 -> <[], f32>
  // CHECK: error: 'aimz.binary' op operands and result must have the same shape
  // expected-error @+1 {{operands and result must have the same shape}}
  %2 = aimz.binary add %0, %1 : <["n"], f32>, <[], f32> -> <["n"], f32>
}

// -----

aimz.model @binary_result_shape attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n", "k"]} {
  %0 = aimz.input "x"[0] : <["n"], f32>
  // CHECK: error: 'aimz.binary' op operands and result must have the same shape
  // expected-error @+1 {{operands and result must have the same shape}}
  %1 = aimz.binary mul %0, %0 : <["n"], f32>, <["n"], f32> -> <["n", "k"], f32>
}

// -----

aimz.model @binary_element_types attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "x"[0] : <["n"], f32>
  %1 = aimz.input "i"[1] : <["n"], i32>
  // CHECK: error: 'aimz.binary' op operands must have the same element type
  // expected-error @+1 {{operands must have the same element type}}
  %2 = aimz.binary add %0, %1 : <["n"], f32>, <["n"], i32> -> <["n"], f32>
}

// -----

aimz.model @select_cond attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "x"[0] : <["n"], f32>
  // CHECK: error: 'aimz.select' op the condition must be bool (i1)
  // expected-error @+1 {{the condition must be bool}}
  %1 = aimz.select %0, %0, %0 : <["n"], f32>, <["n"], f32>, <["n"], f32> -> <["n"], f32>
}

// -----

aimz.model @float_only attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : !aimz.array<["n"], i32>
  // expected-error @+1 {{'log1m_exp' needs a floating operand}}
  %y = aimz.unary log1m_exp %x : !aimz.array<["n"], i32> -> !aimz.array<["n"], i32>
}

// -----

aimz.model @float_pair attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %x = aimz.input "x" [0] : !aimz.array<["n"], i64>
  // expected-error @+1 {{'lchoose' needs floating operands}}
  %y = aimz.binary lchoose %x, %x : !aimz.array<["n"], i64>, !aimz.array<["n"], i64> -> !aimz.array<["n"], i64>
}

// -----

aimz.model @dim_unknown attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  // expected-error @+1 {{'k' is not a dimension of the model}}
  %d = aimz.dim "k" : !aimz.array<[], i64>
}
