//===- Indexing.cpp - x[1:], x[:, None], x[g], beta[:, jj] -----------------===//
//
// Sema's plan for each index expression as views (aimz.slice, broadcast,
// transpose) and gathers.
//
//===----------------------------------------------------------------------===//
#include "Generator.h"

namespace aimz {
namespace mlirgen {

/// Slices and integer constants (Sema's per-axis plan), then None's axes
/// of extent 1 inserted by a broadcast.
Value Generator::genBasicIndex(const IndexExpr &E) {
  Value V = gen(*E.Base);
  SmallVector<Attribute> Starts;
  SmallVector<bool> Dropped;
  Shape Kept;
  for (size_t I = 0; I < Plates.size(); ++I) {
    Starts.push_back(B.getI64IntegerAttr(0));
    Dropped.push_back(false);
  }
  const Shape &Base = E.Base->Ty.Dims;
  size_t Ax = 0;
  for (const ExprPtr &I : E.Indices) {
    if (auto *A = dyn_cast<AxisExpr>(I.get()); A && A->NewAxis)
      continue;
    if (auto *Sl = dyn_cast<SliceExpr>(I.get()))
      Kept.push_back(Sl->Extent);
    else if (isa<AxisExpr>(I.get()))
      Kept.push_back(Base[Ax]);
    ++Ax;
  }
  Kept.insert(Kept.end(), Base.begin() + Ax, Base.end());
  for (const IndexExpr::BasicAxis &A : E.Basic) {
    Starts.push_back(dimAttr(A.Start));
    Dropped.push_back(A.Dropped);
  }
  Value S = B.create<ir::SliceOp>(
      CurLoc, arrayType(inPlates(Kept), E.Ty.Type), V,
      B.getArrayAttr(Starts), B.getDenseBoolArrayAttr(Dropped));
  // None: the kept dims land where they are in the result.
  SmallVector<int64_t> Map;
  for (size_t I = 0; I < Plates.size(); ++I)
    Map.push_back(I);
  size_t At = Plates.size();
  for (const ExprPtr &I : E.Indices) {
    auto *A = dyn_cast<AxisExpr>(I.get());
    if (A && A->NewAxis) {
      ++At;
      continue;
    }
    if (A || isa<SliceExpr>(I.get()))
      Map.push_back(At++);
  }
  while (Map.size() < Plates.size() + Kept.size())
    Map.push_back(At++);
  return broadcast(S, Map, inPlates(E.Ty.Dims));
}

/// Local axes permuted (result axis i is local axis Local[i]), plates kept.
Value Generator::permuteLocal(Value V, ArrayRef<int64_t> Local, const Shape &To,
                              DType T) {
  SmallVector<int64_t> Perm;
  for (size_t I = 0; I < Plates.size(); ++I)
    Perm.push_back(I);
  for (int64_t L : Local)
    Perm.push_back(Plates.size() + L);
  return B.create<ir::TransposeOp>(CurLoc, arrayType(inPlates(To), T), V,
                                   B.getDenseI64ArrayAttr(Perm));
}

/// `beta[:, jj]`: Sema's view (slices, constants away), its gathered axes
/// moved first and gathered, and the index block moved to where NumPy puts
/// it.
Value Generator::genMixedIndex(const IndexExpr &E) {
  const DType T = E.Ty.Type;
  Value V = gen(*E.Base);
  SmallVector<Attribute> Starts;
  SmallVector<bool> Dropped(Plates.size(), false);
  for (size_t I = 0; I < Plates.size(); ++I)
    Starts.push_back(B.getI64IntegerAttr(0));
  for (const IndexExpr::BasicAxis &A : E.Basic) {
    Starts.push_back(dimAttr(A.Start));
    Dropped.push_back(A.Dropped);
  }
  V = B.create<ir::SliceOp>(CurLoc, arrayType(inPlates(E.Viewed), T), V,
                            B.getArrayAttr(Starts),
                            B.getDenseBoolArrayAttr(Dropped));
  const size_t Rest = E.Viewed.size() - E.Gathered.size();
  const size_t IndexRank = E.Ty.Dims.size() - Rest;
  Shape IndexShape(E.Ty.Dims.begin() + E.GatherAt,
                   E.Ty.Dims.begin() + E.GatherAt + IndexRank);
  SmallVector<Value> Indices;
  for (size_t P = 0; P < E.Indices.size(); ++P) {
    const Expr &I = *E.Indices[P];
    if (!isa<AxisExpr, SliceExpr>(I) && !E.Basic[P].Dropped)
      Indices.push_back(alignLocal(gen(I), I.Ty.Dims, IndexShape));
  }
  return gatherAxes(V, E.Viewed, E.Gathered, Indices, IndexShape, E.GatherAt,
                    T);
}

Value Generator::genIndex(const IndexExpr &E) {
  if (!E.Gathered.empty())
    return genMixedIndex(E);
  if (!E.Basic.empty())
    return genBasicIndex(E);
  // `x[:, None]`: a view with axes of extent 1 inserted.
  if (!E.Indices.empty() && isa<AxisExpr>(*E.Indices.front())) {
    Value Base = gen(*E.Base);
    SmallVector<int64_t> Map;
    for (size_t I = 0; I < Plates.size(); ++I)
      Map.push_back(I);
    size_t At = Plates.size();
    for (const ExprPtr &I : E.Indices) {
      if (!cast<AxisExpr>(*I).NewAxis)
        Map.push_back(At);
      ++At;
    }
    size_t Rest = E.Base->Ty.Dims.size() - (Map.size() - Plates.size());
    for (size_t I = 0; I < Rest; ++I)
      Map.push_back(At++);
    return broadcast(Base, Map, inPlates(E.Ty.Dims));
  }
  Value Base = gen(*E.Base);
  const Shape &BaseLocal = E.Base->Ty.Dims;
  size_t Rest = BaseLocal.size() - E.Indices.size();
  Shape IndexShape(E.Ty.Dims.begin(), E.Ty.Dims.end() - Rest);
  SmallVector<Value> Indices;
  for (const ExprPtr &I : E.Indices)
    Indices.push_back(alignLocal(gen(*I), I->Ty.Dims, IndexShape));
  return B.create<ir::GatherOp>(CurLoc,
                            arrayType(inPlates(E.Ty.Dims), E.Ty.Type), Base,
                            Indices, B.getI64IntegerAttr(Plates.size()));
}

} // namespace mlirgen
} // namespace aimz
