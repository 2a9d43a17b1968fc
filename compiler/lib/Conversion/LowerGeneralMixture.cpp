//===- LowerGeneralMixture.cpp - A mixture of different families ----------===//
//
// "MixtureGeneral(A,B,...)" (Sema/MixtureGeneral.cpp): the mixing logits
// along a last axis of K, then each component's parameters. Per element:
//
//   density  logsumexp_k(logits_k + log p_k(y)) - logsumexp_k(logits_k),
//            NumPyro's MixtureGeneral.log_prob; for "Hurdle(Delta,...)",
//            at y = the Delta's v the first term alone (a mass, which no
//            density adds to: NumPyro's HurdleDistribution);
//   draw     the category from a uniform of the site's own stream (the
//            first k whose cumulative weight exceeds u times the total),
//            then that component's draw. Every component draws from the
//            same (site, draw, observation, element) counter under its own
//            Philox key (the seed xor a constant per component), so the
//            draws are independent of the choice and of each other, and
//            the bytes do not depend on the partition; invalid weights
//            (NaN, none positive) give NaN, or an invalid count.
//
//===----------------------------------------------------------------------===//
#include "EntryBuilder.h"
#include "aimz/abi.h"
#include "aimz/math/Config.h"

#include <limits>

namespace aimz {
namespace lowering {
namespace {

/// The Philox key of component k's draws: the seed xor a distinct odd
/// constant (the golden ratio's multiples), never the seed itself.
uint64_t componentKey(size_t K) {
  return 0x9E3779B97F4A7C15ULL * (2 * static_cast<uint64_t>(K) + 1);
}

} // namespace

Value EntryBuilder::logSumExpOf(ArrayRef<Value> Xs) {
  Value S = Xs.front();
  for (Value X : Xs.drop_front())
    S = logAddExp(S, X);
  return S;
}

/// The mixing logits at element Ivs (one per component, along the last
/// axis) and each component's parameters there.
void EntryBuilder::mixtureOperandsAt(const RuntimeCall &C,
                                     ArrayRef<View> PViews, ValueRange Ivs,
                                     SmallVectorImpl<Value> &Logits,
                                     SmallVectorImpl<SmallVector<Value>> &Comp) {
  for (size_t I = 0; I < C.Components.size(); ++I) {
    SmallVector<Value> At(Ivs.begin(), Ivs.end());
    At.push_back(idx(static_cast<int64_t>(I)));
    Logits.push_back(load(PViews[0], At));
    const RuntimeCall::Component &K = C.Components[I];
    SmallVector<Value> P;
    for (size_t J = 0; J < K.Count; ++J)
      P.push_back(load(PViews[K.First + J], Ivs));
    Comp.push_back(std::move(P));
  }
}

void EntryBuilder::emitGeneralMixtureLogDensities(const RuntimeCall &C,
                                                  Type Prec, const View &Y,
                                                  ValueRange Params,
                                                  const View &Out) {
  SmallVector<View> PViews = viewsOf(Params);
  forEach(Out.Sizes, [&](ValueRange Ivs) {
    Value X = convert(load(Y, Ivs), Prec);
    SmallVector<Value> Logits, Joint;
    SmallVector<SmallVector<Value>> Comp;
    mixtureOperandsAt(C, PViews, Ivs, Logits, Comp);
    // A hurdle: at the Delta's value the other components' densities are
    // left out (a mass there, not a density).
    Value AtAtom;
    if (C.Hurdle)
      AtAtom = B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::OEQ, X,
                                        Comp[0][0]);
    for (size_t I = 0; I < Logits.size(); ++I) {
      Value J = B->create<arith::AddFOp>(
          Loc, Logits[I],
          scalarRowCall(C.Components[I].Symbol, abi::SupportFamily::LogProb,
                        Prec, Prec, {X}, Comp[I]));
      if (C.Hurdle && I > 0)
        J = B->create<arith::SelectOp>(
            Loc, AtAtom,
            B->create<arith::ConstantOp>(
                Loc, B->getFloatAttr(
                         Prec, -std::numeric_limits<double>::infinity())),
            J);
      Joint.push_back(J);
    }
    store(Out, Ivs,
          B->create<arith::SubFOp>(Loc, logSumExpOf(Joint),
                                   logSumExpOf(Logits)));
  });
}

void EntryBuilder::emitGeneralMixtureSample(ir::ArrayType T,
                                            const RuntimeCall &C,
                                            const View &Out, ValueRange Params,
                                            int64_t SiteId, Type Prec) {
  SmallVector<View> PViews = viewsOf(Params);
  const bool Discrete = C.Components.front().Discrete;
  Type I32 = B->getI32Type();
  auto F = [&](double V) -> Value {
    return B->create<arith::ConstantOp>(Loc, B->getFloatAttr(Prec, V));
  };
  auto I32C = [&](int64_t V) -> Value {
    return B->create<arith::ConstantOp>(Loc, B->getI32IntegerAttr(V));
  };
  forEach(Out.Sizes, [&](ValueRange Ivs) {
    Value Obs;
    Value Elem = siteAddressElement(T, Ivs, Obs);
    Value Site = i64(SiteId), D = toI64(Draw);
    SmallVector<Value> Logits;
    SmallVector<SmallVector<Value>> Comp;
    mixtureOperandsAt(C, PViews, Ivs, Logits, Comp);
    // The category: how many cumulative weights u * total passes.
    Value Max = Logits[0];
    for (Value L : ArrayRef<Value>(Logits).drop_front())
      Max = B->create<arith::MaximumFOp>(Loc, Max, L);
    SmallVector<Value> Cum;
    Value Total = F(0);
    for (Value L : Logits) {
      Total = B->create<arith::AddFOp>(
          Loc, Total, elementary("exp", B->create<arith::SubFOp>(Loc, L, Max)));
      Cum.push_back(Total);
    }
    Value U = scalarRowCall("uniform", abi::SupportFamily::Sample, Prec, Prec,
                            {Seed, Site, D, Obs, Elem}, {F(0), F(1)});
    Value Target = B->create<arith::MulFOp>(Loc, U, Total);
    Value Choice = I32C(0);
    for (size_t I = 0; I + 1 < Cum.size(); ++I)
      Choice = B->create<arith::AddIOp>(
          Loc, Choice,
          B->create<arith::ExtUIOp>(
              Loc, I32,
              B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::OLE, Cum[I],
                                       Target)));
    Value X;
    for (size_t I = 0; I < Comp.size(); ++I) {
      Value Key = B->create<arith::XOrIOp>(
          Loc, Seed, i64(static_cast<int64_t>(componentKey(I))));
      Value Xi = scalarRowCall(C.Components[I].Symbol,
                               abi::SupportFamily::Sample, Prec,
                               Discrete ? I32 : Prec,
                               {Key, Site, D, Obs, Elem}, Comp[I]);
      Value Is = B->create<arith::CmpIOp>(Loc, arith::CmpIPredicate::eq,
                                          Choice, I32C(I));
      X = I ? Value(B->create<arith::SelectOp>(Loc, Is, Xi, X)) : Xi;
    }
    // Weights that are no distribution (NaN, none positive): no draw.
    Value Valid = B->create<arith::AndIOp>(
        Loc,
        B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::OGT, Total, F(0)),
        B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::OLT, Total,
                                 F(std::numeric_limits<double>::infinity())));
    Value Bad = Discrete ? I32C(math::kInvalidCount)
                         : F(std::numeric_limits<double>::quiet_NaN());
    store(Out, Ivs,
          convert(B->create<arith::SelectOp>(Loc, Valid, X, Bad),
                  T.getElementType()));
  });
}

} // namespace lowering
} // namespace aimz
