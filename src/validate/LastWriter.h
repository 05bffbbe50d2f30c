#pragma once
// Where the value a load reads comes from (the symbolic heap of docs/validation.md): for
// each instance of a statement, the last instance of a store that wrote the cell it reads
// before it, in the same storage. Computed on the loop nest's polyhedra (src/validate/
// LoopNest.h): a load's cells, the cells each store to the same storage writes, the program
// order as 2d+1 schedules, and the lexicographic maximum of the earlier writes.
//
// Inside a parallel loop the order is that of one iteration: the writes of the same
// iteration and those before the loop count; a cell that another iteration writes makes
// the read depend on the threads' timing, which the result says (`other_iterations`).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "validate/LoopNest.h"

namespace tessera::validator {

/** One store whose writes a load reads, on part of the reading statement's instances. */
struct Source {
    const Statement *writer = nullptr;
    /** { S[i] -> W[j] }: for the instances i of the reader that read what W wrote last,
     * the instance j of W that wrote it (one, single-valued). Exact on the reader's
     * domain, simplified there (isl's gist): outside it, anything. */
    Isl<isl_map> instances;
};

/** The last writers of one load of a statement. */
struct ReadSources {
    const Statement::Read *read = nullptr;
    std::vector<Source> sources;
    /** The reader's instances that read a cell no store wrote before, in the same storage
     * (its content is whatever the memory held). */
    Isl<isl_set> unwritten;
    /** The writes of other iterations of a parallel loop to the cells the load reads (a
     * race, unless they store the value the load sees anyway): `sources` and `unwritten`
     * are then what the load sees within its own iteration. */
    struct Race {
        const Statement *writer = nullptr;
        std::string loop;        // the parallel loop's variable
        Isl<isl_map> instances;  // { S[i] -> W[j] }: j in another iteration, same cell
    };
    std::vector<Race> races;
    /** Why a read's sources are not known (empty if they are). */
    std::string unknown;
    /** { S[i] -> F[x] }: where every source stores the final value of one Func F at the
     * point its cell (and the loops around) says, the point whose value each instance
     * reads (the same whichever source wrote it last: a simpler function than the
     * sources'); null otherwise. Exact on the reader's domain. */
    Isl<isl_map> point;
    /** The Func F whose final values `point` names; `sources` may then be empty (the
     * source is known only to be some store of F's value at the point). */
    const ir::FunctionData *point_of = nullptr;
};

/** What last_writers computes once for all the loads of a storage (the last write of
 * each unfolded cell of folded storage), kept across its calls on one nest. */
struct LastWriterCache {
    struct Entry;
    struct Rows;
    std::map<std::string, std::shared_ptr<Entry>> entries;
    std::map<std::string, std::shared_ptr<Rows>> rows;
    struct Allocation;
    std::map<std::string, std::shared_ptr<Allocation>> allocations;
};

/** The sources of each load of statement `s` from storage that a store of the nest writes
 * (loads of the pipeline's inputs have none and are left out). Throws Unsupported. */
std::vector<ReadSources> last_writers(IslContext &ctx, const LoopNest &nest, const Statement &s, LastWriterCache *cache = nullptr);

}  // namespace tessera::validator
