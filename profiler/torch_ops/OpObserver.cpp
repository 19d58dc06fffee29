#include "profiler/torch_ops/OpObserver.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiler/core/Clock.h"
#include "profiler/core/Error.h"
#include "profiler/core/TraceNames.h"
#include "profiler/torch_ops/SyncOpTable.h"

namespace glueprof {

std::atomic<OpObserver*> OpObserver::s_active{nullptr};

namespace {

std::atomic<std::uint64_t> g_nextOpObserverInstance{1};

struct NameInfo {
    StringId id;
    SyncKind syncKind;
    // torch.profiler.record_function's own ops (profiler::_record_function_enter_new, ..._exit):
    // the range they open is the UserRangeObserver's; as ops they are instrumentation, not work.
    bool instrumentation = false;
    // A collective is communication wherever it runs: c10d's ops (c10d::allreduce_) and the
    // backends' own records of them (gloo:all_reduce, nccl:all_reduce). kNone: the range's.
    Category own = Category::kNone;
};

// An op's category: its own (a collective's), else the enclosing range's, else math.
Category categoryOf(const NameInfo& name, const Tags& tags) {
    if (name.own != Category::kNone) return name.own;
    return tags.category != Category::kNone ? tags.category : Category::kMath;
}

Category ownCategory(std::string_view name) {
    for (std::string_view prefix : {"c10d::", "gloo:", "nccl:"}) {
        if (name.substr(0, prefix.size()) == prefix) return Category::kComm;
    }
    return Category::kNone;
}

bool isInstrumentation(std::string_view name) {
    return name.substr(0, 26) == "profiler::_record_function";
}

struct Frame {
    TimestampNs startNs;
    NameInfo name;
    bool isFunction;  // an aten op (not an autograd backward node)
    bool countedSync;
};

// A direct-mapped cache from the name's pointer (an operator's name is one string for the life of
// the process) to what the name table says; a hit is confirmed by comparing the text, since a
// pointer may be reused for another name (an autograd node's name is built per call).
struct PointerSlot {
    const char* pointer = nullptr;
    const char* text = nullptr;  // the thread's own copy of the name (NUL-terminated)
    NameInfo info{0, SyncKind::kNone};
};
constexpr std::size_t kPointerSlots = 1024;

// Per-thread state: the stack of open ops, the name caches, the thread's lane in the current run
// and where the thread's other per-thread data lives (its clock reading, its tags, its buffer in
// the writer), so a steady-state op costs one thread-local lookup per callback, two clock reads,
// one pointer-keyed lookup of its name (one hash lookup on a miss) and one push into its buffer.
struct ThreadState {
    ~ThreadState();
    TimestampNs& lastClockReading = Clock::lastReadingOfThisThread();
    const Tags& tags = HostTracer::currentTagsOfThisThread();
    std::uint64_t instance = 0;
    TraceWriter::ThreadBuffer* buffer = nullptr;  // this thread's in the observer's writer
    std::vector<Frame> frames;
    std::deque<std::string> ownedNames;
    std::unordered_map<std::string_view, NameInfo> names;
    std::vector<PointerSlot> byPointer = std::vector<PointerSlot>(kPointerSlots);
    int openFunctions = 0;
    int openSyncs = 0;
    RunId laneRun = 0;  // the run `lane` belongs to (0: none yet)
    LaneId lane = 0;

    void resetFor(std::uint64_t newInstance, TraceWriter& writer) {
        instance = newInstance;
        buffer = &writer.bufferForThisThread();
        frames.clear();
        names.clear();
        ownedNames.clear();
        std::fill(byPointer.begin(), byPointer.end(), PointerSlot{});
        openFunctions = 0;
        openSyncs = 0;
        laneRun = 0;
        lane = 0;
    }
};

// The per-op path reads one plain pointer: a thread_local with a constructor (the state itself) is
// reached through a TLS wrapper call at every use. The owner frees the state when the thread ends;
// an op observed after that (another thread_local's destructor) is not recorded.
thread_local ThreadState* t_state = nullptr;
thread_local bool t_stateGone = false;
thread_local std::unique_ptr<ThreadState> t_stateOwner;

ThreadState::~ThreadState() {
    t_state = nullptr;
    t_stateGone = true;
}

ThreadState* threadState() {
    if (t_state == nullptr && !t_stateGone) {
        t_stateOwner = std::make_unique<ThreadState>();
        t_state = t_stateOwner.get();
    }
    return t_state;
}

// The calling thread's lane in `run`: the tracer's, asked once per run.
LaneId laneIn(ThreadState& state, HostTracer& tracer, RunId run) {
    if (state.laneRun != run) {
        state.lane = tracer.laneForThisThread();
        state.laneRun = run;
    }
    return state.lane;
}

NameInfo lookupName(ThreadState& state, HostTracer& tracer, const char* name) {
    PointerSlot& slot =
        state.byPointer[(reinterpret_cast<std::uintptr_t>(name) >> 3) % kPointerSlots];
    if (slot.pointer == name && std::strcmp(name, slot.text) == 0) return slot.info;
    const std::string_view text(name);
    auto it = state.names.find(text);
    if (it == state.names.end()) {
        const std::string& owned = state.ownedNames.emplace_back(text);
        it = state.names
                 .emplace(std::string_view(owned),
                          NameInfo{tracer.intern(owned), classifySyncOp(owned),
                                   isInstrumentation(owned), ownCategory(owned)})
                 .first;
    }
    // The key views a string of ownedNames, which stays where it is: the copy a hit compares with.
    slot = PointerSlot{name, it->first.data(), it->second};
    return it->second;
}

}  // namespace

OpObserver::OpObserver(HostTracer& tracer)
    : m_tracer(tracer),
      m_routingRange(tracer.intern(names::kMoeRouting)),
      m_instance(g_nextOpObserverInstance.fetch_add(1)) {
    OpObserver* expected = nullptr;
    if (!s_active.compare_exchange_strong(expected, this)) {
        throw GlueprofError(ExitCode::kInput,
                            "an op observer is already active in this process; "
                            "destroy it before creating another");
    }
    // needsIds: libtorch gives a RecordFunction a handle only when some callback asks for one; the
    // handle is the op's correlation id (and the CUPTI external id its launches carry), so without
    // it every op's id is 0 and kernels cannot be attributed to the op that launched them.
    m_handle = at::addGlobalCallback(
        at::RecordFunctionCallback(&OpObserver::onStart, &OpObserver::onEnd)
            .needsIds(true)
            .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

OpObserver::~OpObserver() {
    at::removeCallback(m_handle);
    s_active.store(nullptr);
}

std::unique_ptr<at::ObserverContext> OpObserver::onStart(const at::RecordFunction& fn) {
    OpObserver* self = s_active.load(std::memory_order_acquire);
    if (self == nullptr) return nullptr;
    ThreadState* stateOrNull = threadState();
    if (stateOrNull == nullptr) return nullptr;
    ThreadState& state = *stateOrNull;
    if (state.instance != self->m_instance)
        state.resetFor(self->m_instance, self->m_tracer.writer());
    NameInfo name = lookupName(state, self->m_tracer, fn.name());
    if (name.instrumentation) {
        state.frames.push_back(Frame{0, name, false, false});
        return nullptr;
    }
    bool isFunction = fn.scope() == at::RecordScope::FUNCTION;
    bool countedSync = name.syncKind != SyncKind::kNone && state.openSyncs == 0;
    if (isFunction && state.openFunctions == 0) {
        self->m_tracer.counters().add(Counter::kOpsDispatched);
    }
    if (countedSync) {
        self->m_tracer.counters().add(Counter::kWouldSyncOps);
        // Counted from what blocks, not by hand in the routing code: bincount's output size is a
        // host read too (on CUDA it reads the maximum back).
        if (state.tags.glueRange == self->m_routingRange) {
            self->m_tracer.counters().add(Counter::kRoutingHostReads);
        }
        if (name.syncKind == SyncKind::kHostRead || name.syncKind == SyncKind::kDeviceToHost) {
            self->m_tracer.counters().add(Counter::kHostReads);
        }
        ++state.openSyncs;
    }
    if (isFunction) ++state.openFunctions;
    if (DeviceCapture* capture = self->m_tracer.deviceCapture()) {
        const Tags tags = self->m_tracer.tagsNow(state.tags);
        capture->enterOp(fn.handle(), OpContext{name.id, tags.step, tags.layer, tags.microbatch,
                                                categoryOf(name, tags), self->m_tracer.run()});
    }
    state.frames.push_back(
        Frame{Clock::nowNs(state.lastClockReading), name, isFunction, countedSync});
    return nullptr;
}

void OpObserver::onEnd(const at::RecordFunction& fn, at::ObserverContext* /*context*/) {
    ThreadState* stateOrNull = t_state;
    if (stateOrNull == nullptr) return;
    ThreadState& state = *stateOrNull;
    const TimestampNs endNs = Clock::nowNs(state.lastClockReading);
    OpObserver* self = s_active.load(std::memory_order_acquire);
    if (self == nullptr || state.instance != self->m_instance || state.frames.empty()) return;
    Frame frame = state.frames.back();
    state.frames.pop_back();
    if (frame.name.instrumentation) return;
    if (DeviceCapture* capture = self->m_tracer.deviceCapture()) capture->exitOp();
    if (frame.isFunction) --state.openFunctions;
    if (frame.countedSync) --state.openSyncs;

    const Tags tags = self->m_tracer.tagsNow(state.tags);
    Event event;
    event.kind = EventKind::kOp;
    event.category = categoryOf(frame.name, tags);
    event.name = frame.name.id;
    event.startNs = frame.startNs;
    event.endNs = endNs;
    event.step = tags.step;
    event.layer = tags.layer;
    event.microbatch = tags.microbatch;
    event.correlation = static_cast<std::int64_t>(fn.handle());
    if (frame.countedSync) {
        event.flags |= kFlagWouldSync;
        if (frame.name.syncKind != SyncKind::kOutputSize) event.flags |= kFlagHostRead;
    }
    if (state.openFunctions > 0) event.flags |= kFlagNested;
    // Run and lane filled here, so the event goes straight to the writer (HostTracer::record would
    // look the lane up per event).
    event.run = self->m_tracer.run();
    if (event.run == 0) return;  // no run yet: not traced
    event.lane = laneIn(state, self->m_tracer, event.run);
    self->m_tracer.writer().record(*state.buffer, event);
}

}  // namespace glueprof
