//===- ManifestSchema.h - The keys of a model's manifest ---------*- C++ -*-===//
//
// The manifest is JSON that aimzc embeds in every model (compiler/lib/
// Manifest.cpp writes it) and aimz-run reads (runtime/lib/Manifest.cpp).
// Both spell its keys from this one list, so they cannot drift apart.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_MANIFESTSCHEMA_H
#define AIMZ_MANIFESTSCHEMA_H

namespace aimz {
namespace manifest {

// The model.
inline constexpr const char Model[] = "model";
inline constexpr const char ObsDim[] = "obs_dim";
inline constexpr const char Plan[] = "plan";
inline constexpr const char PlanReason[] = "plan_reason";
inline constexpr const char Precision[] = "precision";
inline constexpr const char Dims[] = "dims";
inline constexpr const char PosteriorDims[] = "posterior_dims"; // optional
inline constexpr const char Inputs[] = "inputs";
inline constexpr const char Outputs[] = "outputs"; // observed, in order
inline constexpr const char Sites[] = "sites";
inline constexpr const char IndexInputs[] = "index_inputs"; // optional
// true when a site is joint (class "joint": the observation axis is an
// event axis): every call of the entry points covers all observations.
inline constexpr const char JointObservations[] = "joint_observations";
// Statistics of the data the runtime computes before the run and passes
// after the inputs ({"name": "mean(X, axis=0)", "op": "mean", "input": "X",
// "axis": 0 or "all", "dtype", "shape"}). Instead of "input", a statistic
// of another expression has "argument": {"slot", "dtype", "shape"} (the
// rows aimz_prepass writes as its result `slot`) and "round" (the pre-pass
// round that computes it).
inline constexpr const char DerivedInputs[] = "derived_inputs"; // optional
inline constexpr const char DerivedOp[] = "op";
inline constexpr const char DerivedOf[] = "input";
inline constexpr const char DerivedAxis[] = "axis";
inline constexpr const char DerivedArgument[] = "argument";
inline constexpr const char ArgumentSlot[] = "slot";
inline constexpr const char DerivedRound[] = "round";
// Dimension arithmetic the runtime checks is >= 0 ({"expr": "K - 1",
// "what": "slice 1: of a dimension K"}).
inline constexpr const char DimChecks[] = "dim_checks"; // optional
inline constexpr const char CheckExpr[] = "expr";
inline constexpr const char CheckWhat[] = "what";

// An array (an input, an output, a site).
inline constexpr const char Name[] = "name";
inline constexpr const char DType[] = "dtype";
inline constexpr const char Shape[] = "shape";

// A site, beside its array keys.
inline constexpr const char Kind[] = "kind";
inline constexpr const char Class[] = "class";
inline constexpr const char Dist[] = "dist";          // sampled sites only
inline constexpr const char Support[] = "support";    // ImproperUniform's
inline constexpr const char EventRank[] = "event_rank"; // vector values
// An output with no `~` statement, scored by factors alone: true, else absent.
inline constexpr const char ScoreOnly[] = "score_only";
// One entry per axis of the shape: the name of the plate the axis lies in,
// or null (results name the dimension after it, as ArviZ does NumPyro's).
inline constexpr const char Plates[] = "plates";

// An index input ({"input": name, "dim": extent}).
inline constexpr const char IndexInput[] = "input";
inline constexpr const char IndexDim[] = "dim";

} // namespace manifest
} // namespace aimz

#endif // AIMZ_MANIFESTSCHEMA_H
