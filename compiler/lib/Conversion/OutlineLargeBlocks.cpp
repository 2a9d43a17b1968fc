//===- OutlineLargeBlocks.cpp - Bound the size of each function -----------===//
//
// A model's entry points hold one loop nest per site inside the loop over
// observation blocks, so they grow with the model. LLVM's optimizer and
// code generator take more than linear time in the size of one function
// (LoopUnroll alone took 8 of 10 s at 60 deterministic sites), so a block
// larger than the limit is cut into runs of consecutive operations, each
// moved into its own function (noinline, so that LLVM keeps it apart):
// values used from before a run become arguments (constants are cloned
// and cheap pointer arithmetic is recomputed instead, so the callee still
// sees them and the per-site pointers are not passed around), values used
// after it become results. An operation too large on its own is split
// inside its regions instead. Models under the limit are left as they are.
//
//===----------------------------------------------------------------------===//
#include "aimz/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <string>

namespace aimz {

#define GEN_PASS_DEF_OUTLINELARGEBLOCKS
#include "aimz/Conversion/Passes.h.inc"

namespace {

using namespace mlir;

/// Operations in Op, itself included, memoized: each is counted once.
class OpCounts {
public:
  int64_t of(Operation *Op) {
    auto It = Counts.find(Op);
    if (It != Counts.end())
      return It->second;
    int64_t N = 1;
    for (Region &R : Op->getRegions())
      for (Block &B : R)
        N += of(B);
    Counts[Op] = N;
    return N;
  }
  int64_t of(Block &B) {
    int64_t N = 0;
    for (Operation &Op : B)
      N += of(&Op);
    return N;
  }

private:
  llvm::DenseMap<Operation *, int64_t> Counts;
};

/// A stack slot must stay in its caller's frame.
bool mustStayInPlace(Operation *Op) {
  bool Found = false;
  Op->walk([&](Operation *Inner) {
    if (isa<LLVM::AllocaOp, LLVM::StackSaveOp, LLVM::StackRestoreOp>(Inner))
      Found = true;
  });
  return Found;
}

/// Cheap and pure: recomputed inside a callee rather than passed to it, so
/// that the per-site pointers an entry point computes up front do not all
/// become arguments and results (thousands of values live across calls).
bool isRematerializable(Operation *Op) {
  return Op->getNumResults() == 1 && Op->getNumRegions() == 0 &&
         isa<LLVM::GEPOp, arith::IndexCastOp, arith::AddIOp, arith::SubIOp,
             arith::MulIOp, arith::CmpIOp, arith::SelectOp>(Op) &&
         isMemoryEffectFree(Op);
}

class Outliner {
public:
  Outliner(func::FuncOp Parent, int64_t Limit)
      : Parent(Parent), Limit(Limit) {}

  /// Cuts every block of F larger than the limit; later runs first, so that
  /// a run whose values later runs recompute no longer returns them.
  void run() {
    plan(Parent.getBody().front());
    for (auto &[B, Run] : llvm::reverse(Runs))
      outline(*B, Run);
  }

private:
  void plan(Block &B) {
    if (Counts.of(B) <= Limit)
      return;
    SmallVector<Operation *> Run;
    int64_t RunOps = 0;
    auto Flush = [&] {
      // A run too small to matter stays inline (glue between large ops).
      if (RunOps >= Limit / 4)
        Runs.emplace_back(&B, Run);
      Run.clear();
      RunOps = 0;
    };
    for (Operation &Op : B.without_terminator()) {
      // Constants stay (each callee clones those it uses).
      if (Op.hasTrait<OpTrait::ConstantLike>())
        continue;
      int64_t N = Counts.of(&Op);
      if (N > Limit || mustStayInPlace(&Op)) {
        Flush();
        if (N > Limit)
          for (Region &R : Op.getRegions())
            for (Block &Inner : R)
              plan(Inner);
        continue;
      }
      if (RunOps + N > Limit)
        Flush();
      Run.push_back(&Op);
      RunOps += N;
    }
    Flush();
  }

  /// How the callee gets each value defined before its run.
  struct LiveIns {
    llvm::SetVector<Value> Args;
    llvm::SetVector<Operation *> Recomputed; // operands first
  };

  /// A live-in computed cheaply from constants and other live-ins is
  /// recomputed, one level deep: deeper chains of index arithmetic gave the
  /// loops' strength reduction more work than the arguments they saved.
  void classify(Value V, LiveIns &In, bool Outer = true) {
    Operation *Def = V.getDefiningOp();
    if (Def && In.Recomputed.contains(Def))
      return;
    if (Def && (matchPattern(V, m_Constant()) ||
                (Outer && isRematerializable(Def)))) {
      for (Value O : Def->getOperands())
        classify(O, In, false);
      In.Recomputed.insert(Def);
      return;
    }
    In.Args.insert(V);
  }

  /// Moves Run (consecutive operations of B) into a new function and calls
  /// it in their place.
  void outline(Block &B, ArrayRef<Operation *> Whole) {
    // Drop what the later runs no longer use.
    SmallVector<Operation *> Run;
    for (Operation *Op : llvm::reverse(Whole)) {
      if (isOpTriviallyDead(Op))
        Op->erase();
      else
        Run.push_back(Op);
    }
    std::reverse(Run.begin(), Run.end());
    if (Run.empty())
      return;
    llvm::DenseSet<Operation *> InRun(Run.begin(), Run.end());
    auto Inside = [&](Operation *Op) {
      Operation *A = B.findAncestorOpInBlock(*Op);
      return A && InRun.contains(A);
    };
    auto DefinedInside = [&](Value V) {
      if (Operation *Def = V.getDefiningOp())
        return Inside(Def);
      return Inside(V.getParentBlock()->getParentOp());
    };
    LiveIns In;
    for (Operation *Op : Run)
      Op->walk([&](Operation *Inner) {
        for (Value V : Inner->getOperands())
          if (!DefinedInside(V))
            classify(V, In);
      });
    SmallVector<Value> Results;
    for (Operation *Op : Run)
      for (Value R : Op->getResults())
        if (llvm::any_of(R.getUsers(),
                         [&](Operation *U) { return !Inside(U); }))
          Results.push_back(R);

    Location Loc = Run.front()->getLoc();
    OpBuilder Builder(Parent);
    auto Callee = Builder.create<func::FuncOp>(
        Loc, (Parent.getSymName() + ".part" + std::to_string(++Parts)).str(),
        Builder.getFunctionType(ValueRange(In.Args.getArrayRef()).getTypes(),
                                ValueRange(Results).getTypes()));
    Callee.setPrivate();
    Callee->setAttr("passthrough",
                    Builder.getArrayAttr({Builder.getStringAttr("noinline")}));
    Block *Entry = Callee.addEntryBlock();

    Builder.setInsertionPointAfter(Run.back());
    auto Call = Builder.create<func::CallOp>(Loc, Callee,
                                             In.Args.getArrayRef());
    // Operands are remapped by walking the moved operations (replacing each
    // value's uses would visit all of them, as often as there are runs).
    Builder.setInsertionPointToStart(Entry);
    IRMapping Inner;
    for (auto [I, V] : llvm::enumerate(In.Args))
      Inner.map(V, Entry->getArgument(I));
    for (Operation *Op : In.Recomputed)
      Builder.clone(*Op, Inner);
    for (Operation *Op : Run) {
      Op->moveBefore(Entry, Entry->end());
      Op->walk([&](Operation *Nested) {
        for (OpOperand &U : Nested->getOpOperands())
          if (Value New = Inner.lookupOrNull(U.get()))
            U.set(New);
      });
    }
    Builder.setInsertionPointToEnd(Entry);
    Builder.create<func::ReturnOp>(Loc, Results);
    for (auto [R, New] : llvm::zip(Results, Call.getResults()))
      R.replaceUsesWithIf(New, [&](OpOperand &U) {
        return !Callee->isProperAncestor(U.getOwner());
      });
  }

  func::FuncOp Parent;
  int64_t Limit;
  OpCounts Counts;
  SmallVector<std::pair<Block *, SmallVector<Operation *>>> Runs;
  unsigned Parts = 0;
};

struct OutlineLargeBlocksPass
    : impl::OutlineLargeBlocksBase<OutlineLargeBlocksPass> {
  using OutlineLargeBlocksBase::OutlineLargeBlocksBase;

  void runOnOperation() override {
    SmallVector<func::FuncOp> Functions(
        getOperation().getOps<func::FuncOp>());
    for (func::FuncOp F : Functions)
      if (!F.isDeclaration())
        Outliner(F, maxOps).run();
  }
};

} // namespace
} // namespace aimz
