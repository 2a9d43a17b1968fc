//===- PrepassRows.cpp - The rows of a statistic's argument ---------------===//
#include "PrepassRows.h"

#include "KernelCall.h"
#include "RunError.h"

#include <algorithm>
#include <cstring>

namespace aimz::run {
namespace {

/// Elements per block of rows: a few MiB, whatever the row's width.
constexpr uint64_t BlockElements = uint64_t(1) << 20;

/// Zeros in the shape and dtype of a statistic not computed yet.
llvm::Expected<HostArray> placeholder(const Manifest::DerivedInput &Dv,
                                      const DataSet &D) {
  auto Shape = resolveShape(Dv.Shape, D.Bindings);
  if (!Shape)
    return Shape.takeError();
  HostArray H;
  H.Name = Dv.Name;
  H.Type = Dv.Type;
  H.Shape = *Shape;
  auto Bytes = std::make_shared<std::vector<uint8_t>>(
      std::max<uint64_t>(1, H.numElements()) * io::dtypeSize(Dv.Type), 0);
  H.Data = Bytes->data();
  H.Keep = std::shared_ptr<const void>(Bytes, Bytes->data());
  return std::move(H);
}

} // namespace

llvm::Expected<std::unique_ptr<PrepassRows>>
PrepassRows::create(const Manifest &M, const DataSet &D,
                    const std::vector<std::optional<HostArray>> &Derived,
                    const Manifest::DerivedInput &Dv) {
  std::unique_ptr<PrepassRows> P(new PrepassRows());
  P->M = &M;
  P->Dv = &Dv;
  if (!M.Prepass)
    return error("transformed data '" + Dv.Name + "' needs the model's "
                 "pre-pass, which this library lacks; recompile the model "
                 "with this aimzc");
  auto Shape = resolveShape(Dv.Argument.Shape, D.Bindings);
  if (!Shape)
    return error("transformed data '" + Dv.Name + "': " +
                 llvm::toString(Shape.takeError()));
  P->Shape = *Shape;
  for (size_t I = 1; I < P->Shape.size(); ++I)
    P->Inner *= P->Shape[I];
  P->BlockRows = std::max<uint64_t>(1, BlockElements / std::max<uint64_t>(
                                                           1, P->Inner));
  for (const std::string &Sym : M.Dims) {
    auto It = D.Bindings.find(Sym);
    P->Dims.push_back(It == D.Bindings.end() ? 0 : It->second);
  }
  // The model's inputs, then every derived input (computed or zeros).
  std::vector<const HostArray *> Arrays;
  for (size_t I = 0; I < M.Inputs.size(); ++I)
    Arrays.push_back(&D.Inputs[I]);
  P->Placeholders.reserve(Derived.size());
  for (size_t K = 0; K < Derived.size(); ++K) {
    if (Derived[K]) {
      Arrays.push_back(&*Derived[K]);
      continue;
    }
    auto H = placeholder(M.DerivedInputs[K], D);
    if (!H)
      return H.takeError();
    P->Placeholders.push_back(std::move(*H));
    Arrays.push_back(&P->Placeholders.back());
  }
  for (const HostArray *A : Arrays)
    P->InStrides.push_back(A->strides());
  for (size_t I = 0; I < Arrays.size(); ++I)
    P->Inputs.push_back(
        {const_cast<void *>(Arrays[I]->Data), P->InStrides[I].data()});
  size_t Slots = 0;
  for (const Manifest::DerivedInput &Other : M.DerivedInputs)
    Slots = std::max<size_t>(Slots, Other.ArgumentSlot + 1);
  P->Observed.assign(M.Outputs.size(), aimz_view{nullptr, nullptr});
  P->Posterior.assign(Slots, aimz_view{nullptr, nullptr});
  P->Results.assign(Slots, aimz_view{nullptr, nullptr});
  // Draw stride, then C order over the argument's shape.
  P->ResultStrides.assign(P->Shape.size() + 1, 1);
  for (size_t A = P->Shape.size(); A > 1; --A)
    P->ResultStrides[A - 1] =
        P->ResultStrides[A] * static_cast<int64_t>(P->Shape[A - 1]);
  P->ResultStrides[0] = P->ResultStrides[1] * static_cast<int64_t>(P->Shape[0]);
  return std::move(P);
}

llvm::Error PrepassRows::compute(uint64_t Row) {
  Row0 = Row / BlockRows * BlockRows;
  Row1 = std::min(rows(), Row0 + BlockRows);
  Block.resize((Row1 - Row0) * Inner * io::dtypeSize(Dv->Argument.Type));
  Results[Dv->ArgumentSlot] = {Block.data(), ResultStrides.data()};
  aimz_call C{};
  C.abi_version = AIMZ_ABI_VERSION;
  C.draw_begin = 0;
  C.draw_end = 1;
  C.obs_begin = static_cast<int64_t>(Row0);
  C.obs_end = static_cast<int64_t>(Row1);
  C.input_obs_origin = 0;
  C.dims = Dims.data();
  C.inputs = Inputs.data();
  C.observed = Observed.data();
  C.posterior = Posterior.data();
  C.results = Results.data();
  C.result_draw_origin = 0;
  C.result_obs_origin = static_cast<int64_t>(Row0);
  if (llvm::Error E = callKernel(M->Prepass, C, Scratch,
                                 static_cast<int64_t>(rows())))
    return error("transformed data '" + Dv->Name + "': " +
                 llvm::toString(std::move(E)));
  return llvm::Error::success();
}

const uint8_t *PrepassRows::element(uint64_t I) {
  const uint64_t Row = I / Inner;
  if (Failed)
    return nullptr;
  if (Block.empty() || Row < Row0 || Row >= Row1)
    if (llvm::Error E = compute(Row)) {
      Failed.emplace(std::move(E));
      return nullptr;
    }
  return Block.data() +
         ((Row - Row0) * Inner + I % Inner) * io::dtypeSize(Dv->Argument.Type);
}

double PrepassRows::asDouble(uint64_t I) {
  const uint8_t *P = element(I);
  return P ? readAsDouble(P, Dv->Argument.Type, 0) : 0.0;
}

int64_t PrepassRows::asInt(uint64_t I) {
  const uint8_t *P = element(I);
  return P ? readAsInt(P, Dv->Argument.Type, 0) : 0;
}

llvm::Error PrepassRows::failure() {
  if (!Failed)
    return llvm::Error::success();
  llvm::Error E = std::move(*Failed);
  Failed.reset();
  return E;
}

} // namespace aimz::run
