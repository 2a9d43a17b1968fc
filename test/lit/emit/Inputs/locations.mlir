aimz.model @m attributes {manifest = "{}", obs_dim = "n", plan = "obs", symbols = ["n"]} {
  %0 = aimz.input "x"[0] : <["n"], f32>
  %1 = aimz.input "g"[1] : <["n"], i32>
  %2 = aimz.binary add %0, %1 : <["n"], f32>, <["n"], i32> -> <["n"], f32> loc("model.aimz":7:12)
}
