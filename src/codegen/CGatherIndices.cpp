// The element indices of gathered loads and scattered stores, lane by lane. A load whose
// index is not a dense ramp reads each lane's element with a scalar load, so each lane of
// its index is needed as a scalar: as a native vector, the index costs one extraction per
// lane (on x86 shuffles, on the port that also builds the loaded vector), and a vector
// computed only to be taken apart is better computed lane by lane, in scalar registers.
// apps/bilateral_grid's slice reads 16 corners of the grid per pixel, at one index plus
// different offsets: as vectors, 16 x 8 extractions per 8 pixels; as lanes, the offsets
// are additions to 8 scalars (or parts of the addressing).
//
// Which lets are computed so: the integer vector lets of sums, products and conversions
// whose every use is in such an index, or in the value of another such let. Their lanes
// are C scalars (an array the C compiler keeps in registers); an index of a gather is
// computed lane by lane from them. This decides only how the C computes the same values.

#include "codegen/Emitter.h"

namespace tessera::codegen {

namespace {

bool integer_vector(Type t) { return t.lanes > 1 && (t.is_int() || t.is_uint()); }

/** Whether each lane of e is a few scalar instructions: sums, products and conversions of
 * integers, and their broadcasts and ramps. (A division by a constant, a shift as a
 * vector, is a rounding fix-up per lane as scalars: it stays a vector, whose lanes the
 * let then reads.) */
bool cheap_lane_by_lane(const Expr &e) {
    switch (e->kind) {
    case ExprKind::IntImm:
    case ExprKind::UIntImm:
    case ExprKind::Variable: return true;
    case ExprKind::Broadcast: return true;  // one scalar, computed once
    case ExprKind::Ramp: return cheap_lane_by_lane(as<Ramp>(e)->base) && cheap_lane_by_lane(as<Ramp>(e)->stride);
    case ExprKind::Cast: {
        const Cast *c = as<Cast>(e);
        const Type from = c->value.type();
        return (from.is_int() || from.is_uint()) && cheap_lane_by_lane(c->value);
    }
    case ExprKind::Add: return cheap_lane_by_lane(as<Add>(e)->a) && cheap_lane_by_lane(as<Add>(e)->b);
    case ExprKind::Sub: return cheap_lane_by_lane(as<Sub>(e)->a) && cheap_lane_by_lane(as<Sub>(e)->b);
    case ExprKind::Mul: return cheap_lane_by_lane(as<Mul>(e)->a) && cheap_lane_by_lane(as<Mul>(e)->b);
    default: return false;
    }
}

class GatherIndexLets : public IRVisitor {
public:
    std::set<std::string> result() {
        std::set<std::string> lets;
        for (const std::string &n : candidates_)
            if (!elsewhere_.count(n)) lets.insert(n);
        // A let used in the value of a let that is not computed lane by lane is needed as
        // a vector there.
        for (bool changed = true; changed;) {
            changed = false;
            for (auto it = lets.begin(); it != lets.end();) {
                bool keep = true;
                for (const std::string &user : used_in_[*it]) keep = keep && lets.count(user);
                if (keep) {
                    ++it;
                } else {
                    it = lets.erase(it);
                    changed = true;
                }
            }
        }
        return lets;
    }

    using IRVisitor::include;

protected:
    void visit(const Let *op) override {
        bind(op->name, op->value);
        include(op->body);
    }
    void visit(const LetStmt *op) override {
        bind(op->name, op->value);
        include(op->body);
    }
    void visit(const Load *op) override {
        if (op->type.lanes > 1 && !dense_ramp(op->index)) {
            in_index_++;
            include(op->index);
            in_index_--;
            return;
        }
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        include(op->value);
        if (op->value.type().lanes > 1 && !dense_ramp(op->index)) {
            in_index_++;
            include(op->index);
            in_index_--;
            return;
        }
        include(op->index);
    }
    void visit(const Variable *op) override {
        if (!integer_vector(op->type) || in_index_) return;
        if (!value_of_.empty()) used_in_[op->name].insert(value_of_.back());
        else elsewhere_.insert(op->name);
    }

private:
    void bind(const std::string &name, const Expr &value) {
        if (integer_vector(value.type()) && cheap_lane_by_lane(value)) candidates_.insert(name);
        // The value's uses are the let's: in an index if the let is used only in indices.
        const int saved = in_index_;
        in_index_ = 0;
        value_of_.push_back(name);
        include(value);
        value_of_.pop_back();
        in_index_ = saved;
    }

    std::set<std::string> candidates_, elsewhere_;
    std::map<std::string, std::set<std::string>> used_in_;
    std::vector<std::string> value_of_;
    int in_index_ = 0;
};

}  // namespace

std::set<std::string> gather_index_lets(const Stmt &s) {
    GatherIndexLets v;
    v.include(s);
    return v.result();
}

}  // namespace tessera::codegen
