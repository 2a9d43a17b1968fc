//===- DistributionCatalogue.cpp - aimzc --list-distributions -------------===//
//
// The distribution table (NumPyroDistributions.def) printed for people, as
// the Markdown of docs/distributions.md, and for programs, as JSON: the
// signature test (test/e2e/numpyro/test_signatures.py) checks every row
// and alias against numpyro.distributions itself.
//
//===----------------------------------------------------------------------===//
#include "aimz/Distributions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>

namespace aimz {
namespace {

/// NumPyro's spelling of a default: None where there is none (a member of
/// an exactly-one-of group, an absent bound), else the number.
std::string defaultText(const DistParam &P) {
  if (!P.Default || std::isinf(*P.Default))
    return "None";
  if (P.Domain == Constraint::NonNegativeInteger)
    return llvm::itostr(static_cast<int64_t>(*P.Default));
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.15g", *P.Default);
  std::string S = Buf;
  if (S.find_first_of(".e") == std::string::npos)
    S += ".0";
  return S;
}

bool required(const DistSpec &D, const DistParam &P) {
  return !P.Default && !llvm::is_contained(D.ExactlyOneOf,
                                           llvm::StringRef(P.Name));
}

/// `Normal(loc=0.0, scale=1.0)`, `TruncatedNormal(loc=0.0, scale=1.0, *,
/// low=None, high=None)`: the signature in Python's notation.
std::string signature(const DistSpec &D) {
  std::string S = std::string(D.Name) + "(";
  bool Star = false;
  for (size_t I = 0; I < D.Params.size(); ++I) {
    const DistParam &P = D.Params[I];
    if (I)
      S += ", ";
    if (P.KeywordOnly && !Star) {
      S += "*, ";
      Star = true;
    }
    S += P.Name;
    if (!required(D, P) && !P.SizeOnly)
      S += "=" + defaultText(P);
  }
  return S + ")";
}

std::string notes(const DistSpec &D) {
  std::vector<std::string> N;
  if (isPyMCOnly(D))
    N.push_back("PyMC's class (NumPyro has none), PyMC's signature");
  if (const DistSpec *T = D.AliasOf)
    N.push_back(std::string("calls ") + T->Name);
  if (D.ExactlyOneOf.size() > 1) {
    std::vector<std::string> G;
    for (const char *Name : D.ExactlyOneOf)
      G.push_back(std::string("`") + Name + "`");
    N.push_back("exactly one of " + llvm::join(G, ", "));
  }
  for (const DistParam &P : D.Params)
    if (P.Extension)
      N.push_back(std::string("`") + P.Name + "=` is this project's own");
  if (D.Improper)
    N.push_back("a flat prior: only a latent the posterior gives");
  return llvm::join(N, "; ");
}

bool truncatable(const DistSpec &D) {
  // A folded base has a CDF whichever base it folds (Folded.h).
  return D.canonical().Kind == DistKind::FoldedDistribution ||
         llvm::is_contained(truncatableBases(),
                            llvm::StringRef(D.canonical().Name));
}

std::vector<const DistSpec *> everySpec() {
  std::vector<const DistSpec *> All;
  for (const DistSpec &D : allDistributions())
    All.push_back(&D);
  for (const DistAlias &A : allDistributionAliases())
    All.push_back(lookupDistribution(A.Name));
  return All;
}

llvm::json::Value specJSON(const DistSpec &D) {
  llvm::json::Array Params;
  for (const DistParam &P : D.Params) {
    llvm::json::Value Default = nullptr;
    if (P.Default && std::isinf(*P.Default))
      Default = *P.Default < 0 ? "-inf" : "inf";
    else if (P.Default)
      Default = *P.Default;
    Params.push_back(llvm::json::Object{
        {"name", P.Name},
        {"default", std::move(Default)},
        {"required", required(D, P)},
        {"keyword_only", P.KeywordOnly},
        {"extension", P.Extension},
        {"event_rank", P.EventRank}});
  }
  llvm::json::Array Group;
  for (const char *Name : D.ExactlyOneOf)
    Group.push_back(Name);
  return llvm::json::Object{
      {"name", D.Name},
      {"alias_of", D.AliasOf ? llvm::json::Value(D.AliasOf->Name) : nullptr},
      {"discrete", D.Discrete},
      {"improper", D.Improper},
      {"composite", D.isComposite()},
      {"pymc", isPyMCOnly(D)},
      {"value_event_rank", D.ValueEventRank},
      {"truncatable", truncatable(D)},
      {"cdf", truncatable(D)},
      {"censorable", truncatable(D)}, // every base with a CDF
      {"params", std::move(Params)},
      {"exactly_one_of", std::move(Group)}};
}

} // namespace

void printDistributionCatalogue(llvm::raw_ostream &OS, bool Json) {
  std::vector<const DistSpec *> All = everySpec();
  if (Json) {
    llvm::json::Array Rows;
    for (const DistSpec *D : All)
      Rows.push_back(specJSON(*D));
    OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Rows))) << "\n";
    return;
  }
  OS << "# Distributions\n\n"
        "Every distribution a model may sample or score, with NumPyro's "
        "signature: positional\n"
        "arguments in NumPyro's order, NumPyro's keyword names and "
        "defaults. Generated by\n"
        "`aimzc --list-distributions` from "
        "`compiler/include/aimz/NumPyroDistributions.def`;\n"
        "a lit test keeps the two in sync and "
        "`test/e2e/numpyro/test_signatures.py` checks every\n"
        "row against `numpyro.distributions` itself.\n\n"
        "CDF: `TruncatedDistribution` takes it, `log_cdf` / `log_ccdf` "
        "score it, and it can\n"
        "be censored (`RightCensoredDistribution`, `Censored`, ...; a "
        "censored count is a count).\n\n"
        "| Distribution | Signature | Values | CDF | Notes |\n"
        "|--------------|-----------|--------|-----|-------|\n";
  for (const DistSpec *D : All) {
    OS << "| " << D->Name << " | `" << signature(*D) << "` | "
       << (D->Discrete ? "discrete" : "continuous")
       << (D->ValueEventRank == 1   ? " vector"
           : D->ValueEventRank == 2 ? " matrix"
                                    : "")
       << " | "
       << (truncatable(*D) ? "truncate, log_cdf, censor" : "")
       << " | " << notes(*D)
       << " |\n";
  }
  OS << "\nWritten as another distribution of the table (the call is "
        "rewritten before it is\nchecked, so it takes that distribution's "
        "checks, draws and densities):\n\n"
        "| Call | Is |\n"
        "|------|----|\n";
  printDistributionSugar(OS);
  OS << "\nPyMC's keyword names for the same parameters (positions stay "
        "NumPyro's):\n\n"
        "| PyMC | Distribution | Keywords |\n"
        "|------|--------------|----------|\n";
  printPyMCKeywords(OS);
}

} // namespace aimz
