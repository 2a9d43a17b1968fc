// The pipeline on a hand-written loop-form function: scf loops with
// iteration arguments, arith, math (exp, log1p, tanh, sqrt) and llvm memory
// ops all end up as LLVM dialect ops.
// RUN: aimz-opt --aimz-loops-to-llvm %s | FileCheck %s

// CHECK-LABEL: llvm.func @kernel(%{{.*}}: !llvm.ptr, %{{.*}}: i64) -> f32
// CHECK-NOT: {{^ *(%[^ ]+ = )?"?(func|scf|arith|math|cf|index|memref)\.}}
// CHECK-NOT: unrealized_conversion_cast
// CHECK: llvm.load
// CHECK: llvm.store
// CHECK: llvm.fadd
// CHECK: llvm.return
// CHECK-NOT: {{^ *(%[^ ]+ = )?"?(func|scf|arith|math|cf|index|memref)\.}}
// CHECK-NOT: unrealized_conversion_cast

func.func @kernel(%p: !llvm.ptr, %n: i64) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ni = arith.index_cast %n : i64 to index
  %sum = scf.for %i = %c0 to %ni step %c1 iter_args(%acc = %zero) -> (f32) {
    %ii = arith.index_cast %i : index to i64
    %q = llvm.getelementptr %p[%ii] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %q : !llvm.ptr -> f32
    %e = math.exp %x : f32
    %l = math.log1p %e : f32
    %t = math.tanh %l : f32
    %s = math.sqrt %t : f32
    %pos = arith.cmpf ogt, %s, %zero : f32
    %v = scf.if %pos -> (f32) {
      scf.yield %s : f32
    } else {
      scf.yield %zero : f32
    }
    llvm.store %v, %q : f32, !llvm.ptr
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  return %sum : f32
}
