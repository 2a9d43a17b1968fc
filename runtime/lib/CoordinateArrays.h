//===- CoordinateArrays.h - A result's labels as coordinate variables -*- C++ -*-===//
#ifndef AIMZ_RUN_COORDINATEARRAYS_H
#define AIMZ_RUN_COORDINATEARRAYS_H

#include "aimz/run/Data.h"
#include "aimz/run/RunPlan.h"

namespace aimz::run {

/// Adds to P a coordinate array (xarray's coordinate variable) for every
/// dim of every group that has labels, after the arrays are named
/// (nameSiteDims): the user's by name (Opts.Coords), the labels of the
/// dims the model's index inputs index and of the observations
/// (Opts.IndexLabels, Opts.ObsLabels), then the posterior's. Labels whose
/// count differs from their dim's extent are an error, except the
/// posterior's, which are left out (chains merged into one draw dim).
llvm::Error addCoordinateArrays(const Manifest &M, const DataSet &Data,
                                const Posterior *Post, const RunOptions &Opts,
                                RunPlan &P, Warnings &W);

} // namespace aimz::run

#endif // AIMZ_RUN_COORDINATEARRAYS_H
