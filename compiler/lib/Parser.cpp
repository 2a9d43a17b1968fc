//===- Parser.cpp - .aimz source to AST with Boost.Spirit X3 --------------===//
//
// The grammar builds AST nodes directly in semantic actions. Every rule's
// attribute is a copyable handle (shared_ptr or a small struct), so X3 can
// backtrack freely. Left-associative chains are folded iteratively and `^`
// chains are folded right-to-left from a list, so only brackets recurse;
// their depth is checked before parsing starts.
//
//===----------------------------------------------------------------------===//
#include "aimz/Parser.h"
#include "aimz/Diagnostics.h"

#include <boost/fusion/include/at_c.hpp>
#include <boost/optional.hpp>
#include <boost/spirit/home/x3.hpp>

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace aimz {
namespace {

namespace x3 = boost::spirit::x3;
namespace fusion = boost::fusion;
using Iter = const char *;
using Range = boost::iterator_range<Iter>;

/// An identifier and where it starts.
struct Ident {
  std::string Name;
  Iter Pos = nullptr;
};

/// `: stop` after a slice's optional start.
struct SliceTail {
  bool Colon = false;
  ExprPtr Stop;
};

/// One `^ -x` step of a power chain: the negations before the operand.
struct PowStep {
  std::vector<Range> Negs;
  ExprPtr Operand;
};

SMLoc locOf(Iter P) { return SMLoc::getFromPointer(P); }

/// The first character at or after P that is not a blank or in a comment.
Iter skipTrivia(Iter P, Iter End) {
  while (P != End) {
    if (*P == '#')
      while (P != End && *P != '\n')
        ++P;
    else if (std::isspace(static_cast<unsigned char>(*P)))
      ++P;
    else
      break;
  }
  return P;
}

/// Where a statement's first token starts: X3 reports the range from before
/// the skipper ran, so step over blanks and comments.
template <typename Ctx> SMLoc kwLoc(Ctx &C) {
  return locOf(skipTrivia(x3::_where(C).begin(), x3::_where(C).end()));
}

/// Parser-wide state reachable from semantic actions: the first too-deep
/// expression and the first out-of-range number, reported after parsing.
struct ParseState {
  Iter TooDeep = nullptr;
  Iter BadNumber = nullptr;
  diag::DiagId BadNumberWhy = diag::E_NUMBER_TOO_LARGE;
  std::string BadNumberText; // the literal, the report's argument
};
struct ParseStateTag;

template <typename Ctx> ParseState &state(Ctx &C) {
  return x3::get<ParseStateTag>(C).get();
}

/// Builds a node and records its depth; past MaxExprDepth the deeper node is
/// not built (the parse fails later with a diagnostic).
template <typename Ctx>
ExprPtr combine(Ctx &C, ExprPtr Node, std::initializer_list<const Expr *> Kids) {
  unsigned D = 0;
  for (const Expr *K : Kids)
    D = std::max(D, K->Depth);
  Node->Depth = D + 1;
  if (Node->Depth > MaxExprDepth && !state(C).TooDeep)
    state(C).TooDeep = llvm::SMLoc(Node->Loc).getPointer();
  return Node;
}

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

const auto identChar = x3::alnum | x3::char_('_');

auto kw(const char *Word) {
  return x3::lexeme[x3::lit(Word) >> !identChar];
}

const auto keyword = kw("model") | kw("def") | kw("return") | kw("plate") | kw("scan") | kw("let") |
                     kw("transformed") |
                     kw("deterministic") | kw("factor") | kw("const") |
                     kw("true") |
                     kw("false");

x3::rule<class IdentClass, Ident> const ident = "identifier";
const auto ident_def =
    x3::raw[x3::lexeme[!keyword >> (x3::alpha | x3::char_('_')) >>
                       *identChar]][([](auto &C) {
      Range R = x3::_attr(C);
      x3::_val(C) = Ident{std::string(R.begin(), R.end()), R.begin()};
    })];

const auto digits = +x3::digit;
const auto exponent = (x3::char_("eE") >> -x3::char_("+-") >> digits);
const auto numberText = x3::raw[x3::lexeme[(digits >> -('.' >> *x3::digit) |
                                            '.' >> digits) >>
                                           -exponent >> !identChar]];

x3::rule<class NumberClass, ExprPtr> const number = "number";
const auto number_def = numberText[([](auto &C) {
  Range R = x3::_attr(C);
  std::string Text(R.begin(), R.end());
  bool IsInt = Text.find_first_of(".eE") == std::string::npos;
  errno = 0;
  double V = std::strtod(Text.c_str(), nullptr);
  if (IsInt) {
    errno = 0;
    long long I = std::strtoll(Text.c_str(), nullptr, 10);
    if (errno == ERANGE && !state(C).BadNumber) {
      state(C).BadNumber = R.begin();
      state(C).BadNumberWhy = diag::E_INTEGER_TOO_LARGE;
      state(C).BadNumberText = Text;
    }
    V = static_cast<double>(I);
    auto N = std::make_shared<NumberExpr>(locOf(R.begin()), V, true);
    N->IntValue = I;
    x3::_val(C) = N;
    return;
  } else if (errno == ERANGE && std::abs(V) > 1.0 && !state(C).BadNumber) {
    state(C).BadNumber = R.begin();
    state(C).BadNumberWhy = diag::E_NUMBER_TOO_LARGE;
    state(C).BadNumberText = Text;
  }
  x3::_val(C) = std::make_shared<NumberExpr>(locOf(R.begin()), V, IsInt);
})];

x3::rule<class IntegerClass, Ident> const integer = "integer";
const auto integer_def = x3::raw[x3::lexeme[digits >> !identChar >>
                                            !x3::lit('.')]][([](auto &C) {
  Range R = x3::_attr(C);
  x3::_val(C) = Ident{std::string(R.begin(), R.end()), R.begin()};
})];

/// Parses an integer's text; reports overflow through the parse state.
template <typename Ctx> int64_t toInt(Ctx &C, const Ident &I) {
  errno = 0;
  long long V = std::strtoll(I.Name.c_str(), nullptr, 10);
  if (errno == ERANGE && !state(C).BadNumber) {
    state(C).BadNumber = I.Pos;
    state(C).BadNumberWhy = diag::E_INTEGER_TOO_LARGE;
    state(C).BadNumberText = I.Name;
  }
  return V;
}

//===----------------------------------------------------------------------===//
// Types and dimensions
//===----------------------------------------------------------------------===//

struct DTypeSymbols : x3::symbols<DType> {
  DTypeSymbols() {
    add("f32", DType::F32)("f64", DType::F64)("i32", DType::I32)(
        "i64", DType::I64)("bool", DType::Bool);
  }
} const dtypeSymbols;

x3::rule<class ExprClass, ExprPtr> const expr = "expression";
x3::rule<class AddClass, ExprPtr> const additive = "expression";

// A name, an integer, or arithmetic on them (`K - 1`), which Sema checks.
x3::rule<class DimClass, DimSyntax> const dim = "dimension";
const auto dim_def = additive[([](auto &C) {
  x3::_val(C) = dimSyntaxOf(x3::_attr(C));
})];

x3::rule<class DimListClass, std::vector<DimSyntax>> const dimList =
    "dimension list";
const auto dimList_def = x3::lit('[') > -(dim % ',') > ']';

x3::rule<class TypeClass, TypeSyntax> const type = "type";
// `f32` alone is a scalar: no dimension list.
const auto type_def = (x3::lexeme[dtypeSymbols >> !identChar] >
                       -dimList)[([](auto &C) {
  auto &A = x3::_attr(C);
  TypeSyntax T;
  T.Type = fusion::at_c<0>(A);
  if (const auto &Dims = fusion::at_c<1>(A))
    T.Dims = *Dims;
  T.Loc = kwLoc(C);
  x3::_val(C) = std::move(T);
})];

x3::rule<class ParamClass, Param> const param = "parameter";
const auto param_def = (ident > ':' > type)[([](auto &C) {
  auto &A = x3::_attr(C);
  const Ident &I = fusion::at_c<0>(A);
  TypeSyntax T = fusion::at_c<1>(A);
  // The type starts after the ':' that follows the name.
  Iter P = skipTrivia(I.Pos + I.Name.size(), x3::_where(C).end());
  T.Loc = locOf(skipTrivia(P + 1, x3::_where(C).end()));
  x3::_val(C) = Param{I.Name, T, locOf(I.Pos)};
})];

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

struct CmpOps : x3::symbols<BinaryOp> {
  CmpOps() {
    add("<", BinaryOp::Lt)("<=", BinaryOp::Le)(">", BinaryOp::Gt)(
        ">=", BinaryOp::Ge)("==", BinaryOp::Eq)("!=", BinaryOp::Ne);
  }
} const cmpOps;
struct AddOps : x3::symbols<BinaryOp> {
  AddOps() { add("+", BinaryOp::Add)("-", BinaryOp::Sub); }
} const addOps;
struct MulOps : x3::symbols<BinaryOp> {
  MulOps() {
    add("*", BinaryOp::Mul)("/", BinaryOp::Div)("@", BinaryOp::MatMul);
  }
} const mulOps;

x3::rule<class PrimaryClass, ExprPtr> const primary = "expression";
x3::rule<class PostfixClass, ExprPtr> const postfix = "expression";
x3::rule<class PowStepClass, PowStep> const powStep = "expression";
x3::rule<class PowerClass, ExprPtr> const power = "expression";
x3::rule<class UnaryClass, ExprPtr> const unary = "expression";
x3::rule<class MulClass, ExprPtr> const multiplicative = "expression";
x3::rule<class ArgClass, Arg> const arg = "argument";
x3::rule<class ArgListClass, std::vector<Arg>> const argList = "arguments";
x3::rule<class CallClass, ExprPtr> const call = "call";
x3::rule<class ArrayClass, ExprPtr> const array = "array literal";
x3::rule<class IndexItemClass, ExprPtr> const indexItem = "index";
x3::rule<class SliceTailClass, SliceTail> const sliceTail = "index";
x3::rule<class ParenClass, Range> const openParen = "'('";

const auto setVal = [](auto &C) { x3::_val(C) = x3::_attr(C); };

template <typename Ctx> void foldBinary(Ctx &C) {
  auto &A = x3::_attr(C);
  ExprPtr L = x3::_val(C), R = fusion::at_c<1>(A);
  auto Node = std::make_shared<BinaryExpr>(L->Loc, fusion::at_c<0>(A), L, R);
  x3::_val(C) = combine(C, Node, {L.get(), R.get()});
}
const auto foldBinaryAction = [](auto &C) { foldBinary(C); };

/// Applies negations innermost-first: `--x` is `-(-x)`.
template <typename Ctx>
ExprPtr negate(Ctx &C, const std::vector<Range> &Negs, ExprPtr E) {
  for (auto It = Negs.rbegin(); It != Negs.rend(); ++It) {
    auto Node = std::make_shared<UnaryExpr>(locOf(It->begin()), E);
    E = combine(C, Node, {E.get()});
  }
  return E;
}

/// NumPy's methods, `x.sum(1)`, `X.mean(axis=0)`, `a.dot(b)`: the function
/// of the same name with `x` first. A reduction's first positional
/// argument is its axis, as NumPy's method takes it (so `x.min(1)` is
/// unambiguous where `min(x, 1)` is not).
/// Module prefixes a NumPyro, JAX or PyMC model writes before a function or
/// distribution (`jnp.exp`, `jax.nn.softmax`, `dist.Normal`, `pm.Normal`):
/// dropped, as the language's names are those modules' own.
bool isModulePrefix(llvm::StringRef Name) {
  static const llvm::StringRef Modules[] = {
      "jnp", "np", "numpy", "jax", "nn", "scipy", "special", "lax", "math",
      "dist", "numpyro", "distributions", "transforms", "pm", "pt"};
  return llvm::is_contained(Modules, Name);
}

/// `jnp`, `jax.nn`, `jax.scipy.special`: a chain of module names.
bool isModulePath(const Expr &E) {
  if (const auto *N = llvm::dyn_cast<NameExpr>(&E))
    return isModulePrefix(N->Name);
  const auto *A = llvm::dyn_cast<AttrExpr>(&E);
  return A && isModulePrefix(A->Name) && isModulePath(*A->Base);
}

template <typename Ctx>
ExprPtr methodCall(Ctx &C, ExprPtr Base, const Ident &Name,
                   std::vector<Arg> Args) {
  SMLoc At = locOf(Name.Pos);
  // jnp.sum(x, 1): NumPy's function, its second positional argument an axis
  // as in NumPy (which the bare min(x, 1) leaves ambiguous).
  bool Module = isModulePath(*Base);
  if (Module) {
    static const llvm::StringRef AxisSecond[] = {
        "sum", "mean", "min", "max", "prod", "cumsum", "cumprod", "std", "var"};
    if (llvm::is_contained(AxisSecond, Name.Name) && Args.size() >= 2 &&
        Args[1].Keyword.empty())
      Args[1].Keyword = "axis";
    auto Node = std::make_shared<CallExpr>(At, Name.Name, std::move(Args));
    unsigned D = 0;
    for (const Arg &Ar : Node->Args)
      D = std::max(D, Ar.Value->Depth);
    Node->Depth = D + 1;
    return Node;
  }
  if (Name.Name == "dot" && Args.size() == 1 && Args[0].Keyword.empty()) {
    auto Node = std::make_shared<BinaryExpr>(Base->Loc, BinaryOp::MatMul,
                                             Base, Args[0].Value);
    return combine(C, Node, {Base.get(), Args[0].Value.get()});
  }
  static const llvm::StringRef Reductions[] = {
      "sum", "mean", "min", "max", "prod", "cumsum", "cumprod", "std", "var"};
  if (llvm::is_contained(Reductions, Name.Name) && !Args.empty() &&
      Args[0].Keyword.empty())
    Args[0].Keyword = "axis";
  Args.insert(Args.begin(), Arg{"", Base->Loc, Base});
  auto Node = std::make_shared<CallExpr>(At, Name.Name, std::move(Args));
  unsigned D = 0;
  for (const Arg &Ar : Node->Args)
    D = std::max(D, Ar.Value->Depth);
  Node->Depth = D + 1;
  if (Node->Depth > MaxExprDepth && !state(C).TooDeep)
    state(C).TooDeep = llvm::SMLoc(Node->Loc).getPointer();
  return Node;
}

/// A distribution's name, module prefixes dropped (`dist.Normal`,
/// `numpyro.distributions.Normal`, `pm.Normal`); another dotted name is
/// kept whole, so that it is reported as unknown.
x3::rule<class DistNameClass, Ident> const distName = "distribution";
const auto distName_def = (ident >> *(x3::lit('.') >> ident))[([](auto &C) {
  auto &A = x3::_attr(C);
  Ident Name = fusion::at_c<0>(A);
  const std::vector<Ident> &Rest = fusion::at_c<1>(A);
  if (Rest.empty()) {
    x3::_val(C) = Name;
    return;
  }
  bool Modules = isModulePrefix(Name.Name);
  for (size_t I = 0; I + 1 < Rest.size(); ++I)
    Modules &= isModulePrefix(Rest[I].Name);
  if (Modules) {
    x3::_val(C) = Rest.back();
    return;
  }
  for (const Ident &R : Rest)
    Name.Name += "." + R.Name;
  x3::_val(C) = Name;
})];
BOOST_SPIRIT_DEFINE(distName)

x3::rule<class KeywordClass, Ident> const keywordName = "keyword";
const auto keywordName_def = ident >> '=' >> !x3::lit('=');

// Separate alternatives, each with its own action, so a failed keyword
// attempt leaves nothing behind.
const auto arg_def = (keywordName >> expr)[([](auto &C) {
                       auto &A = x3::_attr(C);
                       const Ident &K = fusion::at_c<0>(A);
                       x3::_val(C) = Arg{K.Name, locOf(K.Pos),
                                         fusion::at_c<1>(A)};
                     })] |
                     expr[([](auto &C) {
                       ExprPtr V = x3::_attr(C);
                       x3::_val(C) = Arg{"", V->Loc, V};
                     })];
const auto argList_def = -(arg % ',');

const auto call_def = (ident >> '(' >> argList > ')')[([](auto &C) {
  auto &A = x3::_attr(C);
  const Ident &I = fusion::at_c<0>(A);
  auto Node = std::make_shared<CallExpr>(locOf(I.Pos), I.Name,
                                         std::move(fusion::at_c<1>(A)));
  unsigned D = 0;
  for (const Arg &Ar : Node->Args)
    D = std::max(D, Ar.Value->Depth);
  Node->Depth = D + 1;
  x3::_val(C) = Node;
})];

const auto array_def = (x3::lit('[') > (expr % ',') > ']')[(
    [](auto &C) {
      auto Node = std::make_shared<ArrayExpr>(locOf(x3::_where(C).begin()),
                                              std::move(x3::_attr(C)));
      unsigned D = 0;
      for (const ExprPtr &E : Node->Elements)
        D = std::max(D, E->Depth);
      Node->Depth = D + 1;
      x3::_val(C) = Node;
    })];

const auto sliceTail_def = (x3::lit(':') >> -expr)[([](auto &C) {
  SliceTail T;
  T.Colon = true;
  if (auto &Stop = x3::_attr(C))
    T.Stop = *Stop;
  x3::_val(C) = T;
})];

// An index, None, `:`, or a slice `a:b` with either bound left out: one
// pass over the optional start (no backtracking over expressions).
const auto indexItem_def =
    x3::raw[x3::lit("...")][([](auto &C) {
      x3::_val(C) = std::make_shared<AxisExpr>(
          locOf(x3::_attr(C).begin()), false, true);
    })] |
    x3::raw[kw("None")][([](auto &C) {
      x3::_val(C) =
          std::make_shared<AxisExpr>(locOf(x3::_attr(C).begin()), true);
    })] |
    (-expr >> -sliceTail)[([](auto &C) {
      auto &A = x3::_attr(C);
      auto &Start = fusion::at_c<0>(A);
      auto &Tail = fusion::at_c<1>(A);
      SMLoc At = kwLoc(C);
      if (!Tail) {
        if (Start)
          x3::_val(C) = *Start;
        else
          x3::_pass(C) = false;
        return;
      }
      if (!Start && !Tail->Stop) {
        x3::_val(C) = std::make_shared<AxisExpr>(At, false);
        return;
      }
      x3::_val(C) = std::make_shared<SliceExpr>(
          At, Start ? *Start : ExprPtr(), Tail->Stop);
    })];

const auto primary_def =
    number[setVal] | array[setVal] |
    x3::raw[kw("true")][([](auto &C) {
      x3::_val(C) =
          std::make_shared<BoolExpr>(locOf(x3::_attr(C).begin()), true);
    })] |
    x3::raw[kw("false")][([](auto &C) {
      x3::_val(C) =
          std::make_shared<BoolExpr>(locOf(x3::_attr(C).begin()), false);
    })] |
    call[setVal] | ident[([](auto &C) {
      const Ident &I = x3::_attr(C);
      x3::_val(C) = std::make_shared<NameExpr>(locOf(I.Pos), I.Name);
    })] |
    // `(e)`, or Python's tuple `(a, b)` / `(a,)`: an array of its elements
    // (a shape, pad widths, a list to stack).
    (openParen > (expr % ',') > x3::matches[x3::lit(',')] >
     ')')[([](auto &C) {
      auto &A = x3::_attr(C);
      auto &Elements = fusion::at_c<1>(A);
      if (Elements.size() == 1 && !fusion::at_c<2>(A)) {
        x3::_val(C) = Elements.front();
        return;
      }
      auto Node = std::make_shared<ArrayExpr>(
          locOf(fusion::at_c<0>(A).begin()), std::move(Elements));
      unsigned D = 0;
      for (const ExprPtr &E : Node->Elements)
        D = std::max(D, E->Depth);
      Node->Depth = D + 1;
      x3::_val(C) = Node;
    })];

const auto postfix_def =
    primary[setVal] >>
    *(('[' > (indexItem % ',') > ']')[([](auto &C) {
      ExprPtr Base = x3::_val(C);
      auto Node = std::make_shared<IndexExpr>(Base->Loc, Base,
                                              std::move(x3::_attr(C)));
      unsigned D = Base->Depth;
      for (const ExprPtr &I : Node->Indices)
        D = std::max(D, I->Depth);
      Node->Depth = D + 1;
      // A chain of subscripts nests as deep as brackets do (a[:][:]...).
      if (Node->Depth > MaxExprDepth && !state(C).TooDeep)
        state(C).TooDeep = llvm::SMLoc(Node->Loc).getPointer();
      x3::_val(C) = Node;
    })] |
      (x3::lit('.') > ident >> -('(' >> argList > ')'))[([](auto &C) {
        ExprPtr Base = x3::_val(C);
        auto &A = x3::_attr(C);
        const Ident &Name = fusion::at_c<0>(A);
        auto &Args = fusion::at_c<1>(A);
        if (!Args) {
          auto Node = std::make_shared<AttrExpr>(Base->Loc, Base, Name.Name);
          x3::_val(C) = combine(C, Node, {Base.get()});
          return;
        }
        x3::_val(C) = methodCall(C, Base, Name, std::move(*Args));
      })]);

x3::rule<class NegClass, Range> const negSign = "'-'";
const auto negSign_def = x3::raw[x3::lit('-')];
const auto openParen_def = x3::raw[x3::lit('(')];
const auto negs = *negSign;

// `^` (Stan) or `**` (Python): tried before `*`, so `a ** 2` is a power.
const auto powStep_def = ((x3::lit("**") | x3::lit('^')) > negs >
                          postfix)[([](auto &C) {
  auto &A = x3::_attr(C);
  x3::_val(C) = PowStep{fusion::at_c<0>(A), fusion::at_c<1>(A)};
})];

// a ^ -b ^ c is a ^ (-(b ^ c)), as in Python.
const auto power_def = (postfix >> *powStep)[([](auto &C) {
  auto &A = x3::_attr(C);
  ExprPtr Base = fusion::at_c<0>(A);
  std::vector<PowStep> &Steps = fusion::at_c<1>(A);
  if (Steps.empty()) {
    x3::_val(C) = Base;
    return;
  }
  ExprPtr Acc = Steps.back().Operand;
  for (size_t I = Steps.size(); I-- > 0;) {
    Acc = negate(C, Steps[I].Negs, Acc);
    ExprPtr L = I == 0 ? Base : Steps[I - 1].Operand;
    auto Node = std::make_shared<BinaryExpr>(L->Loc, BinaryOp::Pow, L, Acc);
    Acc = combine(C, Node, {L.get(), Acc.get()});
  }
  x3::_val(C) = Acc;
})];

const auto unary_def = (negs >> power)[([](auto &C) {
  auto &A = x3::_attr(C);
  x3::_val(C) = negate(C, fusion::at_c<0>(A), fusion::at_c<1>(A));
})];

const auto multiplicative_def =
    unary[setVal] >> *(mulOps > unary)[foldBinaryAction];
const auto additive_def =
    multiplicative[setVal] >> *(addOps > multiplicative)[foldBinaryAction];
const auto expr_def =
    additive[setVal] >> *(cmpOps > additive)[foldBinaryAction];

BOOST_SPIRIT_DEFINE(ident, number, integer, dim, dimList, type, param, expr, negSign,
                    primary, postfix, powStep, power, unary, multiplicative,
                    additive, keywordName, arg, argList, call, array,
                    indexItem, sliceTail, openParen)

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

x3::rule<class StmtClass, StmtPtr> const stmt = "statement";
x3::rule<class BodyClass, std::vector<StmtPtr>> const body = "block";
x3::rule<class ModelClass, std::shared_ptr<Model>> const model = "model";


x3::rule<class constStmtClass, StmtPtr> const constStmt = "statement";
// An integer, or arithmetic on dimensions and constants (`K - 1`).
const auto constStmt_def = (kw("const") > ident > '=' > dim > ';')[([](auto &C) {
  auto &A = x3::_attr(C);
  const Ident &N = fusion::at_c<0>(A);
  const DimSyntax &V = fusion::at_c<1>(A);
  ExprPtr Arith = V.Arith;
  if (!Arith && !V.Name.empty())
    Arith = std::make_shared<NameExpr>(V.Loc, V.Name);
  x3::_val(C) = std::make_shared<ConstStmt>(kwLoc(C), N.Name, locOf(N.Pos),
                                            V.Value, V.Loc, Arith);
})];

template <Stmt::Kind K> auto assignAction() {
  return [](auto &C) {
    auto &A = x3::_attr(C);
    const Ident &N = fusion::at_c<0>(A);
    x3::_val(C) = std::make_shared<AssignStmt>(K, kwLoc(C), N.Name,
                                               locOf(N.Pos), fusion::at_c<1>(A));
  };
}
x3::rule<class letStmtClass, StmtPtr> const letStmt = "statement";
const auto letStmt_def = (kw("let") > ident > '=' > expr >
                      ';')[assignAction<Stmt::Kind::Let>()];
x3::rule<class transformedStmtClass, StmtPtr> const transformedStmt =
    "statement";
const auto transformedStmt_def = (kw("transformed") > ident > '=' > expr >
                                  ';')[assignAction<Stmt::Kind::Transformed>()];
x3::rule<class detStmtClass, StmtPtr> const detStmt = "statement";
const auto detStmt_def = (kw("deterministic") > ident > '=' > expr >
                      ';')[assignAction<Stmt::Kind::Deterministic>()];

x3::rule<class factorStmtClass, StmtPtr> const factorStmt = "statement";
const auto factorStmt_def = (kw("factor") > ident > '=' > expr >
                             ';')[assignAction<Stmt::Kind::Factor>()];

// `.expand([k])`, `.to_event(1)`, `.mask(m)` after a site's distribution.
x3::rule<class distMethodClass, DistMethod> const distMethod = "method";
const auto distMethod_def = (x3::lit('.') > ident > '(' > argList >
                             ')')[([](auto &C) {
  auto &A = x3::_attr(C);
  const Ident &N = fusion::at_c<0>(A);
  x3::_val(C) = DistMethod{N.Name, locOf(N.Pos),
                           std::move(fusion::at_c<1>(A))};
})];
BOOST_SPIRIT_DEFINE(distMethod)

x3::rule<class sampleStmtClass, StmtPtr> const sampleStmt = "statement";
const auto sampleStmt_def = (ident >> '~' > distName > '(' > argList > ')' >
                         *distMethod > -dimList > ';')[([](auto &C) {
  auto &A = x3::_attr(C);
  const Ident &N = fusion::at_c<0>(A);
  const Ident &D = fusion::at_c<1>(A);
  std::optional<std::vector<DimSyntax>> Shape;
  if (fusion::at_c<4>(A))
    Shape = *fusion::at_c<4>(A);
  auto S = std::make_shared<SampleStmt>(
      locOf(N.Pos), N.Name, locOf(N.Pos), D.Name, locOf(D.Pos),
      std::move(fusion::at_c<2>(A)), std::move(Shape));
  S->Methods = std::move(fusion::at_c<3>(A));
  x3::_val(C) = S;
})];

template <Stmt::Kind K> auto blockAction() {
  return [](auto &C) {
    auto &A = x3::_attr(C);
    const Ident &N = fusion::at_c<0>(A);
    x3::_val(C) = std::make_shared<BlockStmt>(
        K, kwLoc(C), N.Name, locOf(N.Pos), fusion::at_c<1>(A),
        std::move(fusion::at_c<2>(A)));
  };
}
x3::rule<class plateStmtClass, StmtPtr> const plateStmt = "statement";
const auto plateStmt_def = (kw("plate") > ident > '(' > dim > ')' >
                        body)[blockAction<Stmt::Kind::Plate>()];
x3::rule<class scanStmtClass, StmtPtr> const scanStmt = "statement";
const auto scanStmt_def = (kw("scan") > ident > '(' > dim > ')' >
                       body)[blockAction<Stmt::Kind::Scan>()];

const auto stmt_def =
    constStmt | letStmt | transformedStmt | detStmt | factorStmt | plateStmt | scanStmt |
    sampleStmt;
const auto body_def = x3::lit('{') > *((!x3::lit('}')) > stmt) > '}';

const auto model_def =
    (kw("model") > ident > '(' > -(param % ',') > ')' > "->" > '(' >
     (param % ',') > ')' > body > x3::eoi)[([](auto &C) {
      auto &A = x3::_attr(C);
      auto M = std::make_shared<Model>();
      const Ident &N = fusion::at_c<0>(A);
      M->Name = N.Name;
      M->NameLoc = locOf(N.Pos);
      M->Loc = kwLoc(C);
      if (fusion::at_c<1>(A))
        M->Inputs = *fusion::at_c<1>(A);
      M->Outputs = fusion::at_c<2>(A);
      M->Body = std::move(fusion::at_c<3>(A));
      x3::_val(C) = M;
    })];

//===----------------------------------------------------------------------===//
// User-defined functions
//===----------------------------------------------------------------------===//

x3::rule<class FnParamClass, FunctionParam> const fnParam = "parameter";
const auto fnParam_def = (ident >> -(':' > type) >>
                          -('=' > expr))[([](auto &C) {
  auto &A = x3::_attr(C);
  const Ident &I = fusion::at_c<0>(A);
  FunctionParam P;
  P.Name = I.Name;
  P.Loc = locOf(I.Pos);
  if (fusion::at_c<1>(A))
    P.Type = *fusion::at_c<1>(A);
  if (fusion::at_c<2>(A))
    P.Default = *fusion::at_c<2>(A);
  x3::_val(C) = std::move(P);
})];

x3::rule<class FnBodyClass, std::vector<StmtPtr>> const fnBody =
    "'let' or 'return'";
const auto fnBody_def = *letStmt;

x3::rule<class FunctionClass, FunctionDef> const function = "function";
const auto function_def =
    (kw("def") > ident > '(' > -(fnParam % ',') > ')' > -("->" > type) >
     '{' > fnBody > kw("return") > expr > ';' > '}')[([](auto &C) {
      auto &A = x3::_attr(C);
      const Ident &N = fusion::at_c<0>(A);
      FunctionDef F;
      F.Name = N.Name;
      F.NameLoc = locOf(N.Pos);
      F.Loc = kwLoc(C);
      if (fusion::at_c<1>(A))
        F.Params = *fusion::at_c<1>(A);
      if (fusion::at_c<2>(A))
        F.Result = *fusion::at_c<2>(A);
      F.Body = std::move(fusion::at_c<3>(A));
      F.Return = fusion::at_c<4>(A);
      x3::_val(C) = std::move(F);
    })];

x3::rule<class ProgramClass, std::shared_ptr<Model>> const program = "model";
const auto program_def = (*function >> model)[([](auto &C) {
  auto &A = x3::_attr(C);
  std::shared_ptr<Model> M = fusion::at_c<1>(A);
  M->Functions = std::move(fusion::at_c<0>(A));
  x3::_val(C) = M;
})];

BOOST_SPIRIT_DEFINE(constStmt, letStmt, transformedStmt, detStmt, factorStmt, sampleStmt, plateStmt,
                    scanStmt, stmt, body, model, fnParam, fnBody, function,
                    program)

const auto skipper =
    x3::space | x3::lexeme['#' >> *(x3::char_ - x3::eol) >> (x3::eol | x3::eoi)];

/// Rejects bracket nesting deeper than MaxNesting before X3 recurses on it.
bool checkNesting(llvm::StringRef Src, Diagnostics &Diags) {
  unsigned Depth = 0;
  for (size_t I = 0; I < Src.size(); ++I) {
    char Ch = Src[I];
    if (Ch == '#') {
      while (I < Src.size() && Src[I] != '\n')
        ++I;
    } else if (Ch == '(' || Ch == '[' || Ch == '{') {
      if (++Depth > MaxNesting) {
        Diags.report(diag::E_BRACKETS_TOO_DEEP, locOf(Src.data() + I))
            << MaxNesting;
        return false;
      }
    } else if ((Ch == ')' || Ch == ']' || Ch == '}') && Depth > 0) {
      --Depth;
    }
  }
  return true;
}

/// Describes what X3 expected in words a user reads.
std::string describeExpected(const std::string &Which) {
  if (Which.size() >= 2 && Which.front() == '\'' && Which.back() == '\'')
    return Which;
  if (Which == "\"->\"")
    return "'->'";
  if (Which.find("eoi") != std::string::npos)
    return "end of file after the model";
  if (Which == "block")
    return "'{'";
  if (Which == "statement")
    return "a statement or '}'";
  // An unnamed composite (a list of expressions) reports its C++ type.
  if (Which.find("spirit") != std::string::npos)
    return "an expression";
  if (!Which.empty() && Which.front() == '"' && Which.back() == '"')
    return "'" + Which.substr(1, Which.size() - 2) + "'";
  const char *Article =
      Which.find_first_of("aeiou") == 0 ? "an " : "a ";
  return Article + Which;
}

} // namespace

std::unique_ptr<Model> parseModel(llvm::StringRef Source, Diagnostics &Diags) {
  if (!checkNesting(Source, Diags))
    return nullptr;
  Iter First = Source.begin(), Last = Source.end();
  ParseState State;
  std::shared_ptr<Model> Result;
  auto Parser = x3::with<ParseStateTag>(std::ref(State))[program];
  try {
    bool Ok = x3::phrase_parse(First, Last, Parser, skipper, Result);
    if (!Ok || !Result) {
      // Only the leading 'model' or 'def' keyword is not an expectation
      // point.
      Iter At = First;
      while (At != Last && std::isspace(static_cast<unsigned char>(*At)))
        ++At;
      Diags.report(diag::E_EXPECTED_MODEL, locOf(At));
      return nullptr;
    }
  } catch (const x3::expectation_failure<Iter> &E) {
    Iter At = skipTrivia(E.where(), Last);
    std::string Expected = describeExpected(E.which());
    if (At == Last)
      Diags.report(diag::E_UNEXPECTED_EOF, locOf(At)) << Expected;
    else
      Diags.report(diag::E_EXPECTED, locOf(At)) << Expected;
    return nullptr;
  }
  if (State.BadNumber) {
    Diags.report(State.BadNumberWhy, locOf(State.BadNumber))
        << State.BadNumberText;
    return nullptr;
  }
  if (State.TooDeep) {
    Diags.report(diag::E_EXPRESSION_TOO_DEEP, locOf(State.TooDeep))
        << MaxExprDepth;
    return nullptr;
  }
  // Hand the model over to a unique_ptr; the shared one dies here.
  return std::make_unique<Model>(std::move(*Result));
}

} // namespace aimz
