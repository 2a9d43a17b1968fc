//===- Intervention.cpp - do(site = value) for predictive runs ------------===//
#include "aimz/run/Intervention.h"
#include "RunError.h"

#include "aimz/io/Npy.h"
#include "aimz/io/Shape.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <set>

namespace aimz::run {

llvm::Expected<std::vector<Intervention>>
parseInterventions(const std::vector<std::string> &Args) {
  std::vector<Intervention> Out;
  std::set<std::string> Seen;
  for (const std::string &A : Args) {
    auto [Site, Value] = llvm::StringRef(A).split('=');
    Site = Site.trim();
    Value = Value.trim();
    if (Site.empty() || Value.empty() || A.find('=') == std::string::npos)
      return error("--intervene '" + A + "': expected SITE=VALUE (a number) "
                   "or SITE=FILE.npy, e.g. --intervene beta=0.5");
    if (!Seen.insert(Site.str()).second)
      return error("--intervene names '" + Site + "' twice; give each site "
                   "one value");
    Out.push_back({Site.str(), Value.str(), std::nullopt});
  }
  return Out;
}

/// A number, all of it (strtod reads "inf", "nan" and hex floats too).
static bool parseNumber(const std::string &S, double &V) {
  char *End = nullptr;
  V = std::strtod(S.c_str(), &End);
  return End && End != S.c_str() && *End == '\0';
}

static std::string siteNames(const Manifest &M) {
  std::vector<std::string> Names;
  for (const ManifestSite &S : M.Sites)
    if (S.Kind == SiteKind::Latent || S.Kind == SiteKind::Deterministic)
      Names.push_back(S.Name);
  return llvm::join(Names, ", ");
}

/// Value in the site's dtype, or why it does not fit: the same limits as a
/// posterior's values (beyond float32's range, an int32, a whole number).
static llvm::Error checkFits(double V, io::DType Type, const std::string &What,
                             const Intervention &I) {
  const std::string Said = What + "=" + I.Value + ": ";
  if (!std::isfinite(V))
    return error(Said + "the value must be finite");
  if (Type == io::DType::Float32 && !std::isfinite(static_cast<float>(V)))
    return error(Said + "beyond float32's range, which the model computes "
                 "in; rescale the value or compile the model in f64");
  if (Type == io::DType::Float32 || Type == io::DType::Float64)
    return llvm::Error::success();
  if (V != std::floor(V))
    return error(Said + "'" + I.Site + "' holds " + numpyName(Type) +
                 " values; give a whole number");
  // 2^31 and 2^63 are exact doubles: the bounds need no rounding.
  const double Limit = Type == io::DType::Int32 ? 2147483648.0
                       : Type == io::DType::Int64 ? 9223372036854775808.0
                                                  : 2.0;
  const double Low = Type == io::DType::Bool ? 0.0 : -Limit;
  if (V < Low || V >= Limit)
    return error(Said + "does not fit the site's " + numpyName(Type) +
                 (Type == io::DType::Bool ? " (give 0 or 1)" : ""));
  return llvm::Error::success();
}

/// One site-shaped draw of Type holding V everywhere (V fits, checkFits).
static llvm::Expected<HostArray> filledArray(double V, io::DType Type,
                                             const std::vector<uint64_t> &Shape,
                                             const std::string &What) {
  size_t W = io::dtypeSize(Type);
  std::optional<uint64_t> Bytes = io::checkedNumBytes(Shape, W);
  std::shared_ptr<uint8_t[]> Buf;
  if (Bytes && *Bytes <= SIZE_MAX)
    Buf.reset(new (std::nothrow) uint8_t[std::max<uint64_t>(1, *Bytes)]);
  if (!Buf)
    return error(What + ": the site's shape " + io::formatShape(Shape) +
                 " is too large to hold in memory; check its dimensions");
  const uint64_t Count = *Bytes / W;
  uint8_t Elem[8];
  float F = static_cast<float>(V);
  int64_t I64 = Type == io::DType::Int64 || Type == io::DType::Int32
                    ? static_cast<int64_t>(V)
                    : 0;
  int32_t I32 = static_cast<int32_t>(I64);
  switch (Type) {
  case io::DType::Float32: std::memcpy(Elem, &F, 4); break;
  case io::DType::Float64: std::memcpy(Elem, &V, 8); break;
  case io::DType::Int64: std::memcpy(Elem, &I64, 8); break;
  case io::DType::Int32: std::memcpy(Elem, &I32, 4); break;
  case io::DType::Bool: Elem[0] = V != 0; break;
  default:
    return error(What + ": sites of dtype " + numpyName(Type) +
                 " cannot take a value from the command line; give a .npy "
                 "file");
  }
  for (uint64_t K = 0; K < Count; ++K)
    std::memcpy(Buf.get() + K * W, Elem, W);
  HostArray H;
  H.Type = Type;
  H.Shape = Shape;
  H.Data = Buf.get();
  H.Keep = Buf;
  return H;
}

/// The array of a SITE=FILE.npy intervention, in the site's dtype.
static llvm::Expected<HostArray> fileValue(const Manifest &M,
                                           const ManifestSite &S,
                                           const Intervention &I,
                                           const DataSet &Data,
                                           const std::vector<uint64_t> &Want,
                                           const std::string &What) {
  std::optional<io::NpyArray> A = I.Array;
  if (!A) {
    if (!llvm::StringRef(I.Value).ends_with(".npy"))
      return error(What + "=" + I.Value + ": the value must be a number or "
                   "a .npy file of the site's shape " + shapeString(S.Shape));
    auto F = io::NpyArray::open(I.Value);
    if (!F)
      return error(What + ": " + llvm::toString(F.takeError()));
    A = std::move(*F);
  }
  std::vector<uint64_t> Got(A->shape().begin(), A->shape().end());
  if (Got != Want) {
    std::string Msg = What + "=" + I.Value + " has shape " +
                      io::formatShape(Got) + " but '" + I.Site +
                      "' has shape " + io::formatShape(Want);
    if (M.obsAxis(S.Shape) >= 0)
      Msg += " (one value per observation: " + std::to_string(Data.NumObs) +
             " observations)";
    return error(Msg + "; give one number, or an array of that shape");
  }
  auto H = asHostArray(*A, S.Type, What, Conversion::FloatPrecision);
  if (!H)
    return H.takeError();
  NonFinite NF = countNonFinite(*H, H->numElements());
  if (NF.Count)
    return error(What + "=" + I.Value + " holds " + std::to_string(NF.Count) +
                 " NaN or infinite value(s) (the first at flat index " +
                 std::to_string(NF.First) + "); the value must be finite");
  return H;
}

/// One draw of site S holding Value everywhere, or the file's array.
static llvm::Expected<HostArray> interventionValue(const Manifest &M,
                                                   const ManifestSite &S,
                                                   const Intervention &I,
                                                   const DataSet &Data,
                                                   const std::string &Option) {
  std::string What = Option + " " + I.Site;
  auto Want = resolveShape(S.Shape, Data.Bindings);
  if (!Want)
    return Want.takeError();
  double V;
  if (!parseNumber(I.Value, V))
    return fileValue(M, S, I, Data, *Want, What);
  if (llvm::Error E = checkFits(V, S.Type, What, I))
    return std::move(E);
  auto H = filledArray(V, S.Type, *Want, What);
  if (H)
    H->Name = I.Site;
  return H;
}

llvm::Error applyInterventions(const Manifest &M,
                               const std::vector<Intervention> &Given,
                               const DataSet &Data, Posterior &Post,
                               const std::string &Option) {
  for (const Intervention &I : Given) {
    int S = M.siteIndex(I.Site);
    if (S < 0 && llvm::any_of(M.Inputs, [&](const ManifestArray &A) {
          return A.Name == I.Site;
        }))
      return error(Option + " " + I.Site + ": '" + I.Site +
                   "' is an input of the model, not a site: give its values "
                   "as data (--data " + I.Site + "=FILE.npy), and an effect's "
                   "baseline values with --baseline-data " + I.Site +
                   "=FILE.npy (Python: baseline_data=)");
    if (S < 0)
      return error(Option + " " + I.Site + ": the model '" + M.Model +
                   "' has no site '" + I.Site +
                   "'; its latent and deterministic sites are: " +
                   siteNames(M));
    const ManifestSite &Site = M.Sites[S];
    if (Site.Kind == SiteKind::Observed)
      return error(Option + " " + I.Site + ": '" + I.Site +
                   "' is the model's output, which predict draws; intervene "
                   "on a site it depends on instead (" + siteNames(M) + ")");
    if (Site.Kind == SiteKind::Factor)
      return error(Option + " " + I.Site + ": '" + I.Site +
                   "' is a factor (a log-density term), not a value; "
                   "intervene on a latent or deterministic site");
    auto H = interventionValue(M, Site, I, Data, Option);
    if (!H)
      return H.takeError();
    // Every draw reads the one value: a draw axis of stride 0.
    H->Shape.insert(H->Shape.begin(), static_cast<uint64_t>(Post.NumDraws));
    H->DrawBroadcast = true;
    Post.Sites[S] = std::move(*H);
  }
  return llvm::Error::success();
}

} // namespace aimz::run
