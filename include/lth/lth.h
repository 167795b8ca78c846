/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth: every public header in one include.
 *
 *   #include <lth/lth.h>      (pkg-config --cflags --libs lth)
 *
 * Listed in the order data flows through the library (docs/library.md):
 * status and defaults, jets and expressions, sources and samples, the
 * system and the equation-form model, the decomposition and its checks, the
 * coefficient tables, consistent initial values, IVPs, BVPs, LQR, and the
 * data-file reader.  Including a single header instead is equally fine.
 */
#ifndef LTH_LTH_H
#define LTH_LTH_H

#include "lth/status.h"
#include "lth/defaults.h"
#include "lth/jet.h"
#include "lth/expr.h"
#include "lth/source.h"
#include "lth/samples.h"
#include "lth/system.h"
#include "lth/enclose.h"
#include "lth/model.h"
#include "lth/decomp.h"
#include "lth/sampling_error.h"
#include "lth/verify.h"
#include "lth/conditioning.h"
#include "lth/opdecomp.h"
#include "lth/grid.h"
#include "lth/table.h"
#include "lth/ic.h"
#include "lth/opic.h"
#include "lth/ivp.h"
#include "lth/opivp.h"
#include "lth/opsolve.h"
#include "lth/path.h"
#include "lth/bvp.h"
#include "lth/lqr.h"
#include "lth/ss.h"
#include "lth/plqr.h"
#include "lth/kalman.h"
#include "lth/problem.h"
#include "lth/norms.h"

#endif
