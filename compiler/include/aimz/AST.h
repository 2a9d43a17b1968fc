//===- AST.h - Syntax tree of a .aimz model ---------------------*- C++ -*-===//
//
// The parser produces this tree; semantic analysis annotates it with types
// and shapes (see Sema.h). Nodes own their children through unique_ptr and
// carry the source location of their first character for diagnostics.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_AST_H
#define AIMZ_AST_H

#include "aimz/Shape.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace aimz {

using llvm::SMLoc;

/// Element types of the language.
enum class DType { F32, F64, I32, I64, Bool };

const char *dtypeName(DType T);
inline bool isFloat(DType T) { return T == DType::F32 || T == DType::F64; }
inline bool isInteger(DType T) { return T == DType::I32 || T == DType::I64; }

/// A dimension as written: a name (symbol or constant) or an integer literal.
struct Expr;
struct DimSyntax {
  std::string Name; // empty for a literal or arithmetic
  int64_t Value = 0;
  SMLoc Loc;
  /// Arithmetic on dimensions and integers (`K - 1`, `2 * J`); null for a
  /// name or a literal.
  std::shared_ptr<Expr> Arith = nullptr;
};

/// `f32[n, k]` as written in a model signature.
struct TypeSyntax {
  DType Type = DType::F32;
  std::vector<DimSyntax> Dims;
  SMLoc Loc;
};

/// A model input or output: `X: f32[n, k]`.
struct Param {
  std::string Name;
  TypeSyntax Type;
  SMLoc Loc;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class BinaryOp { Add, Sub, Mul, Div, Pow, MatMul, Lt, Le, Gt, Ge, Eq, Ne };
const char *binaryOpSpelling(BinaryOp Op);

/// What semantic analysis learns about an expression.
struct ExprType {
  DType Type = DType::F32;
  Shape Dims;               // shape as seen at the expression (plate view)
  bool WeakLiteral = false; // an untyped numeric literal, adapts to its peer
};

struct Expr {
  enum class Kind {
    Number, Bool, Name, Unary, Binary, Call, Index, Array, Axis, Slice, Attr
  };
  Kind K;
  SMLoc Loc;
  ExprType Ty;        // filled in by Sema
  unsigned Depth = 1; // height of the subtree, bounded by the parser
  explicit Expr(Kind K, SMLoc Loc) : K(K), Loc(Loc) {}
  virtual ~Expr() = default;
};
// Shared ownership keeps nodes copyable as parser attributes; the tree is
// still a tree: every node has exactly one parent.
using ExprPtr = std::shared_ptr<Expr>;

/// Releases a child without recursing: a node's destructor hands its
/// children here, and the outermost call frees them from a work list, so a
/// degenerate tree (a chain of 150,000 '+' or a million unary minuses)
/// cannot overflow the stack when it is destroyed.
void releaseChild(ExprPtr &Child);

struct NumberExpr : Expr {
  static bool classof(const Expr *N) { return N->K == Kind::Number; }
  double Value;
  bool IsInteger; // written without '.', 'e' or 'E'
  /// An integer literal's exact value (Value rounds above 2^53).
  int64_t IntValue = 0;
  NumberExpr(SMLoc L, double V, bool Int)
      : Expr(Kind::Number, L), Value(V), IsInteger(Int),
        IntValue(Int ? static_cast<int64_t>(V) : 0) {}
};

struct BoolExpr : Expr {
  static bool classof(const Expr *N) { return N->K == Kind::Bool; }
  bool Value;
  BoolExpr(SMLoc L, bool V) : Expr(Kind::Bool, L), Value(V) {}
};

struct NameExpr : Expr {
  static bool classof(const Expr *N) { return N->K == Kind::Name; }
  std::string Name;
  /// Set by Sema when the name is a dimension (or a `const` of one) used
  /// as its extent: the dimension's canonical text (DimExpr.h).
  std::string DimensionText;
  NameExpr(SMLoc L, std::string N) : Expr(Kind::Name, L), Name(std::move(N)) {}
};

/// A dimension written as an expression (`k`, `3`, `K - 1`): in `[...]`,
/// and in NumPyro's `.expand([k])`.
inline DimSyntax dimSyntaxOf(const ExprPtr &E) {
  DimSyntax D;
  D.Loc = E->Loc;
  if (auto *N = llvm::dyn_cast<NameExpr>(E.get()))
    D.Name = N->Name;
  else if (auto *L = llvm::dyn_cast<NumberExpr>(E.get()); L && L->IsInteger)
    D.Value = static_cast<int64_t>(L->Value);
  else
    D.Arith = E;
  return D;
}

struct UnaryExpr : Expr { // only negation
  static bool classof(const Expr *N) { return N->K == Kind::Unary; }
  ExprPtr Operand;
  UnaryExpr(SMLoc L, ExprPtr E) : Expr(Kind::Unary, L), Operand(std::move(E)) {}
  ~UnaryExpr() override { releaseChild(Operand); }
};

struct BinaryExpr : Expr {
  static bool classof(const Expr *N) { return N->K == Kind::Binary; }
  BinaryOp Op;
  ExprPtr LHS, RHS;
  /// Sema: an equivalent expression, analyzed, that code generation emits
  /// instead (in transformed data, `X.T @ X` contracting the observation
  /// axis is the sum over rows of each row's outer product).
  ExprPtr Desugared;
  BinaryExpr(SMLoc L, BinaryOp Op, ExprPtr A, ExprPtr B)
      : Expr(Kind::Binary, L), Op(Op), LHS(std::move(A)), RHS(std::move(B)) {}
  ~BinaryExpr() override {
    releaseChild(LHS);
    releaseChild(RHS);
    releaseChild(Desugared);
  }
};

/// A call argument, optionally named (`probs=p`).
struct Arg {
  std::string Keyword; // empty when positional
  SMLoc Loc;
  ExprPtr Value;
};

struct CallExpr : Expr {
  static bool classof(const Expr *N) { return N->K == Kind::Call; }
  std::string Callee;
  std::vector<Arg> Args;
  /// Sema: the `axis=` of a reduction, softmax or cumsum, made
  /// non-negative and taken out of Args.
  std::optional<int64_t> Axis;
  /// Sema, for log_prob(Dist(...), x): the distribution's `dist` attribute
  /// and its arguments in the runtime's order (Args[1] is the value).
  /// A reduction along the observation axis in transformed data: its slot
  /// among ModelInfo::DerivedInputs (-1: none).
  int DerivedInput = -1;
  /// vec_to_tril's diagonal= (0: with the diagonal, -1: strictly lower).
  int64_t TrilDiagonal = 0;
  /// Sema, for NumPy's array manipulation (ArrayFunctions.cpp): the axes
  /// it works along and, per axis, its counts: pad's widths (before, after)
  /// in Counts[2 i], Counts[2 i + 1]; repeat's and tile's repetitions.
  std::vector<int64_t> Axes;
  std::vector<Dim> Counts;
  /// Sema: an equivalent expression, analyzed, that code generation emits
  /// instead (a statistic of a view of an input becomes the view of the
  /// input's statistic); the call's own arguments are then gone.
  ExprPtr Desugared;
  std::string LogProbDist;
  std::vector<std::string> LogProbParamNames;
  std::vector<ExprPtr> LogProbParams;
  /// A TransformedDistribution's transforms (ValueTransforms.def's words);
  /// their parameters end LogProbParams.
  std::vector<std::string> LogProbValueMap;
  /// With a vector or matrix distribution (or vector parameters): each
  /// parameter's local shape (the result's ++ its event axes) and
  /// transform (SampleStmt::LoweredParam::Transform), the value's shape.
  std::vector<Shape> LogProbParamTargets;
  std::vector<int> LogProbParamTransforms;
  Shape LogProbValueTarget;
  CallExpr(SMLoc L, std::string C, std::vector<Arg> A)
      : Expr(Kind::Call, L), Callee(std::move(C)), Args(std::move(A)) {}
  ~CallExpr() override {
    for (Arg &A : Args)
      releaseChild(A.Value);
    releaseChild(Desugared);
  }
};

struct IndexExpr : Expr {
  static bool classof(const Expr *N) { return N->K == Kind::Index; }
  ExprPtr Base;
  std::vector<ExprPtr> Indices;
  /// Set by Sema for NumPy's basic indexing (slices, integer constants,
  /// `:` and None together): per axis of the base, where it starts and
  /// whether an integer index removes it; None's positions stay in Indices.
  struct BasicAxis {
    Dim Start;
    bool Dropped = false;
  };
  std::vector<BasicAxis> Basic;
  /// Set by Sema for slices beside an index computed from values (NumPy's
  /// advanced indexing, `beta[:, jj]`; such an index has Gathered
  /// non-empty): Basic's view (shape `Viewed`), its axes `Gathered` indexed
  /// by the value indices, whose broadcast shape lands at result axis
  /// `GatherAt` (NumPy: where the indices stand when they are adjacent,
  /// else first).
  Shape Viewed;
  std::vector<unsigned> Gathered;
  unsigned GatherAt = 0;
  IndexExpr(SMLoc L, ExprPtr B, std::vector<ExprPtr> I)
      : Expr(Kind::Index, L), Base(std::move(B)), Indices(std::move(I)) {}
  ~IndexExpr() override {
    releaseChild(Base);
    for (ExprPtr &E : Indices)
      releaseChild(E);
  }
};

/// `[a, b, c]`: the elements stacked along a new leading axis.
struct ArrayExpr : Expr {
  static bool classof(const Expr *N) { return N->K == Kind::Array; }
  std::vector<ExprPtr> Elements;
  ArrayExpr(SMLoc L, std::vector<ExprPtr> E)
      : Expr(Kind::Array, L), Elements(std::move(E)) {}
  ~ArrayExpr() override {
    for (ExprPtr &E : Elements)
      releaseChild(E);
  }
};

/// A shape written as NumPyro's `.expand` takes it: a list or tuple of
/// dimensions, or one.
inline std::vector<DimSyntax> shapeSyntaxOf(const ExprPtr &E) {
  std::vector<DimSyntax> Dims;
  if (const auto *L = llvm::dyn_cast<ArrayExpr>(E.get()))
    for (const ExprPtr &D : L->Elements)
      Dims.push_back(dimSyntaxOf(D));
  else
    Dims.push_back(dimSyntaxOf(E));
  return Dims;
}

/// An index that is not a value: `:` (keep the axis), `None` (insert an
/// axis of extent 1), as in NumPy's `tau[:, None]`, or `...` (as many `:`
/// as the other indices leave axes; Sema expands it).
struct AxisExpr : Expr {
  static bool classof(const Expr *N) { return N->K == Kind::Axis; }
  bool NewAxis;
  bool Ellipsis;
  AxisExpr(SMLoc L, bool New, bool Ell = false)
      : Expr(Kind::Axis, L), NewAxis(New), Ellipsis(Ell) {}
};

/// `a:b`, `a:`, `:b` inside an index (a bare `:` is an AxisExpr); null
/// bounds are the axis' ends. Sema fills in the resolved bounds.
struct SliceExpr : Expr {
  static bool classof(const Expr *N) { return N->K == Kind::Slice; }
  ExprPtr Start, Stop;
  Dim From, Extent; // set by Sema: offset and length along the axis
  SliceExpr(SMLoc L, ExprPtr A, ExprPtr B)
      : Expr(Kind::Slice, L), Start(std::move(A)), Stop(std::move(B)) {}
  ~SliceExpr() override {
    releaseChild(Start);
    releaseChild(Stop);
  }
};

/// `x.T`: NumPy's transpose (the only attribute).
struct AttrExpr : Expr {
  static bool classof(const Expr *N) { return N->K == Kind::Attr; }
  ExprPtr Base;
  std::string Name;
  AttrExpr(SMLoc L, ExprPtr B, std::string N)
      : Expr(Kind::Attr, L), Base(std::move(B)), Name(std::move(N)) {}
  ~AttrExpr() override { releaseChild(Base); }
};

/// A deep copy of an expression's syntax (Sema's rewrites that use an
/// argument twice; Functions.cpp).
ExprPtr cloneExpr(const Expr &E);

/// `E` written back as the language's source (`mean(log(x[:, 1:]))`):
/// names a derived value in messages and in the manifest.
std::string sourceText(const Expr &E);

/// `E` as its node class, const where `E` is.
template <typename Node, typename ExprT> auto &nodeAs(ExprT &E) {
  return static_cast<std::conditional_t<std::is_const_v<ExprT>, const Node,
                                        Node> &>(E);
}

/// Calls `F` on each child slot of `E` in source order (a slice's missing
/// bound is a null slot), then on Sema's desugared form where there is one
/// (so that walkers after analysis see what code generation emits):
/// `ExprPtr &` for a mutable node, `const ExprPtr &` for a const one, so
/// one walker serves rewriting and reading.
template <typename ExprT, typename Fn> void forEachChild(ExprT &E, Fn &&F) {
  static_assert(std::is_same_v<std::remove_const_t<ExprT>, Expr>);
  switch (E.K) {
  case Expr::Kind::Unary:
    F(nodeAs<UnaryExpr>(E).Operand);
    return;
  case Expr::Kind::Binary:
    F(nodeAs<BinaryExpr>(E).LHS);
    F(nodeAs<BinaryExpr>(E).RHS);
    if (nodeAs<BinaryExpr>(E).Desugared)
      F(nodeAs<BinaryExpr>(E).Desugared);
    return;
  case Expr::Kind::Call:
    for (auto &A : nodeAs<CallExpr>(E).Args)
      F(A.Value);
    if (nodeAs<CallExpr>(E).Desugared)
      F(nodeAs<CallExpr>(E).Desugared);
    return;
  case Expr::Kind::Index:
    F(nodeAs<IndexExpr>(E).Base);
    for (auto &I : nodeAs<IndexExpr>(E).Indices)
      F(I);
    return;
  case Expr::Kind::Array:
    for (auto &X : nodeAs<ArrayExpr>(E).Elements)
      F(X);
    return;
  case Expr::Kind::Slice:
    F(nodeAs<SliceExpr>(E).Start);
    F(nodeAs<SliceExpr>(E).Stop);
    return;
  case Expr::Kind::Attr:
    F(nodeAs<AttrExpr>(E).Base);
    return;
  default:
    return;
  }
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

struct Stmt {
  enum class Kind {
    Const, Let, Transformed, Deterministic, Factor, Sample, Plate, Scan
  };
  Kind K;
  SMLoc Loc;
  std::string Name;
  SMLoc NameLoc;
  Stmt(Kind K, SMLoc L, std::string N, SMLoc NL)
      : K(K), Loc(L), Name(std::move(N)), NameLoc(NL) {}
  virtual ~Stmt() = default;
};
using StmtPtr = std::shared_ptr<Stmt>;

/// `const H = 128;`
struct ConstStmt : Stmt {
  static bool classof(const Stmt *N) { return N->K == Kind::Const; }
  int64_t Value; // an integer literal's; Sema's for arithmetic
  SMLoc ValueLoc;
  /// Arithmetic (`const K1 = K - 1;`); null for an integer literal.
  ExprPtr Arith;
  ConstStmt(SMLoc L, std::string N, SMLoc NL, int64_t V, SMLoc VL,
            ExprPtr A = nullptr)
      : Stmt(Kind::Const, L, std::move(N), NL), Value(V), ValueLoc(VL),
        Arith(std::move(A)) {}
};

/// Where an inlined statement came from: the call of a user-defined
/// function it was expanded from (Functions.cpp), for notes and checks.
struct InlinedFrom {
  std::string Function;
  SMLoc CallLoc;
  /// A parameter's or the result's declared type, checked against the value
  /// at this call (its dimension names are the call's own, mangled).
  std::optional<TypeSyntax> Declared;
  std::string What; // "parameter 'a'" or "the result"
  /// The call this one was expanded inside (a function calling another).
  std::shared_ptr<const InlinedFrom> Caller;
};

/// `let x = e;`, `transformed x = e;`, `deterministic x = e;` and
/// `factor x = e;`
struct AssignStmt : Stmt {
  static bool classof(const Stmt *N) {
    return N->K == Kind::Let || N->K == Kind::Deterministic ||
           N->K == Kind::Factor || N->K == Kind::Transformed;
  }
  ExprPtr Value;
  /// Set for a statement expanded from a call of a user-defined function.
  std::shared_ptr<const InlinedFrom> Inlined;
  AssignStmt(Kind K, SMLoc L, std::string N, SMLoc NL, ExprPtr V)
      : Stmt(K, L, std::move(N), NL), Value(std::move(V)) {}
};

/// A method NumPyro calls on a distribution, `.expand([k])`,
/// `.to_event(1)`, `.mask(m)`: Sema rewrites the site by them
/// (DistributionMethods.cpp).
struct DistMethod {
  std::string Name;
  SMLoc Loc;
  std::vector<Arg> Args;
};

/// `x ~ Dist(args)[shape];`, `x ~ Dist(args).expand([k]).to_event(1);`
struct SampleStmt : Stmt {
  static bool classof(const Stmt *N) { return N->K == Kind::Sample; }
  std::string Dist;
  /// The name as written: sugar may rewrite Dist into another composite
  /// (HurdleDistribution over a Weibull is a MixtureGeneral underneath);
  /// the site table names such a form as written.
  std::string WrittenDist;
  SMLoc DistLoc;
  std::vector<Arg> Args;
  std::optional<std::vector<DimSyntax>> ExplicitShape;
  std::vector<DistMethod> Methods;
  // Filled in by Sema: the distribution, what the back end passes and the
  // shape of one draw inside the enclosing plates.
  const struct DistSpec *Spec = nullptr;
  /// One argument of the lowered call, in the runtime's order.
  struct LoweredParam {
    enum class Transform { None, Log, Cholesky, CholeskyOfInverse };
    std::string Name;
    ExprPtr Value;
    Shape Target; // broadcast to this local shape (batch ++ its event)
    Transform Fn = Transform::None;
    /// Its leading event axes that are a matrix value's rows, not K
    /// (MatrixNormal's scale_tril_row: 2).
    unsigned RowAxes = 0;
  };
  /// The `dist` attribute: the table's name, or a composite's
  /// ("MixtureSameFamily(Normal)").
  std::string LoweredDist;
  std::vector<LoweredParam> Lowered;
  /// A TransformedDistribution's transforms (ValueTransforms.def's words),
  /// applied to the base's draws; their parameters end Lowered.
  std::vector<std::string> ValueMap;
  Shape OwnShape;
  SampleStmt(SMLoc L, std::string N, SMLoc NL, std::string D, SMLoc DL,
             std::vector<Arg> A, std::optional<std::vector<DimSyntax>> S)
      : Stmt(Kind::Sample, L, std::move(N), NL), Dist(D),
        WrittenDist(std::move(D)), DistLoc(DL), Args(std::move(A)),
        ExplicitShape(std::move(S)) {}
};

/// `plate name(dim) { ... }` and `scan name(dim) { ... }`
struct BlockStmt : Stmt {
  static bool classof(const Stmt *N) { return N->K == Kind::Plate || N->K == Kind::Scan; }
  DimSyntax Dim;
  std::vector<StmtPtr> Body;
  aimz::Dim Resolved; // filled in by Sema
  BlockStmt(Kind K, SMLoc L, std::string N, SMLoc NL, DimSyntax D,
            std::vector<StmtPtr> B)
      : Stmt(K, L, std::move(N), NL), Dim(std::move(D)), Body(std::move(B)) {}
};

/// A parameter of a user-defined function: `a`, `a: f32[K, K]`, `s = 1.0`.
struct FunctionParam {
  std::string Name;
  SMLoc Loc;
  std::optional<TypeSyntax> Type;
  ExprPtr Default; // null when the argument is required
};

/// `def name(params) -> type { let ...; return expr; }`: a pure function of
/// values, declared before the model and inlined at every call before
/// semantic analysis (Functions.cpp).
struct FunctionDef {
  std::string Name;
  SMLoc Loc, NameLoc;
  std::vector<FunctionParam> Params;
  std::optional<TypeSyntax> Result;
  std::vector<StmtPtr> Body; // `let` statements
  ExprPtr Return;
};

struct Model {
  std::vector<FunctionDef> Functions;
  std::string Name;
  SMLoc Loc, NameLoc;
  std::vector<Param> Inputs;
  /// The observed outputs, in signature order (one or more).
  std::vector<Param> Outputs;
  std::vector<StmtPtr> Body;

  const Param *findOutput(llvm::StringRef N) const {
    for (const Param &P : Outputs)
      if (P.Name == N)
        return &P;
    return nullptr;
  }
};

/// Prints the tree in an indented, line-per-node form (`--emit=ast`).
void dumpAST(const Model &M, llvm::raw_ostream &OS);

} // namespace aimz

#endif // AIMZ_AST_H
