#pragma once
// Holistic Trace Analysis's step window (hta/common/trace.py, _filter_irrelevant_gpu_kernels, with
// its last step kept): with two or more steps, HTA keeps the host events that start by the end of
// the last step and the device work they launched; with one step or none, every event. The idle
// breakdown, the temporal breakdown, the kernel breakdown and the launch statistics read the device
// work HTA reads, with HTA's kernel types.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "profiler/core/TraceModel.h"

namespace glueprof {

// The latest start of a host event HTA keeps; nullopt when it keeps every event.
std::optional<TimestampNs> htaHostEventCutoff(const TraceModel& trace);

// The device work HTA reads, with the start of each launch (runtime call) by correlation id.
class HtaDeviceWork {
  public:
    explicit HtaDeviceWork(const TraceModel& trace);
    // Whether HTA reads `work` (a kernel, copy or memset): every one without a step window, else
    // the ones whose launch starts by the cutoff.
    bool keeps(const Event& work) const;
    std::optional<TimestampNs> launchStart(std::int64_t correlation) const;

  private:
    std::unordered_map<std::int64_t, TimestampNs> m_launchStart;
    std::optional<TimestampNs> m_cutoff;
};

// HTA's kernel types (hta/utils/utils.py, get_kernel_type): communication `^nccl.*Kernel`;
// memory: copies, memsets and names `^Memcpy`, `^Memset`, `^dma`; computation: any other kernel
// whose name holds neither `Memcpy` nor `Sync`; other: the rest.
enum class HtaKernelType { kCommunication, kMemory, kComputation, kOther };
HtaKernelType htaKernelType(const Event& work, const std::string& name);
const char* toString(HtaKernelType type);  // HTA's names: "COMMUNICATION", "COMPUTATION", ...

bool isDeviceWork(const Event& e);  // a kernel, copy or memset
// A lane of device work: a CUDA stream or copy engine of a device (not the CPU copy engine).
bool isDeviceWorkLane(const Lane& lane);

}  // namespace glueprof
