// Schedules as data (src/ir/Schedule.h): copies, the default schedule of a definition, and
// the accessors of LoopLevel that lowering reads. The directives that build schedules are
// the scheduling language's (src/lang/Scheduling.cpp).

#include "ir/Schedule.h"

namespace tessera {

namespace ir {

std::shared_ptr<StageSchedule> StageSchedule::copy() const {
    auto c = std::make_shared<StageSchedule>(*this);
    for (auto &s : c->specializations)
        if (s.schedule) s.schedule = s.schedule->copy();
    return c;
}

std::shared_ptr<StageSchedule> default_stage_schedule(const std::vector<std::string> &pure_vars,
                                                      const std::vector<std::string> &rvars) {
    auto s = std::make_shared<StageSchedule>();
    for (const auto &r : rvars) s->dims.push_back(Dim{r, r, ForType::Serial, false, true});
    for (const auto &v : pure_vars) s->dims.push_back(Dim{v, v, ForType::Serial, true, false});
    for (const Dim &d : s->dims) s->loop_names.push_back(d.loop);
    return s;
}

}  // namespace ir

const char *tail_strategy_name(TailStrategy t) {
    switch (t) {
    case TailStrategy::RoundUp: return "RoundUp";
    case TailStrategy::GuardWithIf: return "GuardWithIf";
    case TailStrategy::ShiftInwards: return "ShiftInwards";
    case TailStrategy::Auto: return "Auto";
    }
    return "?";
}

LoopLevel::LoopLevel() : contents_(std::make_shared<Contents>()) {}

LoopLevel LoopLevel::root() {
    LoopLevel l;
    l.contents_->kind = Contents::Kind::Root;
    return l;
}

LoopLevel LoopLevel::inlined() {
    LoopLevel l;
    l.contents_->kind = Contents::Kind::Inlined;
    return l;
}

bool LoopLevel::defined() const { return contents_->kind != Contents::Kind::Undefined; }
bool LoopLevel::is_root() const { return contents_->kind == Contents::Kind::Root; }
bool LoopLevel::is_inlined() const { return contents_->kind == Contents::Kind::Inlined; }
std::string LoopLevel::func() const { return contents_->func; }
std::string LoopLevel::var() const { return contents_->var; }
bool LoopLevel::is_rvar() const { return contents_->is_rvar; }
int LoopLevel::stage_index() const { return contents_->stage; }

std::string LoopLevel::to_string() const {
    switch (contents_->kind) {
    case Contents::Kind::Undefined: return "the default level";
    case Contents::Kind::Root: return "root";
    case Contents::Kind::Inlined: return "inlined";
    case Contents::Kind::At: break;
    }
    std::string s = "the loop over " + contents_->var + " of Func \"" + contents_->func + "\"";
    if (contents_->stage > 0) s += " (update " + std::to_string(contents_->stage - 1) + ")";
    return s;
}

}  // namespace tessera
