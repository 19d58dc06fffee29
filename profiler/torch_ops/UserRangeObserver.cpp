#include "profiler/torch_ops/UserRangeObserver.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/core/Error.h"
#include "profiler/core/TorchRangeNames.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

std::atomic<UserRangeObserver*> UserRangeObserver::s_active{nullptr};

namespace {

std::atomic<std::uint64_t> g_nextUserRangeObserverInstance{1};

struct OpenRange {
    std::uint64_t handle;
    std::string name;
    StringId nameId;
    Category category;
    std::int32_t step;
    Tags outerTags;
    TimestampNs startNs;
    std::int32_t layer = kNoTag;  // a layer scope (enterLayer): handle 0, never a step's range
};

struct ThreadRanges {
    std::uint64_t instance = 0;
    std::vector<OpenRange> open;
};

thread_local ThreadRanges t_ranges;

// Closes the innermost open range of this thread that `matches`: records it and restores the tags
// that enclosed it. Returns its name, or nullopt when none matched.
template <typename Matches>
std::optional<std::string> closeInnermost(HostTracer& tracer, const Matches& matches,
                                          TimestampNs endNs) {
    auto& open = t_ranges.open;
    const auto found = std::find_if(open.rbegin(), open.rend(), matches);
    if (found == open.rend()) return std::nullopt;
    const auto it = std::prev(found.base());
    OpenRange range = std::move(*it);
    // Ranges opened inside it and not closed yet lose their place: the tags go back to what
    // enclosed this one.
    open.erase(it, open.end());
    HostTracer::setCurrentTags(range.outerTags);
    Event event;
    event.kind = EventKind::kRange;
    event.category = range.category;
    event.name = range.nameId;
    event.startNs = range.startNs;
    event.endNs = endNs;
    event.step = range.step;
    // A layer scope carries its own layer; a user range the layer it was opened in.
    event.layer = range.layer != kNoTag ? range.layer : range.outerTags.layer;
    event.microbatch = range.outerTags.microbatch;
    tracer.record(event);
    return std::move(range.name);
}

}  // namespace

UserRangeObserver::UserRangeObserver(HostTracer& tracer, StepDetector& steps,
                                     std::set<std::string> glueRanges, StepSink stepSink)
    : m_tracer(tracer),
      m_steps(steps),
      m_glueRanges(std::move(glueRanges)),
      m_stepSink(std::move(stepSink)),
      m_instance(g_nextUserRangeObserverInstance.fetch_add(1)) {
    m_glueRanges.insert(names::kMaskBuild);
    m_glueRanges.insert(names::kMoeRouting);
    UserRangeObserver* expected = nullptr;
    if (!s_active.compare_exchange_strong(expected, this)) {
        throw GlueprofError(ExitCode::kInput,
                            "a user-range observer is already active in this process; "
                            "destroy it before creating another");
    }
    // needsIds: a range's end is matched to its start by the RecordFunction's handle.
    m_handle = at::addGlobalCallback(
        at::RecordFunctionCallback(&UserRangeObserver::onStart, &UserRangeObserver::onEnd)
            .needsIds(true)
            .scopes({at::RecordScope::USER_SCOPE}));
}

UserRangeObserver::~UserRangeObserver() {
    at::removeCallback(m_handle);
    s_active.store(nullptr);
}

Category UserRangeObserver::categoryOf(const std::string& name) const {
    if (m_glueRanges.count(name) != 0) return Category::kGlue;
    return categoryOfTorchRange(name).value_or(Category::kPhase);
}

std::unique_ptr<at::ObserverContext> UserRangeObserver::onStart(const at::RecordFunction& fn) {
    UserRangeObserver* self = s_active.load(std::memory_order_acquire);
    if (self == nullptr) return nullptr;
    if (t_ranges.instance != self->m_instance) t_ranges = ThreadRanges{self->m_instance, {}};
    const TimestampNs startNs = Clock::nowNs();
    std::string name = fn.name();
    self->m_steps.rangeStarted(name, startNs);
    const Category category = self->categoryOf(name);
    const StringId nameId = self->m_tracer.intern(name);
    const Tags outer = HostTracer::currentTags();
    Tags inner = outer;
    if (category != Category::kPhase) {
        inner.category = category;
        inner.glueRange = category == Category::kGlue ? nameId : 0;
    }
    HostTracer::setCurrentTags(inner);
    t_ranges.open.push_back(OpenRange{fn.handle(), std::move(name), nameId, category,
                                      self->m_tracer.tagsNow().step, outer, startNs, kNoTag});
    return nullptr;
}

void UserRangeObserver::onEnd(const at::RecordFunction& fn, at::ObserverContext* /*context*/) {
    const TimestampNs endNs = Clock::nowNs();
    UserRangeObserver* self = s_active.load(std::memory_order_acquire);
    if (self == nullptr || t_ranges.instance != self->m_instance) return;
    // The range's own entry: the innermost, unless a range ended out of order (or on another
    // thread than it began on, where nothing of it is found and nothing is recorded).
    const std::optional<std::string> name = closeInnermost(
        self->m_tracer, [&fn](const OpenRange& range) { return range.handle == fn.handle(); },
        endNs);
    if (!name) return;
    // The reference trainer's convention for its packed-mask cache, kept by a program that names
    // its mask build so: mask_builds per step, counted from the ranges.
    if (*name == names::kMaskBuild) self->m_tracer.counters().add(Counter::kMaskBuilds);
    if (std::optional<StepInfo> step = self->m_steps.rangeEnded(*name, endNs))
        self->m_stepSink(*step);
}

void UserRangeObserver::enterLayer(std::int32_t layer, const std::string& name) {
    UserRangeObserver* self = s_active.load(std::memory_order_acquire);
    if (self == nullptr) return;
    if (t_ranges.instance != self->m_instance) t_ranges = ThreadRanges{self->m_instance, {}};
    const Tags outer = HostTracer::currentTags();
    Tags inner = outer;
    inner.layer = layer;
    HostTracer::setCurrentTags(inner);
    t_ranges.open.push_back(OpenRange{0, name, self->m_tracer.intern(name), Category::kPhase,
                                      self->m_tracer.tagsNow().step, outer, Clock::nowNs(), layer});
}

void UserRangeObserver::exitLayer() {
    const TimestampNs endNs = Clock::nowNs();
    UserRangeObserver* self = s_active.load(std::memory_order_acquire);
    if (self == nullptr || t_ranges.instance != self->m_instance) return;
    closeInnermost(
        self->m_tracer, [](const OpenRange& range) { return range.layer != kNoTag; }, endNs);
}

}  // namespace glueprof
