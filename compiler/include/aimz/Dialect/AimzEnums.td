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
    I32EnumAttrCase<"Square", 21, "square">]> {
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
    I32EnumAttrCase<"LChoose", 16, "lchoose">]> {
  let cppNamespace = "::aimz::ir";
}

def Aimz_ReduceFn : I32EnumAttr<"ReduceFn", "reduction", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Mean", 1, "mean">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"Max", 3, "max">,
    I32EnumAttrCase<"LogSumExp", 4, "logsumexp">]> {
  let cppNamespace = "::aimz::ir";
}

#endif // AIMZ_ENUMS_TD
