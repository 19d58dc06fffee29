#pragma once
// Which copies block the host, one rule for glueprof's own CUPTI capture and for imported traces:
// a device-to-host copy issued synchronously or into pageable memory (CUDA stages it and returns
// only when it is there), and a host-to-device copy from pageable memory issued synchronously (an
// async one is staged and returns). The name is the sync point's (`blocking DtoH copy`, ...). A
// host sync right after such a copy is part of its wait: profiler/core/SyncPlacement.h.
#include "profiler/core/Event.h"

namespace glueprof {

namespace names {
// The sync points of copies the host waits for (trace format, docs/schema.md: never rename).
constexpr const char* kBlockingDtoHCopy = "blocking DtoH copy";
constexpr const char* kBlockingHtoDCopy = "blocking HtoD copy";
}  // namespace names

enum class CopyDirection { kDeviceToHost, kHostToDevice, kOther };

// names::kBlockingDtoHCopy, names::kBlockingHtoDCopy, or nullptr when the host does not wait
// for it.
inline const char* blockingCopyName(CopyDirection direction, MemoryKind src, MemoryKind dst,
                                    bool asynchronous) {
    if (direction == CopyDirection::kDeviceToHost &&
        (!asynchronous || dst == MemoryKind::kPageable))
        return names::kBlockingDtoHCopy;
    if (direction == CopyDirection::kHostToDevice && !asynchronous && src == MemoryKind::kPageable)
        return names::kBlockingHtoDCopy;
    return nullptr;
}

}  // namespace glueprof
