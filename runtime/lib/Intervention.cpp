//===- Intervention.cpp - do(site = value) for predictive runs ------------===//
#include "aimz/run/Intervention.h"
#include "RunError.h"

#include "aimz/io/Npy.h"
#include "aimz/io/Shape.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
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
  uint64_t Count = 1;
  for (uint64_t D : *Want)
    Count *= D;
  bool IsInt = S.Type != io::DType::Float32 && S.Type != io::DType::Float64;
  double V;
  if (parseNumber(I.Value, V)) {
    if (!std::isfinite(V))
      return error(What + "=" + I.Value + ": the value must be finite");
    if (IsInt && (V != std::floor(V) || !std::isfinite(V)))
      return error(What + "=" + I.Value + ": '" + I.Site + "' holds " +
                   numpyName(S.Type) + " values; give a whole number");
    // One site-shaped draw filled with the value, in the site's dtype.
    size_t W = io::dtypeSize(S.Type);
    auto Buf = std::shared_ptr<uint8_t[]>(new uint8_t[Count * W]);
    for (uint64_t K = 0; K < Count; ++K) {
      uint8_t *P = Buf.get() + K * W;
      switch (S.Type) {
      case io::DType::Float32: {
        float F = static_cast<float>(V);
        std::memcpy(P, &F, W);
        break;
      }
      case io::DType::Float64:
        std::memcpy(P, &V, W);
        break;
      case io::DType::Int64: {
        int64_t X = static_cast<int64_t>(V);
        std::memcpy(P, &X, W);
        break;
      }
      case io::DType::Int32: {
        int32_t X = static_cast<int32_t>(V);
        std::memcpy(P, &X, W);
        break;
      }
      case io::DType::Bool: {
        uint8_t X = V != 0;
        std::memcpy(P, &X, 1);
        break;
      }
      default:
        return error(What + ": sites of dtype " + numpyName(S.Type) +
                     " cannot take a value from the command line; give a "
                     ".npy file");
      }
    }
    HostArray H;
    H.Name = I.Site;
    H.Type = S.Type;
    H.Shape = *Want;
    H.Data = Buf.get();
    H.Keep = Buf;
    return H;
  }
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
  if (Got != *Want) {
    std::string Msg = What + "=" + I.Value + " has shape " +
                      io::formatShape(Got) + " but '" + I.Site +
                      "' has shape " + io::formatShape(*Want);
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

llvm::Error applyInterventions(const Manifest &M,
                               const std::vector<Intervention> &Given,
                               const DataSet &Data, Posterior &Post,
                               const std::string &Option) {
  for (const Intervention &I : Given) {
    int S = M.siteIndex(I.Site);
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
