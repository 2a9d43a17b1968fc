//===- Generator.h - Checked AST to aimz ops ------------------*- C++ -*-===//
//
// Private to lib/MLIRGen: MLIRGen.cpp walks statements and expressions,
// Indexing.cpp builds index expressions, ArrayFunctions.cpp NumPy's array
// manipulation functions.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_MLIRGEN_GENERATOR_H
#define AIMZ_MLIRGEN_GENERATOR_H

#include "aimz/AST.h"
#include "aimz/Builtins.h"
#include "aimz/Dialect/AimzDialect.h"
#include "aimz/Sema.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/SourceMgr.h"

#include <map>

namespace aimz {
namespace mlirgen {

using namespace mlir;

class Generator {
public:
  Generator(MLIRContext &Ctx, const Model &M, const ModelInfo &Info,
            const llvm::SourceMgr *SM)
      : B(&Ctx), M(M), Info(Info), SM(SM), CurLoc(B.getUnknownLoc()) {}

  OwningOpRef<ModuleOp> run();
  /// `aimz.model @prepass`: the rows of every statistic of an expression
  /// (ModelInfo::DerivedInput::Argument), result `slot` each.
  void genPrepass();
  /// The model's inputs as aimz.input ops (Values, FullShapes).
  void genInputs();
  Value genFactorization(const CallExpr &E, const Builtin &Fn);
  Value genSort(const CallExpr &E, const Builtin &Fn, Value A);

private:
  OpBuilder B;
  const Model &M;
  const ModelInfo &Info;
  std::map<std::string, Value> Values;   // full-shape values by name
  std::map<std::string, Shape> FullShapes; // their symbolic shapes
  Shape Plates;                          // dims of the open plates
  std::vector<std::string> PlateNames;

  const llvm::SourceMgr *SM;
  /// The location of the expression or statement being generated: every op
  /// carries the model's file:line:col, so diagnostics point at the model.
  Location CurLoc;
  Location loc(SMLoc L);
  ir::ReduceFnAttr reduceFn(ir::ReduceFn F) {
    return ir::ReduceFnAttr::get(B.getContext(), F);
  }
  /// Sets CurLoc for one expression or statement.
  struct LocScope {
    Generator &G;
    Location Saved;
    LocScope(Generator &G, SMLoc L) : G(G), Saved(G.CurLoc) {
      G.CurLoc = G.loc(L);
    }
    ~LocScope() { G.CurLoc = Saved; }
  };
  Type elementType(DType T);
  Attribute dimAttr(const Dim &D);
  ir::ArrayType arrayType(const Shape &S, DType T);
  Shape inPlates(const Shape &Local) const;

  Value broadcast(Value V, ArrayRef<int64_t> Map, const Shape &To);
  Value alignLocal(Value V, const Shape &From, const Shape &To);
  Value castTo(Value V, DType From, DType To, const Shape &Local);
  Value constant(double V, DType T);
  Value view(const std::string &Name);

  Value gen(const Expr &E);
  Value genBinary(const BinaryExpr &E);
  static std::optional<int64_t> integerLiteral(const Expr &E);
  Value genCall(const CallExpr &E);
  Value genWhere(const CallExpr &E, Value A);
  Value genFoldedCall(const CallExpr &E, const Builtin &Fn, Value A);
  Value genSoftmax(const CallExpr &E, const Builtin &Fn, Value A,
                   IntegerAttr Axis);
  Value genIndex(const IndexExpr &E);
  Value genBasicIndex(const IndexExpr &E);
  Value genMixedIndex(const IndexExpr &E);
  Value permuteLocal(Value V, ArrayRef<int64_t> Local, const Shape &To,
                     DType T);
  Value genTranspose(const AttrExpr &E);
  Value transposeLocal(Value V, size_t Local, const ExprType &Result);
  Value genConstructor(const CallExpr &E);
  Value genMatrixHelper(const CallExpr &E, const Builtin &Fn);
  Value genVecToTril(const CallExpr &E);
  Value genLogProb(const CallExpr &E);
  Value iota(const Shape &Local, size_t Axis);
  Value extent(const Dim &D);
  Value gatherAxes(Value V, const Shape &Viewed, ArrayRef<unsigned> Gathered,
                   ArrayRef<Value> Indices, const Shape &IndexShape,
                   unsigned At, DType T);
  Value genArrayFunction(const CallExpr &E, const Builtin &Fn);
  Value genPad(const CallExpr &E, Value V);
  Value genReorder(const CallExpr &E, Value V);
  void genStmt(const Stmt &S);
  void genSample(const SampleStmt &S);
  Value genDistParam(const Expr &P, SampleStmt::LoweredParam::Transform Fn,
                     const Shape &Target);
  int64_t siteId(const std::string &Name) const;
  ArrayAttr plateNames();
  ArrayAttr strArray(ArrayRef<std::string> Words);
};

} // namespace mlirgen
} // namespace aimz

#endif // AIMZ_MLIRGEN_GENERATOR_H
