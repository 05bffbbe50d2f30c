// A file of src/lower may include the headers of the IR, the interpreters and the analyses.
#include "analysis/Simplify.h"
#include "ir/LoweredPipeline.h"
#include "lower/Lower.h"
#include "semantics/IRInterpreter.h"

int lowering_probe() { return 0; }
