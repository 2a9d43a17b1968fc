//===- AimzEnums.td - Function kinds of the aimz ops -------*- tablegen -*-===//
//
// The one list of elementwise functions, operators and reductions the ops
// take: the verifier, the printer/parser and the lowering's switches (which
// the compiler checks for exhaustiveness) all come from here. The surface
// names users write are in Builtins.def; a unit test ties the two.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_ENUMS_TD
#define AIMZ_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def Aimz_UnaryFn : I32EnumAttr<"UnaryFn", "elementwise function", [
    I32EnumAttrCase<"Neg", 0, "neg">,
    I32EnumAttrCase<"Exp", 1, "exp">,
    I32EnumAttrCase<"Log", 2, "log">,
    I32EnumAttrCase<"Log1p", 3, "log1p">,
    I32EnumAttrCase<"Expm1", 4, "expm1">,
    I32EnumAttrCase<"Sqrt", 5, "sqrt">,
    I32EnumAttrCase<"Abs", 6, "abs">,
    I32EnumAttrCase<"Tanh", 7, "tanh">,
    I32EnumAttrCase<"Sigmoid", 8, "sigmoid">,
    I32EnumAttrCase<"Relu", 9, "relu">,
    I32EnumAttrCase<"Softplus", 10, "softplus">,
    I32EnumAttrCase<"LogSigmoid", 11, "log_sigmoid">,
    I32EnumAttrCase<"Lgamma", 12, "lgamma">,
    I32EnumAttrCase<"Erf", 13, "erf">,
    I32EnumAttrCase<"Phi", 14, "Phi">,
    I32EnumAttrCase<"Sin", 15, "sin">,
    I32EnumAttrCase<"Cos", 16, "cos">,
    I32EnumAttrCase<"Log1m", 17, "log1m">,
    I32EnumAttrCase<"Log1mExp", 18, "log1m_exp">,
    I32EnumAttrCase<"Logit", 19, "logit">,
    I32EnumAttrCase<"Log1mInvLogit", 20, "log1m_inv_logit">,
    I32EnumAttrCase<"Square", 21, "square">,
    I32EnumAttrCase<"Tan", 22, "tan">,
    I32EnumAttrCase<"Asin", 23, "asin">,
    I32EnumAttrCase<"Acos", 24, "acos">,
    I32EnumAttrCase<"Atan", 25, "atan">,
    I32EnumAttrCase<"Sinh", 26, "sinh">,
    I32EnumAttrCase<"Cosh", 27, "cosh">,
    I32EnumAttrCase<"Asinh", 28, "asinh">,
    I32EnumAttrCase<"Acosh", 29, "acosh">,
    I32EnumAttrCase<"Atanh", 30, "atanh">,
    I32EnumAttrCase<"Cbrt", 31, "cbrt">,
    I32EnumAttrCase<"Exp2", 32, "exp2">,
    I32EnumAttrCase<"Log2", 33, "log2">,
    I32EnumAttrCase<"Log10", 34, "log10">,
    I32EnumAttrCase<"Floor", 35, "floor">,
    I32EnumAttrCase<"Ceil", 36, "ceil">,
    I32EnumAttrCase<"Round", 37, "round">,
    I32EnumAttrCase<"Trunc", 38, "trunc">,
    I32EnumAttrCase<"Sign", 39, "sign">,
    I32EnumAttrCase<"Erfc", 40, "erfc">,
    I32EnumAttrCase<"Tgamma", 41, "tgamma">,
    I32EnumAttrCase<"Digamma", 42, "digamma">,
    I32EnumAttrCase<"Trigamma", 43, "trigamma">,
    I32EnumAttrCase<"Ndtri", 44, "ndtri">,
    I32EnumAttrCase<"I0", 45, "i0">,
    I32EnumAttrCase<"I0e", 46, "i0e">,
    I32EnumAttrCase<"I1", 47, "i1">,
    I32EnumAttrCase<"I1e", 48, "i1e">,
    I32EnumAttrCase<"Inv", 49, "inv">,
    I32EnumAttrCase<"InvSqrt", 50, "inv_sqrt">,
    I32EnumAttrCase<"InvSquare", 51, "inv_square">,
    I32EnumAttrCase<"Step", 52, "step">,
    I32EnumAttrCase<"IntStep", 53, "int_step">,
    I32EnumAttrCase<"PhiApprox", 54, "Phi_approx">]> {
  let cppNamespace = "::aimz::ir";
}

def Aimz_BinaryFn : I32EnumAttr<"BinaryFn", "elementwise operator", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Sub", 1, "sub">,
    I32EnumAttrCase<"Mul", 2, "mul">,
    I32EnumAttrCase<"Div", 3, "div">,
    I32EnumAttrCase<"Pow", 4, "pow">,
    I32EnumAttrCase<"Min", 5, "min">,
    I32EnumAttrCase<"Max", 6, "max">,
    I32EnumAttrCase<"Lt", 7, "lt">,
    I32EnumAttrCase<"Le", 8, "le">,
    I32EnumAttrCase<"Gt", 9, "gt">,
    I32EnumAttrCase<"Ge", 10, "ge">,
    I32EnumAttrCase<"Eq", 11, "eq">,
    I32EnumAttrCase<"Ne", 12, "ne">,
    I32EnumAttrCase<"LogSumExp", 13, "logsumexp">,
    I32EnumAttrCase<"LogDiffExp", 14, "log_diff_exp">,
    I32EnumAttrCase<"LBeta", 15, "lbeta">,
    I32EnumAttrCase<"LChoose", 16, "lchoose">,
    I32EnumAttrCase<"Atan2", 17, "atan2">,
    I32EnumAttrCase<"Hypot", 18, "hypot">,
    I32EnumAttrCase<"Fmod", 19, "fmod">,
    I32EnumAttrCase<"Fmin", 20, "fmin">,
    I32EnumAttrCase<"Fmax", 21, "fmax">,
    I32EnumAttrCase<"Fdim", 22, "fdim">,
    I32EnumAttrCase<"LogAddExp2", 23, "logaddexp2">,
    I32EnumAttrCase<"XLogY", 24, "xlogy">,
    I32EnumAttrCase<"XLog1pY", 25, "xlog1py">,
    I32EnumAttrCase<"LogInvLogitDiff", 26, "log_inv_logit_diff">,
    I32EnumAttrCase<"OwensT", 27, "owens_t">,
    I32EnumAttrCase<"LogBesselI", 28, "log_bessel_i">,
    I32EnumAttrCase<"Ive", 29, "ive">,
    I32EnumAttrCase<"Iv", 30, "iv">]> {
  let cppNamespace = "::aimz::ir";
}

def Aimz_ReduceFn : I32EnumAttr<"ReduceFn", "reduction", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Mean", 1, "mean">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"Max", 3, "max">,
    I32EnumAttrCase<"LogSumExp", 4, "logsumexp">,
    I32EnumAttrCase<"Prod", 5, "prod">]> {
  let cppNamespace = "::aimz::ir";
}

#endif // AIMZ_ENUMS_TD
