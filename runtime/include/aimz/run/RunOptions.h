//===- RunOptions.h - Everything a run is asked to do -----------*- C++ -*-===//
//
// A run's request: what to compute, on which scenario(s), into which
// output, with which execution. Each part is its own struct, so that a
// function needing one part (the sink its output, the plan what to compute)
// says so; RunOptions joins them, its fields reached directly (O.Kind,
// O.OutPath).
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_RUNOPTIONS_H
#define AIMZ_RUN_RUNOPTIONS_H

#include "aimz/run/ComputeSpec.h"
#include "aimz/run/ExecutionSpec.h"
#include "aimz/run/OutputSpec.h"
#include "aimz/run/ScenarioSpec.h"

namespace aimz::run {

struct RunOptions : ComputeSpec, ScenarioSpec, OutputSpec, ExecutionSpec {};

} // namespace aimz::run

#endif // AIMZ_RUN_RUNOPTIONS_H
