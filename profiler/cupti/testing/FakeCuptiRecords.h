#pragma once
// Test support: builds zero-filled real CUPTI record structs (the newest layouts of the headers at
// hand, as the library would hand them out) and feeds them to the production RecordHandler, so
// correlation, attribution and diagnostics run in CI without a GPU. Only the record source is fake.
#include <cupti.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "profiler/cupti/ActivityLayouts.h"
#include "profiler/cupti/RecordHandler.h"

namespace glueprof::cupti {

#ifdef GLUEPROF_CUPTI_NEWEST_LAYOUTS
using FakeKernel = NewestKernel;
using FakeMemcpy = NewestMemcpy;
using FakeMemset = NewestMemset;
using FakeSync = NewestSync;
using FakeCudaEvent = NewestCudaEvent;
using FakeOverhead = NewestOverhead;
#else
using FakeKernel = KernelRecord;
using FakeMemcpy = MemcpyRecord;
using FakeMemset = MemsetRecord;
using FakeSync = SyncRecordLayout;
using FakeCudaEvent = CudaEventRecord;
using FakeOverhead = OverheadRecord;
#endif

class FakeCuptiRecords {
  public:
    FakeKernel& addKernel(const std::string& name, std::uint64_t start, std::uint64_t end,
                          std::uint32_t correlation, std::uint32_t stream = 7,
                          std::uint32_t device = 0);
    FakeMemcpy& addMemcpy(CUpti_ActivityMemcpyKind copyKind, std::uint64_t bytes,
                          std::uint64_t start, std::uint64_t end, std::uint32_t correlation,
                          CUpti_ActivityMemoryKind src, CUpti_ActivityMemoryKind dst, bool async,
                          std::uint32_t stream = 7, std::uint32_t device = 0);
    FakeMemset& addMemset(std::uint64_t bytes, std::uint64_t start, std::uint64_t end,
                          std::uint32_t correlation, std::uint32_t stream = 7,
                          std::uint32_t device = 0);
    FakeSync& addSync(CUpti_ActivitySynchronizationType type, std::uint64_t start,
                      std::uint64_t end, std::uint32_t correlation, std::uint32_t stream = 7);
    FakeCudaEvent& addCudaEvent(std::uint32_t correlation, std::uint32_t stream = 7);
    CUpti_ActivityAPI& addRuntime(std::uint32_t cbid, std::uint64_t start, std::uint64_t end,
                                  std::uint32_t correlation, std::uint32_t threadId);
    CUpti_ActivityAPI& addDriver(std::uint32_t cbid, std::uint64_t start, std::uint64_t end,
                                 std::uint32_t correlation, std::uint32_t threadId);
    // NVTX: flags CUPTI_ACTIVITY_FLAG_MARKER_START / _END / _INSTANTANEOUS.
    CUpti_ActivityMarker2& addMarker(CUpti_ActivityFlag flags, std::uint64_t timestamp,
                                     std::uint32_t id, const std::string& name,
                                     const std::string& domain, std::uint32_t threadId);
    CUpti_ActivityExternalCorrelation& addExternalCorrelation(std::uint32_t correlation,
                                                              std::uint64_t externalId);
    FakeOverhead& addOverhead(CUpti_ActivityOverheadKind kind, std::uint64_t start,
                              std::uint64_t end);
    // A record of a kind glueprof does not handle (its header only).
    CUpti_Activity& addOtherKind(CUpti_ActivityKind kind);

    // Hands every record, in the order added, to the handler, as a completed buffer would.
    void feed(RecordHandler& handler) const;
    // The records in the order added, as cuptiActivityGetNextRecord would return them.
    std::vector<CUpti_Activity*> pointers() const;
    std::size_t size() const { return m_records.size(); }

  private:
    template <typename Record>
    Record& add(CUpti_ActivityKind kind);
    const char* keep(const std::string& text);

    std::vector<std::unique_ptr<std::uint8_t[]>> m_records;  // zero-filled, 8-byte aligned (new[])
    std::deque<std::string> m_strings;                       // names the records point to
};

}  // namespace glueprof::cupti
