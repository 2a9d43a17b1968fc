// The pass wants exactly one aimz.model in the module.
// RUN: not aimz-opt --split-input-file --aimz-lower-to-loops %s 2>&1 | FileCheck %s

// CHECK: error: expected exactly one aimz.model
module {
}

// -----

// CHECK: error: expected exactly one aimz.model
module {
  aimz.model @first attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
    %0 = aimz.input "x"[0] : <["n"], f32>
  }
  aimz.model @second attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
    %0 = aimz.input "x"[0] : <["n"], f32>
  }
}
