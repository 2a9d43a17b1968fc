//===- Analyzer.h - Semantic analysis of one model --------------*- C++ -*-===//
//
// Private to lib/Sema. A single pass over the statements in program order
// with a stack of open plates. Every name is defined once and keeps its full
// shape (enclosing plate dims first); a reference inside plates sees it one
// element at a time along each open plate whose dim leads its remaining
// shape. The pass is split by concern:
//
//   Sema.cpp            the public entry, names, the run
//   Signature.cpp       inputs, output, constants and dimensions
//   Statements.cpp      let/deterministic/factor, plates and scans
//   SampleSites.cpp     `x ~ Dist(...)`: the site's shape, the output's checks
//   DistributionCalls.cpp  a distribution's arguments, batch and event shapes
//   Composites.cpp      mixtures, ordered and truncated distributions
//   Expressions.cpp     types and shapes of expressions, operators, names
//   Calls.cpp           calls of the builtins (Builtins.def)
//   Indexing.cpp        x[i], gathers and new axes (Slices.cpp: views)
//   Classification.cpp  site classes and the sharding plan
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_SEMA_ANALYZER_H
#define AIMZ_SEMA_ANALYZER_H

#include "aimz/DimExpr.h"
#include "aimz/Builtins.h"
#include "aimz/Diagnostics.h"
#include "aimz/Distributions.h"
#include "aimz/Sema.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <set>

namespace aimz {
namespace sema {

/// What a name refers to.
struct Symbol {
  enum class Kind {
    Input, Const, Let, Transformed, Deterministic, Factor, Sample,
    /// An output with no `~` statement, read by factors: the observed data.
    ScoreOnly
  } K;
  DType Type;
  Shape Dims; // full shape
  SMLoc Loc;
  int64_t ConstValue = 0;
  bool Poisoned = false; // its definition had an error: uses stay silent
  /// A `const` of dimension arithmetic (`const K1 = K - 1;`): its text.
  std::string DimText = {};
  /// A `let` computed from a score-only output: the output's name.
  std::string ReadsScoreOnly = {};
  /// A transformed value: the pre-pass round from which it can be computed
  /// (0 unless it reads a statistic the pre-pass computes).
  int Round = 0;
};

/// The elements of a list or tuple argument, or of one value
/// (ArrayFunctions.cpp).
std::vector<const Expr *> elementsOf(const Expr &E);

/// A shape's dimension as a polynomial (Dimensions.cpp).
DimPoly polyOf(const Dim &D);

/// One open plate or scan.
struct OpenBlock {
  const BlockStmt *Block;
  Dim D;
};

const char *kindWord(Symbol::Kind K);
inline bool isNumeric(DType T) { return T != DType::Bool; }
/// A TransformedDistribution's transforms with an OrderedTransform
/// (TransformedSugar.cpp).
bool isOrderedTransform(const ExprPtr &Transforms);
/// A literal as the user would write it: `-1`, `0.5`.
std::string formatNumber(double V);
/// "a" or "an" before a word.
const char *article(llvm::StringRef Word);

class Analyzer {
public:
  Analyzer(Model &M, Diagnostics &D, std::optional<DType> Requested)
      : M(M), Diags(D), Requested(Requested) {}

  std::optional<ModelInfo> run();

private:
  Model &M;
  Diagnostics &Diags;
  std::optional<DType> Requested; // --precision
  ModelInfo Info;
  std::map<std::string, Symbol> Names;
  std::map<std::string, SMLoc> LaterDefinitions; // for "defined later" notes
  std::set<std::string> BoundSymbols;            // dims the data binds
  /// While resolving a sample site's shape or a plate's extent: an unknown
  /// name becomes a dimension the posterior binds.
  bool AllowPosteriorDims = false;
  std::map<std::string, SMLoc> PosteriorDimLocs;
  std::vector<OpenBlock> Blocks;
  std::set<std::string> SampledOutputs;
  /// Outputs with a `~` statement anywhere (collectNames); the others are
  /// score-only: read by factors, never drawn.
  std::set<std::string> OutputsWithSample;
  /// Score-only outputs read, and the plates over their axes where read.
  std::map<std::string, std::vector<std::string>> ScoreOnlyUsed;
  void noteScoreOnlyRead(const std::string &Name, const Shape &Dims);
  /// The score-only output the statement being checked reads, directly or
  /// through a `let` (empty: none).
  std::string StmtReadsScoreOnly;
  /// A statement other than a factor or let that reads a score-only output
  /// is an error: its values do not exist when predicting.
  bool refuseScoreOnlyRead(const Stmt &S, const char *What);
  void defineScoreOnlyOutputs();
  /// The output `E` reads (directly, or through a `let` of a score-only
  /// one), or "".
  std::string outputReadBy(const Expr &E) const;
  /// An index of an output's observation axis other than ':' reads another
  /// observation's value (y[t - 1]): an autoregression, refused (E0508).
  bool keepsOutputRows(const IndexExpr &E);
  void addScoreOnlySites();
  /// Inside `transformed NAME = ...;`: names are data only, and reductions
  /// along the observation axis of an input are computed before the run.
  bool InTransformed = false;

  // Signature and dimensions.
  /// `const NAME = <arithmetic on dimensions>;`, resolved where used.
  std::map<std::string, const ConstStmt *> ConstArith;
  std::optional<DimPoly> dimPoly(const Expr &E, bool MustBeBound,
                                 unsigned Depth = 0);
  std::optional<DimPoly> namePoly(const NameExpr &N, bool MustBeBound,
                                  unsigned Depth);
  std::optional<DimPoly> overflow(SMLoc Loc);
  /// The shape dimension of `P` (a derived one is recorded for the
  /// runtime's check); an error for a constant below 1 (0 if AllowZero).
  std::optional<Dim> dimOf(const DimPoly &P, SMLoc Loc, bool AllowZero = false);
  /// Records that the runtime must find `P` >= 0 (`What` says why).
  void requireNonNegative(const DimPoly &P, SMLoc Loc, const std::string &What);
  std::optional<Dim> resolveDim(const DimSyntax &D, bool MustBeBound);
  std::optional<Shape> resolveDims(const std::vector<DimSyntax> &Ds,
                                   bool MustBeBound);
  bool checkSignature();
  bool checkOutputs(bool &Ok, bool &AnyF64);
  void bindSignatureSymbols();
  bool checkInputs(bool &AnyF64);
  void collectNames(const std::vector<StmtPtr> &Body);

  // Statements.
  void analyzeBody(const std::vector<StmtPtr> &Body);
  void analyzeStmt(Stmt &S);
  void analyzeConst(ConstStmt &C);
  void analyzeFactor(AssignStmt &A);
  void analyzeAssign(AssignStmt &A);
  // Statements inlined from user-defined functions (InlinedCalls.cpp).
  /// Dimension names of a function's declared types, bound per call
  /// ("f#1.K") by the first value checked against them.
  std::map<std::string, Dim> FunctionDims;
  bool checkDeclaredType(const AssignStmt &A);
  /// After errors in an inlined statement: where the function was called.
  void noteInlinedCall(const AssignStmt &A, unsigned ErrorsBefore);
  /// Records a deterministic or factor site: computed, not sampled.
  void addValueSite(const AssignStmt &A, DType T, const Shape &Full,
                    SiteKind K);
  // Sample sites (SampleSites.cpp).
  void analyzeSample(SampleStmt &S);
  /// A distribution call's arguments checked against its parameters.
  struct BoundCall {
    std::string Dist; // the lowered `dist` attribute
    std::vector<SampleStmt::LoweredParam> Params; // Target: event rank only
    std::optional<Shape> Batch;
    std::optional<Dim> EventSize;
    /// A matrix value [EventRows, EventSize] whose rows are their own
    /// count (MatrixNormal).
    std::optional<Dim> EventRows;
    unsigned ValueEventRank = 0;
    bool Discrete = false;
    bool Ok = true;
    /// Only scalars where a vector goes (Dirichlet(1.0)): the event size
    /// must come from the site's explicit shape (its last axis).
    bool EventFromShape = false;
    std::string EventParams; // "'concentration'", for the message
    /// A TransformedDistribution's transforms (ValueTransforms.def's
    /// words), whose parameters end Params.
    std::vector<std::string> ValueMap;
    /// `Rank` event axes, the first `Rows` of them the rows.
    Shape eventAxes(size_t Rank, unsigned Rows) const {
      Shape S(Rows, EventRows ? *EventRows : Dim());
      S.insert(S.end(), Rank - Rows, *EventSize);
      return S;
    }
    Shape valueEvent() const {
      return eventAxes(ValueEventRank, EventRows ? 1 : 0);
    }
  };
  /// `ShapeMayGiveEvent`: a sample site with an explicit shape, whose last
  /// axis may give the event size the parameters do not.
  std::optional<BoundCall> bindCall(const DistSpec &Spec,
                                    const std::vector<Arg> &Args, SMLoc Loc,
                                    bool ShapeMayGiveEvent = false);
  void reportMissingEventSize(const DistSpec &Spec, const BoundCall &R,
                              SMLoc Loc);
  bool bindLogProbEvent(CallExpr &E, const DistSpec &Spec, BoundCall &Bound,
                        const Expr &X, Shape &ValueEvent, Shape &XBatch);
  void reportUnknownDistribution(const SampleStmt &S);
  std::string takeImproperSupport(SampleStmt &S, bool IsOutput, bool &Ok);
  std::optional<BoundCall> bindSampleCall(SampleStmt &S, const DistSpec &Spec,
                                          bool IsOutput);
  Shape siteShape(SampleStmt &S, BoundCall &Call, bool &Ok);
  void lowerParams(SampleStmt &S, BoundCall &Call, const Shape &Own);
  bool checkOutputSite(const SampleStmt &S, const DistSpec &Spec,
                       const BoundCall &Call, const Shape &Full, DType &T);
  void addSampleSite(const SampleStmt &S, DType T, const Shape &Full,
                     const std::string &Support, const BoundCall &Call,
                     bool IsOutput);

  // A distribution call's arguments (DistributionCalls.cpp).
  /// Which parameter set the event size so far, and its event shape.
  struct EventSource {
    const char *Param = nullptr;
    Shape Dims;
  };
  /// The event size's source, and the rows' (MatrixNormal).
  struct EventSources {
    EventSource Size, Rows;
  };
  bool checkTruncationInterval(const Expr &Low, const Expr &High, bool Counts,
                               SMLoc Loc);
  std::vector<ExprPtr> aliasArguments(const DistSpec &Alias,
                                      const std::vector<ExprPtr> &Given,
                                      SMLoc DistLoc, bool &Ok);
  std::vector<ExprPtr> bindArguments(const DistSpec &Spec,
                                     const std::vector<Arg> &Args, bool &Ok);
  void checkExactlyOneOf(const DistSpec &Spec,
                         const std::vector<ExprPtr> &Bound, SMLoc DistLoc,
                         bool &Ok);
  void bindParam(const DistSpec &Spec, const DistParam &P, ExprPtr &Arg,
                 SMLoc DistLoc, BoundCall &R, EventSources &Event);
  void bindDefault(const DistSpec &Spec, const DistParam &P, ExprPtr &Arg,
                   SMLoc DistLoc, BoundCall &R);
  bool checkParamValue(const DistSpec &Spec, const DistParam &P, Expr &E,
                       std::optional<double> &V, bool &Ok);
  void mergeEventShape(const DistSpec &Spec, const DistParam &P, const Expr &E,
                       const Shape &PEvent, BoundCall &R, EventSources &Event);

  // Composites (Composites.cpp, GatedComposites.cpp).
  std::optional<BoundCall> bindMixture(SampleStmt &S);
  std::optional<BoundCall> bindOrdered(SampleStmt &S, bool IsOutput);
  /// TransformedDistribution: ordered (bindOrdered), or a base of numbers
  /// whose values go through elementwise transforms (Transformed.cpp).
  std::optional<BoundCall> bindTransformed(SampleStmt &S, bool IsOutput);
  /// MixtureGeneral(Categorical(...), [A(...), B(...), ...]) of different
  /// families (MixtureGeneral.cpp); one family is rewritten into
  /// MixtureSameFamily before (MixtureSugar.cpp).
  std::optional<BoundCall> bindMixtureGeneral(SampleStmt &S);
  std::optional<BoundCall> bindMixtureComponent(const Expr &E);
  bool rewriteMixture(std::string &Dist, std::vector<Arg> &Args, SMLoc Loc);
  ExprPtr stackComponents(const std::vector<CallExpr *> &Comps, SMLoc Loc);
  bool bindValueTransform(const CallExpr &T, BoundCall &R);
  std::optional<BoundCall> bindTruncated(SampleStmt &S);
  /// LeftCensoredDistribution, RightCensoredDistribution, Censored
  /// (Censored.cpp).
  std::optional<BoundCall> bindCensored(SampleStmt &S);
  std::optional<BoundCall> bindCopula(SampleStmt &S);
  std::optional<BoundCall> bindSineSkewed(SampleStmt &S);
  std::optional<SampleStmt::LoweredParam>
  bindCorrelation(SampleStmt &S, const char *&Name, Dim &K, Shape &Batch);
  std::optional<BoundCall> bindFolded(SampleStmt &S);
  std::optional<BoundCall> bindMasked(SampleStmt &S, bool IsOutput);
  /// A composite's base over numbers (argument 0): its call, its spec, its
  /// bound parameters and its runtime row's symbol; Symbol is empty when
  /// the base is not a distribution of numbers (an event, a composite, an
  /// improper prior). Nullopt after an error in the call itself.
  /// A composite's base of numbers: its call, its table row, its bound
  /// parameters, its runtime row (empty for a base with an event or none)
  /// and its name inside the composite's (compositeName).
  struct NumberBase {
    const CallExpr *Call;
    const DistSpec *Spec;
    BoundCall Bound;
    std::string Symbol;
    std::string Name;
  };
  std::optional<NumberBase> bindNumberBase(SampleStmt &S);
  /// A distribution call as an unnamed sample site (a composite's base, a
  /// log_prob's distribution), so that the site's binding rules apply.
  static SampleStmt siteOfCall(const CallExpr &Call, const DistSpec &Spec);
  std::optional<NumberBase> bindFoldedBase(const CallExpr &Call,
                                           const DistSpec &Spec);
  bool bindBivariateSkewed(SampleStmt &S, const NumberBase &NB,
                           SampleStmt::LoweredParam Skewness, BoundCall &R);
  bool bindEventComposite(SampleStmt &S, const NumberBase &NB,
                          SampleStmt::LoweredParam Extra,
                          const char *ExtraName, const Shape &ExtraBatch,
                          BoundCall &R);
  /// The composite's argument for its parameter `Index` (the last one that
  /// binds it), or null.
  ExprPtr compositeArg(const SampleStmt &S, size_t Index) const;
  /// A parameter after the base's (a bound, an indicator): analyzed,
  /// broadcast with R.Batch and appended to R.Params. `NotNumber`, when
  /// given, reports a bool value (which is then refused).
  bool bindTrailingParam(const char *Name, const ExprPtr &E, BoundCall &R,
                         llvm::function_ref<void()> NotNumber);
  /// A literal in the model's precision (a bound left out).
  ExprPtr precisionLiteral(SMLoc Loc, double V);
  /// ZeroInflatedDistribution(base, gate=) and HurdleDistribution(base,
  /// gate=) become the named distribution they equal (GatedComposites.cpp).
  /// ZeroInflatedDistribution / HurdleDistribution(base, gate=): the
  /// distribution it equals (GatedComposites.cpp); true when not one.
  bool nameBaseArguments(const CallExpr &Base, std::vector<Arg> &Named);
  bool rewriteGatedComposite(std::string &Dist, std::vector<Arg> &Args,
                             SMLoc Loc);
  bool applyDistMethods(SampleStmt &S, bool IsOutput);
  bool rewriteTransformed(std::string &Dist, std::vector<Arg> &Args,
                          SMLoc Loc);
  void liftTransformedShape(SampleStmt &S);
  bool rewriteDistributionSugar(std::string &Dist, std::vector<Arg> &Args,
                                SMLoc Loc);
  const CallExpr *distributionArg(const SampleStmt &S, size_t Index,
                                  const char *What);
  void analyzeBlock(BlockStmt &B);
  bool define(const Stmt &S, Symbol Sym);
  void poisonBody(const std::vector<StmtPtr> &Body) {
    for (const StmtPtr &S : Body) {
      if (auto *Bl = llvm::dyn_cast<BlockStmt>(S.get()))
        poisonBody(Bl->Body);
      else
        poison(*S);
    }
  }
  void poison(const Stmt &S) {
    Names.emplace(S.Name, Symbol{Symbol::Kind::Let, DType::F32, {}, S.NameLoc,
                                 0, true, ""});
  }
  Shape plateDims() const;
  /// The plate of each of `Rank` axes of a site defined here (plateDims()
  /// leads its shape): a plate's name, empty for a scan's axis and the
  /// site's own axes.
  std::vector<std::string> plateNames(size_t Rank) const;
  const BlockStmt *enclosingScan() const;

  // Expressions; each returns false after reporting an error.
  bool analyzeExpr(Expr &E);
  bool analyzeName(NameExpr &E);
  bool analyzeBinary(BinaryExpr &E);
  bool analyzeMatMul(BinaryExpr &E);
  // Calls of the builtins (Calls.cpp).
  bool analyzeCall(CallExpr &E);
  bool checkMinMaxAxis(const CallExpr &E);
  bool takeAxisArg(CallExpr &E, std::optional<int64_t> &Axis, SMLoc &AxisLoc);
  bool analyzeCallArgs(CallExpr &E, bool AxisFn);
  bool checkCallArity(CallExpr &E, const Builtin &Fn);
  bool analyzeWhere(CallExpr &E);
  std::optional<bool> analyzeCallAxis(CallExpr &E, const Builtin &Fn,
                                      std::optional<int64_t> Axis,
                                      SMLoc AxisLoc);
  bool typeCall(CallExpr &E, const Builtin &Fn);
  bool typeBroadcastCall(CallExpr &E, const Builtin &Fn);
  bool analyzeLikeConstructor(CallExpr &E);
  bool analyzeConstructor(CallExpr &E, const Builtin &Fn);
  bool analyzeMatrixHelper(CallExpr &E, const Builtin &Fn);
  bool analyzeVecToTril(CallExpr &E);
  std::optional<DimPoly> trilLength(const DimPoly &Rows, int64_t C, int64_t K,
                                    SMLoc RowsLoc, SMLoc Loc);
  /// A reduction along the observation axis inside transformed data
  /// (TransformedData.cpp).
  bool analyzeDataReduction(CallExpr &E, const Builtin &Fn);
  /// A statistic of any other expression of the data, computed by the
  /// compiled pre-pass (`mean(log(x))`).
  bool analyzeDataReductionOfExpr(CallExpr &E, const std::string &Op);
  int addDerivedInput(ModelInfo::DerivedInput D);
  /// The pre-pass round from which `E`, an expression of the data, can be
  /// computed: 0, or one after the latest round of a statistic it reads.
  int dataRound(const Expr &E) const;
  /// `A @ B` contracting the observation axis in transformed data: the sum
  /// over rows of each row's product (`X.T @ X`, `X.T @ y`, `x @ y`).
  /// `L` and `R` are unanalyzed copies of the operands.
  bool analyzeDataMatMul(BinaryExpr &E, const ExprPtr &L, const ExprPtr &R);
  void analyzeTransformed(AssignStmt &S);
  /// After a refused reduction along the observation axis of an input: a
  /// note that transformed data can compute it.
  void noteTransformedData(const CallExpr &E);
  bool analyzeLogProb(CallExpr &E); // LogProb.cpp
  std::optional<std::vector<int64_t>> integerList(const Expr &E) const;
  std::optional<bool> reduceOverAxes(CallExpr &E, const Builtin &Fn);
  std::optional<std::vector<int64_t>> axesPermutation(CallExpr &E);
  void recordLogProb(CallExpr &E, const BoundCall &Bound,
                     const std::string &Dist, const Shape &Out,
                     const Shape *ValueEvent);
  bool analyzeMaskedLogProb(CallExpr &E, const CallExpr &D,
                            const DistSpec &Spec);
  // Indexing (Indexing.cpp).
  bool analyzeIndex(IndexExpr &E);
  bool analyzeNewAxes(IndexExpr &E, size_t Axes, size_t Kept);
  bool analyzeGather(IndexExpr &E);
  bool analyzeMixedIndex(IndexExpr &E);
  bool expandEllipsis(IndexExpr &E);
  void bindPosteriorDim(const std::string &Name, SMLoc Loc);
  std::optional<bool> viewOfDataReduction(CallExpr &E, const Builtin &Fn);
  void bindSizeParam(const DistSpec &Spec, const DistParam &P, const Expr &E,
                     BoundCall &R);
  // ArrayFunctions.cpp
  bool analyzeArrayFunction(CallExpr &E, const Builtin &Fn);
  bool bindArrayArgs(CallExpr &E, std::vector<Expr *> &Bound);
  std::optional<int64_t> constantAxis(const Expr &A, const Shape &S,
                                      int64_t Rank);
  std::optional<Dim> countArg(const Expr &C, const CallExpr &E,
                              llvm::StringRef What);
  std::optional<Dim> dimArith(const Dim &D, const Dim &R, bool Times,
                              SMLoc Loc);
  bool analyzeJoin(CallExpr &E, Expr &List, const Expr *AxisArg);
  bool analyzePad(CallExpr &E, Expr &X, const Expr &Width, const Expr *Value);
  bool analyzeBroadcastTo(CallExpr &E, Expr &X, const Expr &ShapeArg);
  bool analyzeReorder(CallExpr &E, const std::vector<Expr *> &Args);
  bool analyzeTile(CallExpr &E, Expr &X, const Expr &Reps);
  bool analyzeTake(CallExpr &E, Expr &X, Expr &Idx);
  bool analyzeNode(Expr &E);
  size_t obsAxisCount(const Shape &S) const;
  bool isObsAxisName(const Expr &E) const;
  bool checkSiteRows(const Stmt &S, const Shape &Own, unsigned EventRank);
  bool mixedIndexAxis(IndexExpr &E, size_t P, Shape &IndexShape,
                      std::vector<unsigned> &Advanced);
  bool checkGatherIndex(const Expr &Ix, const Dim &D);
  bool analyzeArray(ArrayExpr &E);
  bool analyzeAttr(AttrExpr &E);
  bool analyzeSlices(IndexExpr &E);
  std::optional<Dim> constantIndex(const Expr &I, const Dim &D);
  bool sliceAxis(SliceExpr &Sl, const Dim &D, bool &Ok);
  bool isDimArith(const Expr &E) const;
  Shape viewInPlates(const Shape &Full) const;
  DType arithmeticType(const ExprType &A, const ExprType &B) const;
  std::optional<double> literalValue(const Expr &E) const;
  void noteObservationMixing(SMLoc Loc, const Dim &D, const char *What,
                             const CallExpr *Reduced = nullptr);

  // Site classes and the plan (Classification.cpp).
  SiteClass classify(const Shape &Full, unsigned EventRank = 0) const;
  void choosePlan();
};

} // namespace sema
} // namespace aimz

#endif // AIMZ_SEMA_ANALYZER_H
