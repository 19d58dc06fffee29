#include "profiler/cupti/CuptiSession.h"

#include <fmt/format.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>

#include "profiler/cupti/CuptiLibrary.h"

namespace glueprof::cupti {

std::atomic<CuptiSession*> CuptiSession::s_active{nullptr};
std::atomic<std::int64_t> CuptiSession::s_clockFallbacks{0};

CuptiSession::BufferPool& CuptiSession::pool() {
    // NOTE(cupti): never freed. CUPTI may still hold a buffer it was handed when a capture ends (a
    // late completion after the last flush); freeing it could let CUPTI write into freed memory.
    // The pool outlives every session instead, and the next capture of the process reuses it, so
    // nothing grows beyond the cap however many captures run.
    static BufferPool* buffers = new BufferPool;
    return *buffers;
}

namespace {

struct KindToEnable {
    CUpti_ActivityKind kind;
    const char* name;
    bool required;  // false: an older CUPTI may not offer it (noted, not fatal)
};

// CUDA_EVENT is enabled on its own: since CUDA 12.9 it is no longer part of SYNCHRONIZATION.
constexpr KindToEnable kKinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", true},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", true},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", true},
    {CUPTI_ACTIVITY_KIND_CUDA_EVENT, "CUDA_EVENT", false},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", true},
    {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", true},
    {CUPTI_ACTIVITY_KIND_MARKER, "MARKER", false},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION", true},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", false},
};

}  // namespace

CuptiSession::CuptiSession(std::unique_ptr<CuptiLibrary> library, CaptureEnvironment env)
    : m_library(std::move(library)),
      m_synchronizeDevice(env.synchronizeDevice),
      m_handler(std::move(env)) {
    BufferPool& buffers = pool();
    std::lock_guard<std::mutex> lock(buffers.mutex);
    while (buffers.owned < kBuffersUpFront) {
        buffers.free.push_back(new std::uint8_t[kBufferBytes]);
        ++buffers.owned;
    }
}

std::unique_ptr<CuptiSession> CuptiSession::start(CaptureEnvironment env, CaptureStatus& status) {
    status = CaptureStatus{};
    status.headerVersion = CUPTI_API_VERSION;
    auto library = std::make_unique<CuptiLibrary>(CuptiLibrary::load());
    if (!library->ok()) {
        status.blocker = library->tooOld() ? CaptureStatus::Blocker::kOldLibrary
                                           : CaptureStatus::Blocker::kNoLibrary;
        status.reason = library->error();
        return nullptr;
    }
    status.libraryPath = library->path();
    status.runtimeVersion = library->version();
    const auto environment = [](const char* name) {
        const char* value = std::getenv(name);
        return std::string(value != nullptr ? value : "");
    };
    if (std::string other = otherCuptiClient(environment); !other.empty()) {
        status.blocker = CaptureStatus::Blocker::kOtherProfiler;
        status.reason = std::move(other);
        return nullptr;
    }
    // NVTX of other code (torch's, a user's) reaches CUPTI's MARKER records only through this
    // variable; the header says whether it does.
    const std::string nvtx =
        nvtxInjectionNote(environment("NVTX_INJECTION64_PATH"), library->path());
    if (!nvtx.empty()) status.notes.push_back(nvtx);
    if (status.blockWithoutDevice()) {
        return nullptr;
    }
    if (!env.apiName) {  // runtime and driver calls named by CUPTI itself ("cudaLaunchKernel", ...)
        const CuptiLibrary* lib = library.get();  // owned by the session for its whole life
        env.apiName = [lib](bool driver, std::uint32_t cbid) {
            const char* name = nullptr;
            const CUpti_CallbackDomain domain =
                driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
            if (lib->fn().getCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name != nullptr)
                return std::string(name);
            return fmt::format("{} api {}", driver ? "driver" : "runtime", cbid);
        };
    }
    CuptiSession* expected = nullptr;
    std::unique_ptr<CuptiSession> session(new CuptiSession(std::move(library), std::move(env)));
    if (!s_active.compare_exchange_strong(expected, session.get())) {
        status.blocker = CaptureStatus::Blocker::kBusy;
        status.reason = "another CUPTI capture is already running in this process";
        return nullptr;
    }
    const CuptiFunctions& f = session->m_library->fn();
    auto fail = [&](const std::string& what, CUptiResult result) {
        status.blocker = CaptureStatus::Blocker::kCuptiRefused;
        status.reason = fmt::format("{} failed: {}", what, session->m_library->describe(result));
        for (int kind : session->m_enabledKinds)
            f.activityDisable(static_cast<CUpti_ActivityKind>(kind));
        session->m_enabledKinds.clear();
        s_active.store(nullptr);
        return nullptr;
    };
    if (CUptiResult r = f.activityRegisterCallbacks(&requestTrampoline, &completeTrampoline);
        r != CUPTI_SUCCESS) {
        return fail("cuptiActivityRegisterCallbacks", r);
    }
    if (CUptiResult r = f.setThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
        r != CUPTI_SUCCESS) {
        return fail("cuptiSetThreadIdType(SYSTEM)", r);
    }
    for (const KindToEnable& k : kKinds) {
        const CUptiResult r = f.activityEnable(k.kind);
        if (r == CUPTI_SUCCESS) {
            session->m_enabledKinds.push_back(static_cast<int>(k.kind));
        } else if (k.required) {
            return fail(fmt::format("cuptiActivityEnable({})", k.name), r);
        } else {
            status.notes.push_back(
                fmt::format("{} not captured: {}", k.name, session->m_library->describe(r)));
        }
    }
    Clock::useSource(&clockTrampoline);
    status.active = true;
    return session;
}

CuptiSession::~CuptiSession() {
    if (s_active.load() != this) return;  // never started
    const CuptiFunctions& f = m_library->fn();
    // Shutdown, in Kineto's order: the device finishes what was queued after the last step (so no
    // record is incomplete), recording stops, then one forced flush hands out every buffer.
    synchronizeDeviceQuietly();
    for (int kind : m_enabledKinds) f.activityDisable(static_cast<CUpti_ActivityKind>(kind));
    check(f.activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    Clock::useSource(nullptr);
    m_handler.noteClockFallbacks(s_clockFallbacks.exchange(0));
    m_handler.finish();
    s_active.store(nullptr);

    // libcupti stays loaded: unloading it once it has attached to a CUDA context is not safe.
}

void CuptiSession::synchronizeDeviceQuietly() {
    if (!m_synchronizeDevice) return;
    // The profiler's own sync is no sync point of the program: its API call and synchronization
    // record are dropped (same thread, inside this window).
    const auto tid = static_cast<std::int64_t>(::syscall(SYS_gettid));
    const TimestampNs start = Clock::nowNs();
    m_synchronizeDevice();
    m_handler.ignoreHostCalls(tid, start, Clock::nowNs());
}

void CuptiSession::check(CUptiResult result) {
    if (result != CUPTI_SUCCESS) m_handler.noteCallFailure();
}

void CuptiSession::enterOp(std::uint64_t externalId, const OpContext& op) {
    m_handler.noteOp(externalId, op);
    check(m_library->fn().pushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                                    externalId));
}

void CuptiSession::exitOp() {
    std::uint64_t popped = 0;
    check(
        m_library->fn().popExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped));
}

void CuptiSession::flush(std::int32_t step) {
    // The step's work finished on the device first, so its records are complete: a plain flush
    // hands them out (a forced one would hand out incomplete records of running work).
    synchronizeDeviceQuietly();
    check(m_library->fn().activityFlushAll(0));
    m_handler.noteClockFallbacks(s_clockFallbacks.exchange(0));
    m_handler.resolve(step);
}

std::uint8_t* CuptiSession::takeBuffer() {
    BufferPool& buffers = pool();
    std::lock_guard<std::mutex> lock(buffers.mutex);
    if (buffers.free.empty()) {
        if (buffers.owned >= kBufferCap) return nullptr;
        ++buffers.owned;
        return new std::uint8_t[kBufferBytes];
    }
    std::uint8_t* buffer = buffers.free.back();
    buffers.free.pop_back();
    return buffer;
}

void CuptiSession::giveBack(std::uint8_t* buffer) {
    BufferPool& buffers = pool();
    std::lock_guard<std::mutex> lock(buffers.mutex);
    buffers.free.push_back(buffer);
}

void CuptiSession::completed(CUcontext context, std::uint32_t streamId, std::uint8_t* buffer,
                             std::size_t validSize) {
    const CuptiFunctions& f = m_library->fn();
    if (validSize > 0) {
        m_handler.drainBuffer([&](CUpti_Activity** record) {
            return f.activityGetNextRecord(buffer, validSize, record);
        });
    }
    std::size_t dropped = 0;
    if (f.activityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS) {
        m_handler.noteDropped(dropped);
    }
    giveBack(buffer);
}

void CuptiSession::requestTrampoline(std::uint8_t** buffer, std::size_t* size,
                                     std::size_t* maxRecords) {
    CuptiSession* self = s_active.load(std::memory_order_acquire);
    *maxRecords = 0;  // as many as fit
    *buffer = self != nullptr ? self->takeBuffer() : nullptr;
    *size = *buffer != nullptr ? kBufferBytes : 0;
    if (*buffer == nullptr && self != nullptr) self->m_handler.noteBufferRefused();
}

void CuptiSession::completeTrampoline(CUcontext context, std::uint32_t streamId,
                                      std::uint8_t* buffer, std::size_t /*size*/,
                                      std::size_t validSize) {
    CuptiSession* self = s_active.load(std::memory_order_acquire);
    if (buffer == nullptr) return;
    if (self != nullptr) {
        self->completed(context, streamId, buffer, validSize);
    } else {
        // A late completion after the capture ended: its records have no run left; the buffer goes
        // back to the pool so later captures keep it.
        giveBack(buffer);
    }
}

TimestampNs CuptiSession::clockTrampoline() {
    CuptiSession* self = s_active.load(std::memory_order_acquire);
    std::uint64_t now = 0;
    if (self == nullptr || self->m_library->fn().getTimestamp(&now) != CUPTI_SUCCESS) {
        s_clockFallbacks.fetch_add(1, std::memory_order_relaxed);  // counted at the next flush
        return Clock::steadyNs();
    }
    return static_cast<TimestampNs>(now);
}

}  // namespace glueprof::cupti
