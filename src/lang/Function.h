#pragma once
// The internal representation of a Func: its name, type and definitions.

#include <memory>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "lang/Schedule.h"
#include "tessera/Buffer.h"
#include "tessera/Param.h"
#include "tessera/RDom.h"

namespace tessera::codegen {
class JITModule;
}

namespace tessera::ir {

/** One definition (stage) of a Func: the pure definition (stage 0) or an update. */
struct Definition {
    std::vector<Expr> args;  // left-hand side coordinates
    Expr value;
    std::shared_ptr<RDomData> rdom;  // the RDom this update iterates, if any
    std::vector<Expr> predicates;    // the RDom's `where` conditions, frozen at definition
    /** Per dimension: true if the left-hand side argument is a bare Var (a pure dimension
     * of this stage), false if it is a reduction dimension (notes/seed002.md §2.3 rule 4). */
    std::vector<bool> pure_dims;
    /** How this definition's loops run (src/lang/Schedule.h). */
    std::shared_ptr<lang::StageSchedule> schedule;
};

struct FunctionData {
    std::string name;
    std::vector<std::string> args;  // pure variable names of the pure definition
    Type type;
    std::vector<Definition> definitions;  // [0] is the pure definition
    /** Set once another Func's definition calls this Func or it is realized: from then on
     * no update may be added (a Func only sees the definitions made before its use). */
    bool frozen = false;
    /** Where this Func is computed and stored, and its storage layout. */
    lang::FuncSchedule schedule;
    /** The pipeline with this Func as output, compiled for `jit_target` (Func::compile_jit);
     * realize reuses it while no schedule has changed since (`jit_epoch`). */
    std::shared_ptr<const codegen::JITModule> jit;
    std::string jit_target;
    uint64_t jit_epoch = 0;

    bool defined() const { return !definitions.empty(); }
    int dimensions() const { return static_cast<int>(args.size()); }
};

/** "the pure definition of Func \"f\"" or "update 2 of Func \"f\"" (0-based, as in
 * f.update(2)). */
std::string describe_definition(const FunctionData &f, int stage);

/** All Funcs the given Func depends on (transitively, including itself), producers
 * before consumers. */
std::vector<std::shared_ptr<FunctionData>> dependency_order(const std::shared_ptr<FunctionData> &f);

/** dependency_order(f) and the in() wrappers of those Funcs (with what they depend on):
 * every Func a lowered pipeline of f may compute, producers before consumers. */
std::vector<std::shared_ptr<FunctionData>> pipeline_functions(const std::shared_ptr<FunctionData> &f);

}  // namespace tessera::ir
