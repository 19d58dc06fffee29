#pragma once
// Which copies block the host, one rule for glueprof's own CUPTI capture and for imported traces:
// a device-to-host copy issued synchronously or into pageable memory (CUDA stages it and returns
// only when it is there), and a host-to-device copy from pageable memory issued synchronously (an
// async one is staged and returns). The name is the sync point's (`blocking DtoH copy`, ...).
#include "profiler/core/Event.h"

namespace glueprof {

enum class CopyDirection { kDeviceToHost, kHostToDevice, kOther };

// "blocking DtoH copy", "blocking HtoD copy", or nullptr when the host does not wait for it.
inline const char* blockingCopyName(CopyDirection direction, MemoryKind src, MemoryKind dst,
                                    bool asynchronous) {
    if (direction == CopyDirection::kDeviceToHost &&
        (!asynchronous || dst == MemoryKind::kPageable))
        return "blocking DtoH copy";
    if (direction == CopyDirection::kHostToDevice && !asynchronous && src == MemoryKind::kPageable)
        return "blocking HtoD copy";
    return nullptr;
}

}  // namespace glueprof
