#include "profiler/cupti/testing/FakeCuptiRecords.h"

#include <cstring>

namespace glueprof::cupti {

template <typename Record>
Record& FakeCuptiRecords::add(CUpti_ActivityKind kind) {
    auto storage =
        std::make_unique<std::uint8_t[]>(sizeof(Record));  // value-initialized: zero-filled
    auto* record = reinterpret_cast<Record*>(storage.get());
    reinterpret_cast<CUpti_Activity*>(record)->kind = kind;
    m_records.push_back(std::move(storage));
    return *record;
}

const char* FakeCuptiRecords::keep(const std::string& text) {
    return m_strings.emplace_back(text).c_str();
}

namespace {
// The fields every record of work on a stream (kernel, copy, memset) has.
template <typename Record>
Record& onStream(Record& r, std::uint64_t start, std::uint64_t end, std::uint32_t correlation,
                 std::uint32_t stream, std::uint32_t device) {
    r.start = start;
    r.end = end;
    r.correlationId = correlation;
    r.streamId = stream;
    r.deviceId = device;
    return r;
}
}  // namespace

FakeKernel& FakeCuptiRecords::addKernel(const std::string& name, std::uint64_t start,
                                        std::uint64_t end, std::uint32_t correlation,
                                        std::uint32_t stream, std::uint32_t device) {
    FakeKernel& r = add<FakeKernel>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    r.name = keep(name);
    return onStream(r, start, end, correlation, stream, device);
}

FakeMemcpy& FakeCuptiRecords::addMemcpy(CUpti_ActivityMemcpyKind copyKind, std::uint64_t bytes,
                                        std::uint64_t start, std::uint64_t end,
                                        std::uint32_t correlation, CUpti_ActivityMemoryKind src,
                                        CUpti_ActivityMemoryKind dst, bool async,
                                        std::uint32_t stream, std::uint32_t device) {
    FakeMemcpy& r = add<FakeMemcpy>(CUPTI_ACTIVITY_KIND_MEMCPY);
    r.copyKind = static_cast<std::uint8_t>(copyKind);
    r.srcKind = static_cast<std::uint8_t>(src);
    r.dstKind = static_cast<std::uint8_t>(dst);
    r.flags = async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
    r.bytes = bytes;
    return onStream(r, start, end, correlation, stream, device);
}

FakeMemset& FakeCuptiRecords::addMemset(std::uint64_t bytes, std::uint64_t start, std::uint64_t end,
                                        std::uint32_t correlation, std::uint32_t stream,
                                        std::uint32_t device) {
    FakeMemset& r = add<FakeMemset>(CUPTI_ACTIVITY_KIND_MEMSET);
    r.bytes = bytes;
    r.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    return onStream(r, start, end, correlation, stream, device);
}

FakeSync& FakeCuptiRecords::addSync(CUpti_ActivitySynchronizationType type, std::uint64_t start,
                                    std::uint64_t end, std::uint32_t correlation,
                                    std::uint32_t stream) {
    FakeSync& r = add<FakeSync>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    r.type = type;
    r.start = start;
    r.end = end;
    r.correlationId = correlation;
    r.streamId = stream;
    return r;
}

FakeCudaEvent& FakeCuptiRecords::addCudaEvent(std::uint32_t correlation, std::uint32_t stream) {
    FakeCudaEvent& r = add<FakeCudaEvent>(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
    r.correlationId = correlation;
    r.streamId = stream;
    return r;
}

CUpti_ActivityAPI& FakeCuptiRecords::addRuntime(std::uint32_t cbid, std::uint64_t start,
                                                std::uint64_t end, std::uint32_t correlation,
                                                std::uint32_t threadId) {
    CUpti_ActivityAPI& r = add<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
    r.cbid = cbid;
    r.start = start;
    r.end = end;
    r.correlationId = correlation;
    r.threadId = threadId;
    return r;
}

CUpti_ActivityAPI& FakeCuptiRecords::addDriver(std::uint32_t cbid, std::uint64_t start,
                                               std::uint64_t end, std::uint32_t correlation,
                                               std::uint32_t threadId) {
    CUpti_ActivityAPI& r = addRuntime(cbid, start, end, correlation, threadId);
    r.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    return r;
}

CUpti_ActivityMarker2& FakeCuptiRecords::addMarker(CUpti_ActivityFlag flags,
                                                   std::uint64_t timestamp, std::uint32_t id,
                                                   const std::string& name,
                                                   const std::string& domain,
                                                   std::uint32_t threadId) {
    CUpti_ActivityMarker2& r = add<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
    r.flags = flags;
    r.timestamp = timestamp;
    r.id = id;
    r.name = name.empty() ? nullptr : keep(name);
    r.domain = domain.empty() ? nullptr : keep(domain);
    r.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    r.objectId.pt.threadId = threadId;
    return r;
}

CUpti_ActivityExternalCorrelation& FakeCuptiRecords::addExternalCorrelation(
    std::uint32_t correlation, std::uint64_t externalId) {
    auto& r = add<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
    r.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
    r.externalId = externalId;
    r.correlationId = correlation;
    return r;
}

FakeOverhead& FakeCuptiRecords::addOverhead(CUpti_ActivityOverheadKind kind, std::uint64_t start,
                                            std::uint64_t end) {
    FakeOverhead& r = add<FakeOverhead>(CUPTI_ACTIVITY_KIND_OVERHEAD);
    r.overheadKind = kind;
    r.start = start;
    r.end = end;
    return r;
}

CUpti_Activity& FakeCuptiRecords::addOtherKind(CUpti_ActivityKind kind) {
    return add<CUpti_Activity>(kind);
}

std::vector<CUpti_Activity*> FakeCuptiRecords::pointers() const {
    std::vector<CUpti_Activity*> list;
    for (const auto& record : m_records) {
        list.push_back(reinterpret_cast<CUpti_Activity*>(record.get()));
    }
    return list;
}

void FakeCuptiRecords::feed(RecordHandler& handler) const {
    for (const auto& record : m_records)
        handler.handle(*reinterpret_cast<const CUpti_Activity*>(record.get()));
}

}  // namespace glueprof::cupti
