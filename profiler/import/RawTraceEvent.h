#pragma once
// One traceEvents element of a Chrome trace JSON file as its text says it, before any meaning:
// what the tokenizer (ChromeJsonTokenizer) hands a dialect's mapper (ChromeEventMapper).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "profiler/core/Clock.h"

namespace glueprof {

// An integer field the event does not have.
constexpr std::int64_t kAbsent = std::numeric_limits<std::int64_t>::min();

// The fields glueprof reads, reused from event to event (strings keep their capacity).
struct RawEvent {
    std::string ph, cat, name, pid, tid, id;
    // Kineto's args: the sync kind (cuda_sync_kind), a metadata event's name (args.name).
    std::string syncKind, argName;
    // torch.distributed's annotation of a collective (record_param_comms and its NCCL kernels):
    // args "Collective name", "Seq" (the process group's sequence number, equal on every rank),
    // "Process Group Name", "In msg nelems" and "dtype".
    std::string collective, dtype, processGroup;
    // glueprof's own args (ChromeExportFormat.h), read only from its export.
    std::string category, src, dst;
    bool pidNumeric = false, tidNumeric = false;
    std::optional<TimestampNs> ts, dur;
    std::int64_t correlation = kAbsent, externalId = kAbsent, stream = kAbsent,
                 waitOnStream = kAbsent, device = kAbsent, bytes = kAbsent, step = kAbsent,
                 layer = kAbsent, microbatch = kAbsent, flags = kAbsent, sequence = kAbsent,
                 elements = kAbsent;
    bool syncPoint = false;

    void clear() {
        for (std::string* s : {&ph, &cat, &name, &pid, &tid, &id, &syncKind, &argName, &category,
                               &src, &dst, &collective, &dtype, &processGroup})
            s->clear();
        pidNumeric = tidNumeric = syncPoint = false;
        ts.reset();
        dur.reset();
        correlation = externalId = stream = waitOnStream = device = bytes = step = layer =
            microbatch = flags = sequence = elements = kAbsent;
    }
};

}  // namespace glueprof
