#include "semantics/Prophecy.h"

#include <cstdio>
#include <sstream>

#include "ir/Check.h"
#include "ir/IRPrinter.h"

namespace tessera::semantics {

using namespace ir;

std::string scalar_to_string(Type t, Scalar v) {
    if (t.is_float()) {
        char buf[64];
        std::snprintf(buf, sizeof(buf), t.bits == 32 ? "%.9g" : "%.17g", v.f);
        return std::string(buf) + (t.bits == 32 ? "f" : "");
    }
    if (t.is_bool()) return v.u ? "true" : "false";
    if (t.is_int()) return std::to_string(v.i);
    return std::to_string(v.u);
}

namespace {

std::string point_text(const int32_t *c, size_t n) {
    std::string s = "(";
    for (size_t i = 0; i < n; i++) s += (i ? ", " : "") + std::to_string(c[i]);
    return s + ")";
}

[[noreturn]] void fail(const std::string &pipeline, const std::string &msg) {
    throw InternalError("Prophecy check of pipeline \"" + pipeline + "\": " + msg);
}

}  // namespace

ProphecyChecker::ProphecyChecker(const ir::LoweredPipeline &p, const ReferenceBindings &bindings)
    : pipeline_(p.name) {
    TESSERA_INTERNAL_ASSERT(p.output, "lowered pipeline \"" << p.name << "\" has no output Func");
    for (const auto &f : pipeline_functions(p.output)) funcs_.insert(f.get());
    try {
        oracle_ = std::make_unique<ReferenceOracle>(p.output, bindings);
    } catch (const RuntimeError &e) {
        oracle_error_ = e.what();
    }
}

ProphecyChecker::~ProphecyChecker() = default;

const ProphecyChecker::Resolved &ProphecyChecker::resolve(const Provenance &prov) {
    auto it = resolved_.find(&prov);
    if (it != resolved_.end()) return it->second;
    if (!prov.func || !funcs_.count(prov.func.get()))
        fail(pipeline_, "the annotation " + to_string(prov) + " names " +
                            (prov.func ? "Func \"" + prov.func->name + "\", which is" : std::string("no Func: it is")) +
                            " not part of the pipeline");
    const FunctionData &fd = *prov.func;
    if (prov.stage < 0 || prov.stage >= int(fd.definitions.size()))
        fail(pipeline_, "the annotation " + to_string(prov) + " names definition " + std::to_string(prov.stage) +
                            " of Func \"" + fd.name + "\", which has " + std::to_string(fd.definitions.size()) +
                            " definitions");
    if (int(prov.coords.size()) != fd.dimensions())
        fail(pipeline_, "the annotation " + to_string(prov) + " has " + std::to_string(prov.coords.size()) +
                            " coordinates but Func \"" + fd.name + "\" has " + std::to_string(fd.dimensions()) +
                            " dimensions");
    Resolved r;
    r.func = &fd;
    // A final copy writes each point once, with its final value.
    r.deferred = prov.kind == Provenance::Kind::Iteration && prov.stage > 0 &&
                 fd.definitions[size_t(prov.stage)].rdom != nullptr;
    return resolved_.emplace(&prov, r).first->second;
}

void ProphecyChecker::store(const std::string &buffer, int64_t index, const Provenance &prov, Type type,
                            Scalar value, bool poisoned, const int64_t *coords, const int64_t *rvars) {
    const Resolved &r = resolve(prov);
    const size_t n = prov.coords.size();
    std::vector<int32_t> point(n);
    for (size_t i = 0; i < n; i++) {
        if (coords[i] < INT32_MIN || coords[i] > INT32_MAX)
            fail(pipeline_, "coordinate " + std::to_string(i) + " of the annotation " + to_string(prov) +
                                " of a store to \"" + buffer + "\" is " + std::to_string(coords[i]) +
                                ", outside the int32 range of Func coordinates");
        point[i] = int32_t(coords[i]);
    }

    // A store with another annotation ends the recorded update on this buffer (rule 4).
    auto pit = pending_.find(buffer);
    if (pit != pending_.end() && (pit->second.func != r.func || pit->second.stage != prov.stage)) {
        flush(buffer, pit->second);
        pending_.erase(pit);
        pit = pending_.end();
    }

    if (r.deferred) {
        if (pit == pending_.end()) {
            pit = pending_.emplace(buffer, Pending{}).first;
            pit->second.func = r.func;
            pit->second.stage = prov.stage;
        }
        Entry &e = pit->second.points[point];
        e.type = type;
        e.value = value;
        e.poisoned = poisoned;
        e.index = index;
        e.prov = &prov;
        e.rvars.assign(rvars, rvars + prov.rvars.size());
        return;
    }
    if (poisoned) {
        stats_.poisoned++;
        return;
    }
    compare(buffer, index, prov, r.func, point.data(), type, value, rvars, false);
}

void ProphecyChecker::compare(const std::string &buffer, int64_t index, const Provenance &prov,
                              const FunctionData *f, const int32_t *coords, Type type, Scalar value,
                              const int64_t *rvars, bool final_value) {
    if (!oracle_) {
        stats_.unknown++;
        return;
    }
    Scalar expected;
    try {
        expected = oracle_->value(f, prov.stage, coords, prov.value_index);
    } catch (const RuntimeError &) {
        stats_.unknown++;
        return;
    }
    if (final_value) stats_.final_checked++;
    else stats_.checked++;
    const Type func_type = f->types().at(size_t(prov.value_index));
    Scalar want = type == func_type ? expected : cast(type, func_type, expected);
    if (identical(type, value, want)) return;

    std::ostringstream msg;
    msg << (final_value ? "the last store" : "the store") << " to \"" << buffer << "\" at index " << index
        << " (annotated " << to_string(prov) << ") writes " << scalar_to_string(type, value) << ", but "
        << describe_definition(*f, prov.stage) << " at " << point_text(coords, prov.coords.size());
    if (!prov.rvars.empty()) {
        msg << (final_value ? " (last iteration " : " (iteration ");
        for (size_t i = 0; i < prov.rvars.size(); i++)
            msg << (i ? ", " : "") << prov.rvars[i].first << " = " << rvars[i];
        msg << ")";
    }
    msg << " has the value " << scalar_to_string(f->type, expected) << " " << kProphecyMismatch;
    if (type != f->type) msg << " (" << scalar_to_string(type, want) << " as " << type.to_string() << ")";
    fail(pipeline_, msg.str());
}

void ProphecyChecker::flush(const std::string &buffer, Pending &pending) {
    for (const auto &[point, e] : pending.points) {
        if (e.poisoned) {
            stats_.poisoned++;
            continue;
        }
        compare(buffer, e.index, *e.prov, pending.func, point.data(), e.type, e.value, e.rvars.data(), true);
    }
    pending.points.clear();
}

void ProphecyChecker::release(const std::string &buffer) {
    auto it = pending_.find(buffer);
    if (it == pending_.end()) return;
    Pending p = std::move(it->second);
    pending_.erase(it);
    flush(buffer, p);
}

void ProphecyChecker::finish() {
    // Deterministic order: by buffer name.
    std::map<std::string, Pending> rest;
    for (auto &[name, p] : pending_) rest.emplace(name, std::move(p));
    pending_.clear();
    for (auto &[name, p] : rest) flush(name, p);
    if (!oracle_error_.empty())
        fail(pipeline_, "the reference semantics fails at start-up (" + oracle_error_ +
                            "), but the lowered pipeline ran to completion: a start-up check is missing");
}

}  // namespace tessera::semantics
