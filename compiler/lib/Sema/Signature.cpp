//===- Signature.cpp - Inputs, output, constants, dims -------------------===//
//
// The model's signature: names collected first (constants may size it),
// then every input and the output resolved to typed, symbolically shaped
// arrays; a dimension is bound by the data, a constant, or the posterior.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

std::optional<Dim> Analyzer::resolveDim(const DimSyntax &D, bool MustBeBound) {
  if (D.Arith || ConstArith.count(D.Name)) {
    NameExpr Alias(D.Loc, D.Name);
    auto P = D.Arith ? dimPoly(*D.Arith, MustBeBound)
                     : dimPoly(Alias, MustBeBound);
    if (!P)
      return std::nullopt;
    auto R = dimOf(*P, D.Loc);
    if (R && R->isSymbol() && !P->isSymbol())
      requireNonNegative(*P, D.Loc, "dimension '" + R->Symbol + "'");
    return R;
  }
  if (D.Name.empty()) {
    if (D.Value <= 0) {
      Diags.report(diag::E_DIM_NOT_POSITIVE, D.Loc) << D.Value;
      return std::nullopt;
    }
    return Dim::known(D.Value);
  }
  auto C = Info.Constants.find(D.Name);
  if (C != Info.Constants.end()) {
    if (C->second <= 0) {
      Diags.report(diag::E_CONST_DIM_NOT_POSITIVE, D.Loc)
          << D.Name << C->second;
      return std::nullopt;
    }
    return Dim::known(C->second);
  }
  if (MustBeBound && !BoundSymbols.count(D.Name) && AllowPosteriorDims &&
      !Names.count(D.Name)) {
    bindPosteriorDim(D.Name, D.Loc);
    return Dim::symbol(D.Name);
  }
  if (MustBeBound && !BoundSymbols.count(D.Name)) {
    auto N = Names.find(D.Name);
    if (N != Names.end())
      Diags.report(diag::E_NOT_A_DIMENSION, D.Loc)
          << D.Name << article(kindWord(N->second.K)) << kindWord(N->second.K);
    else
      Diags.report(diag::E_UNKNOWN_DIMENSION, D.Loc) << D.Name;
    return std::nullopt;
  }
  return Dim::symbol(D.Name);
}

std::optional<Shape> Analyzer::resolveDims(const std::vector<DimSyntax> &Ds,
                                           bool MustBeBound) {
  Shape Out;
  bool Ok = true;
  for (const DimSyntax &D : Ds) {
    if (auto R = resolveDim(D, MustBeBound))
      Out.push_back(*R);
    else
      Ok = false;
  }
  if (!Ok)
    return std::nullopt;
  return Out;
}

/// The value of integer arithmetic on literals and known constants, quietly
/// (nullopt when it names anything else: a dimension's arithmetic).
static std::optional<int64_t>
foldConstant(const Expr &E, const std::map<std::string, int64_t> &Known) {
  if (auto *N = llvm::dyn_cast<NumberExpr>(&E))
    return N->IsInteger ? std::optional<int64_t>(static_cast<int64_t>(N->Value))
                        : std::nullopt;
  if (auto *N = llvm::dyn_cast<NameExpr>(&E)) {
    auto It = Known.find(N->Name);
    return It == Known.end() ? std::nullopt : std::optional<int64_t>(It->second);
  }
  if (auto *U = llvm::dyn_cast<UnaryExpr>(&E)) {
    auto V = foldConstant(*U->Operand, Known);
    return V && *V != INT64_MIN ? std::optional<int64_t>(-*V) : std::nullopt;
  }
  if (auto *B = llvm::dyn_cast<BinaryExpr>(&E)) {
    auto L = foldConstant(*B->LHS, Known), R = foldConstant(*B->RHS, Known);
    if (!L || !R)
      return std::nullopt;
    auto P = DimPoly::constant(*L), Q = DimPoly::constant(*R);
    bool Ok = B->Op == BinaryOp::Add   ? P.add(Q)
              : B->Op == BinaryOp::Sub ? P.add(Q, -1)
              : B->Op == BinaryOp::Mul ? P.mul(Q)
              : B->Op == BinaryOp::Div ? *R != 0 && P.divideExactly(*R)
                                       : false;
    return Ok ? std::optional<int64_t>(P.constantValue()) : std::nullopt;
  }
  return std::nullopt;
}

/// Constants may size the signature, so they are known before anything else;
/// a constant of dimension arithmetic is resolved where it is used.
void Analyzer::collectNames(const std::vector<StmtPtr> &Body) {
  for (const StmtPtr &S : Body) {
    if (auto *C = llvm::dyn_cast_or_null<ConstStmt>(S.get());
        C && !Info.Constants.count(C->Name) && !ConstArith.count(C->Name)) {
      if (!C->Arith)
        Info.Constants[C->Name] = C->Value;
      else if (auto V = foldConstant(*C->Arith, Info.Constants))
        Info.Constants[C->Name] = C->Value = *V;
      else
        ConstArith[C->Name] = C;
    }
    if (S->K != Stmt::Kind::Plate && S->K != Stmt::Kind::Scan)
      LaterDefinitions.emplace(S->Name, S->NameLoc);
    if (S->K == Stmt::Kind::Sample)
      OutputsWithSample.insert(S->Name);
    if (auto *B = llvm::dyn_cast_or_null<BlockStmt>(S.get()))
      collectNames(B->Body);
  }
}

/// Each output's shape, led by the one observation axis they share;
/// sets Info.ObsDim and Info.Outputs. False when one cannot be used.
bool Analyzer::checkOutputs(bool &Ok, bool &AnyF64) {
  for (const Param &Out : M.Outputs) {
    auto OutShape = resolveDims(Out.Type.Dims, true);
    if (!OutShape)
      return false;
    if (OutShape->empty()) {
      Diags.report(diag::E_OUTPUT_SCALAR, Out.Type.Loc) << Out.Name;
      return false;
    }
    if (!(*OutShape)[0].isSymbol() || !polyOf((*OutShape)[0]).isSymbol()) {
      Diags.report(diag::E_OUTPUT_FIXED_OBS_AXIS, Out.Type.Dims[0].Loc)
          << (*OutShape)[0].str();
      return false;
    }
    if (Info.ObsDim.empty()) {
      Info.ObsDim = (*OutShape)[0].Symbol;
    } else if ((*OutShape)[0].Symbol != Info.ObsDim) {
      // One observation axis is what both plans shard; outputs of
      // different lengths are separate models (or one output padded).
      Diags.report(diag::E_OUTPUTS_OBS_AXIS_DIFFER, Out.Type.Dims[0].Loc)
          << Out.Name << (*OutShape)[0].Symbol << M.Outputs.front().Name
          << Info.ObsDim;
      return false;
    }
    if (Info.outputIndex(Out.Name) >= 0) {
      Diags.report(diag::E_OUTPUT_DECLARED_TWICE, Out.Loc) << Out.Name;
      Diags.report(diag::N_PREVIOUS_DECLARATION, M.findOutput(Out.Name)->Loc);
      return false;
    }
    Info.Outputs.push_back({Out.Name, Out.Type.Type, *OutShape});
    if (Out.Type.Type == DType::F64 && Requested == DType::F32) {
      Diags.report(diag::E_OUTPUT_F64_IN_F32, Out.Type.Loc) << Out.Name;
      Ok = false;
    }
    AnyF64 |= Out.Type.Type == DType::F64;
  }

  return true;
}

bool Analyzer::checkSignature() {
  Info.Name = M.Name;
  bool Ok = true;
  bindSignatureSymbols();
  bool AnyF64 = false;
  if (!checkOutputs(Ok, AnyF64))
    return false;
  Ok &= checkInputs(AnyF64);
  // f64 when asked (aimzc --precision=f64: integer-only models) or when
  // an input is f64.
  Info.Precision = Requested ? *Requested : AnyF64 ? DType::F64 : DType::F32;
  return Ok;
}

/// A dimension first seen in a latent's shape or parameters (a group count
/// J): the posterior's arrays bind it at run time; Sema.cpp checks that a
/// latent carries it.
void Analyzer::bindPosteriorDim(const std::string &Name, SMLoc Loc) {
  BoundSymbols.insert(Name);
  Info.Symbols.push_back(Name);
  Info.PosteriorDims.push_back(Name);
  PosteriorDimLocs.emplace(Name, Loc);
}

/// Symbols in the signature are bound by the data's shapes.
void Analyzer::bindSignatureSymbols() {
  auto Bind = [&](const Param &P) {
    for (const DimSyntax &D : P.Type.Dims)
      if (!D.Name.empty() && !Info.Constants.count(D.Name) &&
          !ConstArith.count(D.Name) && BoundSymbols.insert(D.Name).second)
        Info.Symbols.push_back(D.Name);
  };
  for (const Param &P : M.Inputs)
    Bind(P);
  // An output's observation axis is bound by the data (or
  // --num-observations); another axis of it that no input names (the J
  // items of `y: i32[n, J]`) is set at run time like a latent's group
  // count: by the posterior's arrays, by --dim, or by the observed output.
  for (const Param &Out : M.Outputs)
    for (size_t I = 0; I < Out.Type.Dims.size(); ++I) {
      const DimSyntax &D = Out.Type.Dims[I];
      if (D.Name.empty() || Info.Constants.count(D.Name) ||
          ConstArith.count(D.Name) || BoundSymbols.count(D.Name))
        continue;
      BoundSymbols.insert(D.Name);
      Info.Symbols.push_back(D.Name);
      if (I > 0 && D.Name != M.Outputs.front().Type.Dims[0].Name)
        Info.PosteriorDims.push_back(D.Name);
    }
}

/// Each input's shape, with the observation axis leading or absent; sets
/// Info.Inputs and the input names. False after an error.
bool Analyzer::checkInputs(bool &AnyF64) {
  bool Ok = true;
  for (const Param &P : M.Inputs) {
    if (const Param *Out = M.findOutput(P.Name)) {
      Diags.report(diag::E_INPUT_IS_OUTPUT, P.Loc) << P.Name;
      Diags.report(diag::N_OUTPUT_DECLARED_HERE, Out->Loc);
      Ok = false;
      continue;
    }
    auto S = resolveDims(P.Type.Dims, true);
    if (!S) {
      Ok = false;
      continue;
    }
    // An input either leads with the observation axis (one row per
    // observation, sharded) or does not have it at all (a scalar or an
    // array of hyperparameters, the same for every observation).
    auto ObsAt = llvm::find(*S, Dim::symbol(Info.ObsDim));
    if (ObsAt != S->end() && ObsAt != S->begin()) {
      Diags.report(diag::E_INPUT_OBS_AXIS_INSIDE, P.Type.Loc)
          << P.Name << shapeStr(*S) << Info.ObsDim;
      Ok = false;
      continue;
    }
    Symbol Sym{Symbol::Kind::Input, P.Type.Type, *S, P.Loc};
    auto [It, New] = Names.emplace(P.Name, Sym);
    if (!New) {
      Diags.report(diag::E_INPUT_DECLARED_TWICE, P.Loc) << P.Name;
      Diags.report(diag::N_PREVIOUS_DECLARATION, It->second.Loc);
      Ok = false;
      continue;
    }
    if (P.Type.Type == DType::F64 && Requested == DType::F32) {
      Diags.report(diag::E_INPUT_F64_IN_F32, P.Type.Loc) << P.Name;
      Ok = false;
    }
    AnyF64 |= P.Type.Type == DType::F64;
    Info.Inputs.push_back({P.Name, P.Type.Type, *S});
  }
  return Ok;
}

} // namespace sema
} // namespace aimz
