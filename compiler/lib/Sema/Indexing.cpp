//===- Indexing.cpp - x[i], x[g], x[:, None] ------------------------------===//
//
// An index expression is one of four things: NumPy's basic indexing (a
// view: slices and constant indices, Slices.cpp), new axes of extent 1
// (`x[:, None]`), a gather by integer values (`beta[g]`), whose index
// shapes broadcast and replace the indexed axes, or both of the last two
// on any axes (`beta[:, jj]`, NumPy's advanced indexing). No index may run
// along the observation axis.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

/// An index that is neither ':'/None nor a slice.
static bool isIntIndex(const ExprPtr &I) {
  return !llvm::isa<AxisExpr, SliceExpr>(I.get());
}

bool Analyzer::analyzeIndex(IndexExpr &E) {
  if (!analyzeExpr(*E.Base) || !expandEllipsis(E) || !keepsOutputRows(E))
    return false;
  // Slices, or integer constants beside ':' / None: NumPy's basic
  // indexing, a view (Slices.cpp). A gather's index list may end in ':'s
  // (`L[i, :]` is `L[i]`).
  bool AnySlice = llvm::any_of(E.Indices, [](const ExprPtr &I) {
    return llvm::isa<SliceExpr>(I.get());
  });
  bool AnyInt = llvm::any_of(E.Indices, isIntIndex);
  // Constant indices (`v[0]`, `L[-1]`, `X[:, K - 1]`) are views too, with
  // NumPy's negative indices counting from the end.
  bool Basic = llvm::all_of(E.Indices, [&](const ExprPtr &I) {
    return !isIntIndex(I) || isDimArith(*I);
  });
  if (AnyInt && Basic)
    return analyzeSlices(E);
  if (AnyInt && (AnySlice || !llvm::all_of(E.Indices, isIntIndex))) {
    while (!E.Indices.empty() && !isIntIndex(E.Indices.back()) &&
           !llvm::isa<SliceExpr>(E.Indices.back().get()) &&
           !llvm::cast<AxisExpr>(*E.Indices.back()).NewAxis)
      E.Indices.pop_back();
    if (!llvm::all_of(E.Indices, isIntIndex))
      return analyzeMixedIndex(E);
  } else if (AnySlice) {
    return analyzeSlices(E);
  }
  bool Ok = true;
  size_t Axes = 0, Kept = 0;
  for (const ExprPtr &I : E.Indices) {
    if (auto *A = llvm::dyn_cast<AxisExpr>(I.get())) {
      ++Axes;
      Kept += !A->NewAxis;
      continue;
    }
    Ok &= analyzeExpr(*I);
  }
  if (!Ok)
    return false;
  if (Axes)
    return analyzeNewAxes(E, Axes, Kept);
  return analyzeGather(E);
}

/// NumPy's `...`: as many ':' as the base has axes the other indices leave
/// (`x[..., 0]`, `E[..., None]`); one per index expression.
bool Analyzer::expandEllipsis(IndexExpr &E) {
  auto IsEllipsis = [](const ExprPtr &I) {
    auto *A = llvm::dyn_cast<AxisExpr>(I.get());
    return A && A->Ellipsis;
  };
  auto At = llvm::find_if(E.Indices, IsEllipsis);
  if (At == E.Indices.end())
    return true;
  if (auto Second = std::find_if(At + 1, E.Indices.end(), IsEllipsis);
      Second != E.Indices.end()) {
    Diags.report(diag::E_TWO_ELLIPSES, (*Second)->Loc);
    return false;
  }
  size_t Consumed = llvm::count_if(E.Indices, [&](const ExprPtr &I) {
    auto *A = llvm::dyn_cast<AxisExpr>(I.get());
    return !A || (!A->NewAxis && !A->Ellipsis);
  });
  size_t Rank = E.Base->Ty.Dims.size();
  SMLoc Loc = (*At)->Loc;
  At = E.Indices.erase(At);
  for (size_t I = Consumed; I < Rank; ++I)
    At = E.Indices.insert(At, std::make_shared<AxisExpr>(Loc, false)) + 1;
  if (E.Indices.empty()) // a scalar's x[...]: refused as x[:] is
    E.Indices.push_back(std::make_shared<AxisExpr>(Loc, false));
  return true;
}

/// `x[:, None]`: a view with axes of extent 1 inserted; `Axes` indices in
/// all, `Kept` of them ':'.
bool Analyzer::analyzeNewAxes(IndexExpr &E, size_t Axes, size_t Kept) {
  const Shape &Base = E.Base->Ty.Dims;
  if (Axes != E.Indices.size()) {
    Diags.report(diag::E_INDEX_MIXES_AXES, E.Loc);
    return false;
  }
  if (Kept > Base.size()) {
    Diags.report(diag::E_TOO_MANY_COLONS, E.Loc) << shapeStr(Base);
    return false;
  }
  Shape Out;
  size_t Next = 0;
  for (const ExprPtr &I : E.Indices)
    Out.push_back(llvm::cast<AxisExpr>(*I).NewAxis ? Dim::known(1)
                                                   : Base[Next++]);
  Out.insert(Out.end(), Base.begin() + Next, Base.end());
  E.Ty = {E.Base->Ty.Type, Out, E.Base->Ty.WeakLiteral};
  return true;
}

/// `x[g]`, `X[i, j]`: the index shapes broadcast together and replace the
/// axes they index.
bool Analyzer::analyzeGather(IndexExpr &E) {
  const Shape &Base = E.Base->Ty.Dims;
  if (E.Indices.size() > Base.size()) {
    Diags.report(diag::E_TOO_MANY_INDICES, E.Loc)
        << shapeStr(Base) << Base.size() << E.Indices.size();
    return false;
  }
  bool Ok = true;
  Shape IndexShape;
  for (size_t I = 0; I < E.Indices.size(); ++I) {
    const Expr &Ix = *E.Indices[I];
    if (!checkGatherIndex(Ix, Base[I])) {
      Ok = false;
      continue;
    }
    auto B = broadcastShapes(IndexShape, Ix.Ty.Dims);
    if (!B) {
      Diags.report(diag::E_INDEX_BROADCAST, Ix.Loc)
          << shapeStr(IndexShape) << shapeStr(Ix.Ty.Dims);
      Ok = false;
      continue;
    }
    IndexShape = *B;
  }
  if (!Ok)
    return false;
  Shape Out = IndexShape;
  Out.insert(Out.end(), Base.begin() + E.Indices.size(), Base.end());
  E.Ty = {E.Base->Ty.Type, Out, false};
  return true;
}

/// `beta[:, jj]`, `X[1:, g, 0]`: slices and constants taken as a view
/// first, then the value indices gather their axes; as in NumPy, the
/// indices' broadcast shape stands where they do when they (constants
/// included) are adjacent, and first otherwise.
bool Analyzer::analyzeMixedIndex(IndexExpr &E) {
  if (llvm::any_of(E.Indices, [](const ExprPtr &I) {
        auto *A = llvm::dyn_cast<AxisExpr>(I.get());
        return A && A->NewAxis;
      })) {
    Diags.report(diag::E_INDEX_MIXES_AXES, E.Loc);
    return false;
  }
  bool Ok = true;
  for (const ExprPtr &I : E.Indices)
    if (isIntIndex(I) && !isDimArith(*I))
      Ok &= analyzeExpr(*I);
  if (!Ok)
    return false;
  const Shape &Base = E.Base->Ty.Dims;
  if (E.Indices.size() > Base.size()) {
    Diags.report(diag::E_TOO_MANY_INDICES, E.Loc)
        << shapeStr(Base) << Base.size() << E.Indices.size();
    return false;
  }
  E.Basic.assign(Base.size(), {Dim::known(0), false});
  Shape IndexShape;
  std::vector<unsigned> Advanced; // positions of every integer index
  for (size_t P = 0; P < E.Indices.size(); ++P)
    Ok &= mixedIndexAxis(E, P, IndexShape, Advanced);
  if (!Ok)
    return false;
  E.Viewed.insert(E.Viewed.end(), Base.begin() + E.Indices.size(),
                  Base.end());
  // Adjacent indices: after the slices and ':'s before the first of them.
  bool Adjacent = Advanced.back() - Advanced.front() + 1 == Advanced.size();
  E.GatherAt = Adjacent ? Advanced.front() : 0;
  Shape Out;
  for (size_t I = 0; I < E.Viewed.size(); ++I)
    if (!llvm::is_contained(E.Gathered, I))
      Out.push_back(E.Viewed[I]);
  Out.insert(Out.begin() + E.GatherAt, IndexShape.begin(), IndexShape.end());
  E.Ty = {E.Base->Ty.Type, Out, false};
  return true;
}

/// Index `P` of a mixed index: a slice or ':' kept in the view, a constant
/// taken away by it, or a value index gathering its axis.
bool Analyzer::mixedIndexAxis(IndexExpr &E, size_t P, Shape &IndexShape,
                              std::vector<unsigned> &Advanced) {
  const Expr &I = *E.Indices[P];
  const Dim &D = E.Base->Ty.Dims[P];
  if (llvm::isa<AxisExpr>(I)) {
    E.Viewed.push_back(D);
    return true;
  }
  if (auto *Sl = llvm::dyn_cast<SliceExpr>(E.Indices[P].get())) {
    noteObservationMixing(I.Loc, D, "this slice");
    bool Ok = true;
    if (!sliceAxis(*Sl, D, Ok))
      return false;
    E.Basic[P] = {Sl->From, false};
    E.Viewed.push_back(Sl->Extent);
    return true;
  }
  Advanced.push_back(P);
  if (isDimArith(I)) {
    noteObservationMixing(I.Loc, D, "this index");
    auto At = constantIndex(I, D);
    if (!At)
      return false;
    E.Basic[P] = {*At, true};
    return true;
  }
  if (!checkGatherIndex(I, D))
    return false;
  auto B = broadcastShapes(IndexShape, I.Ty.Dims);
  if (!B) {
    Diags.report(diag::E_INDEX_BROADCAST, I.Loc)
        << shapeStr(IndexShape) << shapeStr(I.Ty.Dims);
    return false;
  }
  IndexShape = *B;
  E.Gathered.push_back(E.Viewed.size());
  E.Viewed.push_back(D);
  return true;
}

/// One index of a gather along an axis of `D`: integers, in range when
/// both are known, not along the observation axis. An input used as an
/// index is recorded (the runtime checks its values).
bool Analyzer::checkGatherIndex(const Expr &Ix, const Dim &D) {
  if (const auto *N = llvm::dyn_cast<NameExpr>(&Ix)) {
    auto S = Names.find(N->Name);
    ModelInfo::IndexUse U{N->Name, D};
    if (S != Names.end() && S->second.K == Symbol::Kind::Input &&
        !llvm::is_contained(Info.IndexInputs, U))
      Info.IndexInputs.push_back(U);
  }
  noteObservationMixing(Ix.Loc, D, "this index");
  if (!isInteger(Ix.Ty.Type)) {
    Diags.report(diag::E_INDEX_NOT_INTEGER, Ix.Loc) << dtypeName(Ix.Ty.Type);
    return false;
  }
  if (auto V = literalValue(Ix); V && !D.isSymbol()) {
    int64_t Extent = D.Extent;
    if (*V < -Extent || *V >= Extent) {
      Diags.report(diag::E_INDEX_RANGE, Ix.Loc)
          << static_cast<int64_t>(*V) << Extent;
      return false;
    }
  }
  return true;
}

} // namespace sema
} // namespace aimz
