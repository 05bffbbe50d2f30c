#pragma once
// Tessera: a user-schedulable language for image and tensor pipelines.
// The umbrella header: include this and use namespace tessera.

#include "tessera/Argument.h"
#include "tessera/Atl.h"
#include "tessera/BoundaryConditions.h"
#include "tessera/Buffer.h"
#include "tessera/Error.h"
#include "tessera/Expr.h"
#include "tessera/Func.h"
#include "tessera/Generator.h"
#include "tessera/IROperator.h"
#include "tessera/InlineReductions.h"
#include "tessera/Param.h"
#include "tessera/Pipeline.h"
#include "tessera/Program.h"
#include "tessera/RDom.h"
#include "tessera/Target.h"
#include "tessera/Type.h"
