// Umbrella header for the aimz maths library (generator, special functions,
// samplers, log densities).  See docs/math.md.
#pragma once

#include "aimz/math/Config.h"
#include "aimz/math/BoundedFamilies.h"
#include "aimz/math/Censored.h"
#include "aimz/math/Circular.h"
#include "aimz/math/ClosedFormFamilies.h"
#include "aimz/math/CountFamilies.h"
#include "aimz/math/EventDistributions.h"
#include "aimz/math/Folded.h"
#include "aimz/math/Hurdle.h"
#include "aimz/math/LogDensity.h"
#include "aimz/math/MatrixFamilies.h"
#include "aimz/math/MultivariateFamilies.h"
#include "aimz/math/Philox.h"
#include "aimz/math/PositiveFamilies.h"
#include "aimz/math/RealLineFamilies.h"
#include "aimz/math/Samplers.h"
#include "aimz/math/Special.h"
#include "aimz/math/Truncated.h"
#include "aimz/math/TruncatedByCdf.h"
#include "aimz/math/TruncatedCounts.h"
