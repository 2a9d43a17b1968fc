//===- AST.cpp - Names and the debugging dump of the syntax tree ----------===//
#include "aimz/AST.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "llvm/Support/raw_ostream.h"

namespace aimz {

void releaseChild(ExprPtr &Child) {
  if (!Child)
    return;
  // Non-null while an outer call is draining: children queue up there.
  thread_local std::vector<ExprPtr> *Pending = nullptr;
  if (Pending) {
    Pending->push_back(std::move(Child));
    return;
  }
  std::vector<ExprPtr> Work;
  Pending = &Work;
  Work.push_back(std::move(Child));
  while (!Work.empty()) {
    ExprPtr Next = std::move(Work.back());
    Work.pop_back();
    Next.reset(); // its destructor queues its own children
  }
  Pending = nullptr;
}


const char *dtypeName(DType T) {
  switch (T) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::Bool:
    return "bool";
  }
  return "?";
}

const char *binaryOpSpelling(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Pow:
    return "^";
  case BinaryOp::MatMul:
    return "@";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  }
  return "?";
}

namespace {

void dumpExpr(const Expr &E, llvm::raw_ostream &OS);

std::string dimsStr(const std::vector<DimSyntax> &Dims) {
  std::string S = "[";
  for (size_t I = 0; I < Dims.size(); ++I) {
    S += I ? ", " : "";
    if (Dims[I].Arith) {
      llvm::raw_string_ostream OS(S);
      dumpExpr(*Dims[I].Arith, OS);
    } else {
      S += Dims[I].Name.empty() ? std::to_string(Dims[I].Value) : Dims[I].Name;
    }
  }
  return S + "]";
}

/// Each of `Xs`, a space before each.
void dumpEach(const std::vector<ExprPtr> &Xs, llvm::raw_ostream &OS) {
  for (const ExprPtr &X : Xs) {
    OS << " ";
    dumpExpr(*X, OS);
  }
}

void dumpCall(const CallExpr &C, llvm::raw_ostream &OS) {
  OS << "(call " << C.Callee;
  for (const Arg &A : C.Args) {
    OS << " ";
    if (!A.Keyword.empty())
      OS << A.Keyword << "=";
    dumpExpr(*A.Value, OS);
  }
  OS << ")";
}

void dumpSlice(const SliceExpr &Sl, llvm::raw_ostream &OS) {
  OS << "(slice ";
  if (Sl.Start)
    dumpExpr(*Sl.Start, OS);
  OS << ":";
  if (Sl.Stop)
    dumpExpr(*Sl.Stop, OS);
  OS << ")";
}

void dumpExpr(const Expr &E, llvm::raw_ostream &OS) {
  switch (E.K) {
  case Expr::Kind::Number: {
    auto &N = static_cast<const NumberExpr &>(E);
    if (N.IsInteger)
      OS << static_cast<int64_t>(N.Value);
    else
      OS << N.Value;
    return;
  }
  case Expr::Kind::Bool:
    OS << (static_cast<const BoolExpr &>(E).Value ? "true" : "false");
    return;
  case Expr::Kind::Name:
    OS << static_cast<const NameExpr &>(E).Name;
    return;
  case Expr::Kind::Unary:
    OS << "(neg ";
    dumpExpr(*static_cast<const UnaryExpr &>(E).Operand, OS);
    OS << ")";
    return;
  case Expr::Kind::Binary: {
    auto &B = static_cast<const BinaryExpr &>(E);
    OS << "(" << binaryOpSpelling(B.Op) << " ";
    dumpExpr(*B.LHS, OS);
    OS << " ";
    dumpExpr(*B.RHS, OS);
    OS << ")";
    return;
  }
  case Expr::Kind::Call:
    dumpCall(static_cast<const CallExpr &>(E), OS);
    return;
  case Expr::Kind::Array:
    OS << "(array";
    dumpEach(static_cast<const ArrayExpr &>(E).Elements, OS);
    OS << ")";
    return;
  case Expr::Kind::Axis:
    OS << (static_cast<const AxisExpr &>(E).Ellipsis  ? "..."
           : static_cast<const AxisExpr &>(E).NewAxis ? "None"
                                                      : ":");
    return;
  case Expr::Kind::Slice:
    dumpSlice(static_cast<const SliceExpr &>(E), OS);
    return;
  case Expr::Kind::Attr: {
    auto &A = static_cast<const AttrExpr &>(E);
    OS << "(attr ";
    dumpExpr(*A.Base, OS);
    OS << " " << A.Name << ")";
    return;
  }
  case Expr::Kind::Index: {
    auto &I = static_cast<const IndexExpr &>(E);
    OS << "(index ";
    dumpExpr(*I.Base, OS);
    dumpEach(I.Indices, OS);
    OS << ")";
    return;
  }
  }
}

/// Appends `E` as source text; `Tight`: parenthesize a binary operation.
void writeSource(const Expr &E, std::string &Out, bool Tight = false);

void writeArgs(const std::vector<ExprPtr> &Xs, std::string &Out) {
  for (size_t I = 0; I < Xs.size(); ++I) {
    Out += I ? ", " : "";
    if (Xs[I])
      writeSource(*Xs[I], Out);
  }
}

void writeSource(const Expr &E, std::string &Out, bool Tight) {
  switch (E.K) {
  case Expr::Kind::Number: {
    auto &N = static_cast<const NumberExpr &>(E);
    if (N.IsInteger) {
      Out += std::to_string(N.IntValue);
      return;
    }
    // The shortest text that reads back as the same double, as Python's.
    char Buf[32];
    for (int Digits = 1; Digits <= 17; ++Digits) {
      snprintf(Buf, sizeof Buf, "%.*g", Digits, N.Value);
      if (std::strtod(Buf, nullptr) == N.Value)
        break;
    }
    Out += Buf;
    if (!std::strpbrk(Buf, ".eEni")) // 2.0, not the integer 2
      Out += ".0";
    return;
  }
  case Expr::Kind::Bool:
    Out += static_cast<const BoolExpr &>(E).Value ? "True" : "False";
    return;
  case Expr::Kind::Name:
    Out += static_cast<const NameExpr &>(E).Name;
    return;
  case Expr::Kind::Unary:
    Out += "-";
    writeSource(*static_cast<const UnaryExpr &>(E).Operand, Out, true);
    return;
  case Expr::Kind::Binary: {
    auto &B = static_cast<const BinaryExpr &>(E);
    Out += Tight ? "(" : "";
    writeSource(*B.LHS, Out, true);
    Out += std::string(" ") + binaryOpSpelling(B.Op) + " ";
    writeSource(*B.RHS, Out, true);
    Out += Tight ? ")" : "";
    return;
  }
  case Expr::Kind::Call: {
    auto &C = static_cast<const CallExpr &>(E);
    Out += C.Callee + "(";
    for (size_t I = 0; I < C.Args.size(); ++I) {
      Out += I ? ", " : "";
      if (!C.Args[I].Keyword.empty())
        Out += C.Args[I].Keyword + "=";
      writeSource(*C.Args[I].Value, Out);
    }
    Out += ")";
    return;
  }
  case Expr::Kind::Array:
    Out += "[";
    writeArgs(static_cast<const ArrayExpr &>(E).Elements, Out);
    Out += "]";
    return;
  case Expr::Kind::Axis: {
    auto &A = static_cast<const AxisExpr &>(E);
    Out += A.Ellipsis ? "..." : A.NewAxis ? "None" : ":";
    return;
  }
  case Expr::Kind::Slice: {
    auto &Sl = static_cast<const SliceExpr &>(E);
    if (Sl.Start)
      writeSource(*Sl.Start, Out);
    Out += ":";
    if (Sl.Stop)
      writeSource(*Sl.Stop, Out);
    return;
  }
  case Expr::Kind::Attr: {
    auto &A = static_cast<const AttrExpr &>(E);
    writeSource(*A.Base, Out, true);
    Out += "." + A.Name;
    return;
  }
  case Expr::Kind::Index: {
    auto &I = static_cast<const IndexExpr &>(E);
    writeSource(*I.Base, Out, true);
    Out += "[";
    writeArgs(I.Indices, Out);
    Out += "]";
    return;
  }
  }
}

void dumpStmts(const std::vector<StmtPtr> &Body, unsigned Indent,
               llvm::raw_ostream &OS) {
  for (const StmtPtr &S : Body) {
    OS.indent(Indent);
    switch (S->K) {
    case Stmt::Kind::Const:
      if (const auto &A = static_cast<const ConstStmt &>(*S).Arith) {
        OS << "const " << S->Name << " = ";
        dumpExpr(*A, OS);
        OS << "\n";
      } else {
        OS << "const " << S->Name << " = "
           << static_cast<const ConstStmt &>(*S).Value << "\n";
      }
      break;
    case Stmt::Kind::Let:
    case Stmt::Kind::Transformed:
    case Stmt::Kind::Deterministic:
    case Stmt::Kind::Factor:
      OS << (S->K == Stmt::Kind::Let             ? "let "
             : S->K == Stmt::Kind::Transformed   ? "transformed "
             : S->K == Stmt::Kind::Deterministic ? "deterministic "
                                                 : "factor ")
         << S->Name
         << " = ";
      dumpExpr(*static_cast<const AssignStmt &>(*S).Value, OS);
      OS << "\n";
      break;
    case Stmt::Kind::Sample: {
      auto &Sa = static_cast<const SampleStmt &>(*S);
      OS << "sample " << Sa.Name << " ~ " << Sa.Dist;
      for (const Arg &A : Sa.Args) {
        OS << " ";
        if (!A.Keyword.empty())
          OS << A.Keyword << "=";
        dumpExpr(*A.Value, OS);
      }
      if (Sa.ExplicitShape)
        OS << " shape " << dimsStr(*Sa.ExplicitShape);
      OS << "\n";
      break;
    }
    case Stmt::Kind::Plate:
    case Stmt::Kind::Scan: {
      auto &B = static_cast<const BlockStmt &>(*S);
      OS << (S->K == Stmt::Kind::Plate ? "plate " : "scan ") << B.Name << " "
         << dimsStr({B.Dim}) << "\n";
      dumpStmts(B.Body, Indent + 2, OS);
      break;
    }
    }
  }
}

void dumpFunction(const FunctionDef &F, llvm::raw_ostream &OS) {
  OS << "def " << F.Name << "\n";
  for (const FunctionParam &P : F.Params) {
    OS << "  param " << P.Name;
    if (P.Type)
      OS << ": " << dtypeName(P.Type->Type) << dimsStr(P.Type->Dims);
    if (P.Default) {
      OS << " = ";
      dumpExpr(*P.Default, OS);
    }
    OS << "\n";
  }
  if (F.Result)
    OS << "  result " << dtypeName(F.Result->Type) << dimsStr(F.Result->Dims)
       << "\n";
  dumpStmts(F.Body, 2, OS);
  OS << "  return ";
  dumpExpr(*F.Return, OS);
  OS << "\n";
}

} // namespace

std::string sourceText(const Expr &E) {
  std::string S;
  writeSource(E, S);
  return S;
}

void dumpAST(const Model &M, llvm::raw_ostream &OS) {
  for (const FunctionDef &F : M.Functions)
    dumpFunction(F, OS);
  OS << "model " << M.Name << "\n";
  for (const Param &P : M.Inputs)
    OS << "  input " << P.Name << ": " << dtypeName(P.Type.Type)
       << dimsStr(P.Type.Dims) << "\n";
  for (const Param &P : M.Outputs)
    OS << "  output " << P.Name << ": " << dtypeName(P.Type.Type)
       << dimsStr(P.Type.Dims) << "\n";
  dumpStmts(M.Body, 2, OS);
}

} // namespace aimz
