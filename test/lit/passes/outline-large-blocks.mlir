// aimz-outline-large-blocks with a small limit: the loop body (over the
// limit) is cut into runs of at most max-ops operations, each moved into a
// private noinline function; the loop's own operands, the stack slot and
// the small glue stay where they were.
// RUN: aimz-opt --aimz-outline-large-blocks=max-ops=8 %s | FileCheck %s
// A function under the limit is left alone.
// RUN: aimz-opt --aimz-outline-large-blocks=max-ops=1000 %s | FileCheck %s --check-prefix=WHOLE

// WHOLE-NOT: func.func private @entry.part
// WHOLE-NOT: func.call

// Callees come first, each private and noinline; constants are cloned and
// the offset pointer %q is recomputed from the base inside each (not
// passed); values crossing runs become results and arguments.
// CHECK:      func.func private @entry.part1(%{{.*}}: !llvm.ptr, %{{.*}}: index, %{{.*}}: f32, %{{.*}}: !llvm.ptr, %{{.*}}: f32) -> f32
// CHECK-SAME:   passthrough = ["noinline"]
// CHECK:        arith.constant 16
// CHECK:        llvm.getelementptr
// CHECK:        llvm.store
// CHECK:        return %{{.*}} : f32
// CHECK:      func.func private @entry.part2(%{{.*}}: index, %{{.*}}: !llvm.ptr) -> f32
// CHECK-SAME:   passthrough = ["noinline"]
// CHECK:        arith.constant 16
// CHECK:        llvm.getelementptr
// CHECK:        return %{{.*}} : f32

// CHECK: func.func @entry(%[[P:.*]]: !llvm.ptr, %[[N:.*]]: index) -> f32
// Constants and the stack slot stay in the caller.
// CHECK-NOT: func.call
// CHECK: %[[SLOT:.*]] = llvm.alloca
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK:   %[[A:.*]] = func.call @entry.part2(%[[I]], %[[P]])
// CHECK:   %[[B:.*]] = func.call @entry.part1(%[[P]], %[[I]], %[[A]], %[[SLOT]], %[[ACC]])
// CHECK:   scf.yield %[[B]]
// CHECK: return

func.func @entry(%p: !llvm.ptr, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : i64
  %one = arith.constant 1 : i64
  %zero = arith.constant 0.0 : f32
  %slot = llvm.alloca %one x f32 : (i64) -> !llvm.ptr
  %q = llvm.getelementptr %p[%c16] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %ii = arith.index_cast %i : index to i64
    %a = llvm.getelementptr %q[%ii] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %a : !llvm.ptr -> f32
    %y = arith.mulf %x, %x : f32
    %z = arith.addf %y, %x : f32
    %w = arith.mulf %z, %y : f32
    %u = arith.addf %w, %z : f32
    %jj = arith.index_cast %i : index to i64
    %b = llvm.getelementptr %q[%jj] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %v = llvm.load %b : !llvm.ptr -> f32
    %s = arith.addf %u, %v : f32
    %t = arith.mulf %s, %s : f32
    llvm.store %t, %slot : f32, !llvm.ptr
    %o = arith.addf %acc, %t : f32
    scf.yield %o : f32
  }
  return %r : f32
}
