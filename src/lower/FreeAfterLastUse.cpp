// Freeing each allocation after its last access. An Allocate's buffer lives, lexically, to
// the end of its body, and lowering nests the allocations of the Funcs computed at one
// level: in a chain f -> g -> h computed at the root, f's buffer would live until h is
// done, though nothing reads it once g is computed. A Free after the buffer's last access
// ends its life there: the allocator takes the memory back and hands it to the next
// allocation (h's), whose pages are then already mapped, and the pipeline's footprint is
// that of the buffers live at once rather than of all of them. Halide frees at the same
// points. It changes no value: nothing after the Free touches the buffer (the lowered-code
// contract, src/ir/VerifyLowered.h, checks it).
//
// Where: along the straight-line code of the allocation's body (blocks, lets, nested
// allocations), after the statement that holds the last access, never inside a loop or a
// branch, which could run that access again. A Free goes in only where a loop follows it in
// the allocation's body: before a few lets or assertions it would save nothing.
//
// Cost: each statement of a straight-line region is walked once for the buffers it
// accesses, and each loop or branch body is a region of its own: time linear in the code
// times its depth of loops.

#include <map>
#include <set>
#include <vector>

#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

/** One straight-line region: its statements in program order are numbered (a let's value
 * and an allocation's extents count as one, run before their body), then the region is
 * rebuilt with the Frees after the statements numbered so. */
class Region {
public:
    Stmt place_frees(const Stmt &s) {
        scan(s);
        for (const Scope &a : allocations_) {
            auto last = last_access_.find(a.name);
            if (last == last_access_.end()) continue;
            const int after = last->second;
            // A loop in the allocation's body after the last access: work the Free saves
            // memory for.
            auto loop = loops_.upper_bound(after);
            if (loop != loops_.end() && *loop < a.end) frees_after_[after].push_back(a.name);
        }
        // Rebuilt even without Frees of its own: the loops and branches in it are regions.
        next_ = 0;
        return rebuild(s);
    }

private:
    struct Scope {
        std::string name;
        int end;  // the number of the first statement after the allocation's body
    };

    void scan(const Stmt &s) {
        if (!s.defined()) return;
        if (const Block *b = s->as<Block>()) {
            scan(b->first);
            scan(b->rest);
        } else if (const LetStmt *l = s->as<LetStmt>()) {
            statement([&](BufferAccesses &v) { v.include(l->value); }, false);
            scan(l->body);
        } else if (const Allocate *a = s->as<Allocate>()) {
            statement([&](BufferAccesses &v) {
                for (const Expr &e : a->extents) v.include(e);
            }, false);
            const size_t index = allocations_.size();
            allocations_.push_back(Scope{a->name, 0});
            scan(a->body);
            allocations_[index].end = next_;
        } else {
            statement([&](BufferAccesses &v) { v.include(s); }, s->kind == StmtKind::For);
        }
    }

    template<typename F>
    void statement(F &&accesses, bool loop) {
        BufferAccesses v;
        accesses(v);
        for (const auto *names : {&v.reads, &v.writes, &v.frees})
            for (const std::string &b : *names) last_access_[b] = next_;
        if (loop) loops_.insert(next_);
        next_++;
    }

    /** s, with the Frees after the statements numbered in scan (the same order). */
    Stmt rebuild(const Stmt &s) {
        if (!s.defined()) return s;
        if (const Block *b = s->as<Block>()) {
            Stmt first = rebuild(b->first);
            Stmt rest = rebuild(b->rest);
            return first.same_as(b->first) && rest.same_as(b->rest) ? s : Block::make(first, rest);
        }
        if (const LetStmt *l = s->as<LetStmt>()) {
            const Stmt frees = frees_after(next_++);
            Stmt body = rebuild(l->body);
            if (!frees.defined() && body.same_as(l->body)) return s;
            return LetStmt::make(l->name, l->value, Block::make(frees, body));
        }
        if (const Allocate *a = s->as<Allocate>()) {
            const Stmt frees = frees_after(next_++);
            Stmt body = rebuild(a->body);
            if (!frees.defined() && body.same_as(a->body)) return s;
            return Allocate::make(a->name, a->type, a->extents, Block::make(frees, body));
        }
        const Stmt inner = within(s);
        return Block::make(inner, frees_after(next_++));
    }

    /** A statement of the region, with its own loop and branch bodies rebuilt as regions. */
    static Stmt within(const Stmt &s) {
        if (const For *f = s->as<For>()) {
            Stmt body = Region().place_frees(f->body);
            return body.same_as(f->body) ? s : For::make(f->name, f->min, f->extent, f->for_type, body, f->loop);
        }
        if (const IfThenElse *i = s->as<IfThenElse>()) {
            Stmt then_case = Region().place_frees(i->then_case);
            Stmt else_case = i->else_case.defined() ? Region().place_frees(i->else_case) : i->else_case;
            if (then_case.same_as(i->then_case) && else_case.same_as(i->else_case)) return s;
            return IfThenElse::make(i->condition, then_case, else_case);
        }
        return s;
    }

    Stmt frees_after(int statement) const {
        auto it = frees_after_.find(statement);
        if (it == frees_after_.end()) return Stmt();
        std::vector<Stmt> frees;
        for (const std::string &name : it->second) frees.push_back(Free::make(name));
        return Block::make(frees);
    }

    std::vector<Scope> allocations_;
    std::map<std::string, int> last_access_;
    std::set<int> loops_;
    std::map<int, std::vector<std::string>> frees_after_;
    int next_ = 0;
};

}  // namespace

Stmt free_after_last_use(Stmt s) { return Region().place_frees(s); }

}  // namespace tessera::lower
