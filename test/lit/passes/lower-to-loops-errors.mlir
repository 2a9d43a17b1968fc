// The pass wants one aimz.model in the module (and at most one @prepass).
// RUN: not aimz-opt --split-input-file --aimz-lower-to-loops %s 2>&1 | FileCheck %s

// CHECK: error: expected one aimz.model (and at most one @prepass)
module {
}

// -----

// CHECK: error: expected one aimz.model (and at most one @prepass)
module {
  aimz.model @first attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
    %0 = aimz.input "x"[0] : <["n"], f32>
  }
  aimz.model @second attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
    %0 = aimz.input "x"[0] : <["n"], f32>
  }
}
