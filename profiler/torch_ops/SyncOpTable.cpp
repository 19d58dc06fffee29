#include "profiler/torch_ops/SyncOpTable.h"

#include <string>
#include <unordered_map>

namespace glueprof {

const std::vector<SyncOpInfo>& syncOpTable() {
    static const std::vector<SyncOpInfo> kTable = {
        {"aten::item", SyncKind::kHostRead, "returns a device scalar as a host value"},
        {"aten::_local_scalar_dense", SyncKind::kHostRead, "the copy behind item()"},
        {"aten::is_nonzero", SyncKind::kHostRead, "a tensor used as a C++/Python bool"},
        {"aten::equal", SyncKind::kHostRead, "returns a host bool computed on the device"},
        {kHostReadOpName, SyncKind::kDeviceToHost,
         "blocking device-to-host copy made by glue code"},
        {"aten::nonzero", SyncKind::kOutputSize, "output size = number of true elements"},
        {"aten::nonzero_numpy", SyncKind::kOutputSize, "one-argument where() goes through it"},
        {"aten::argwhere", SyncKind::kOutputSize, "output size = number of true elements"},
        {"aten::masked_select", SyncKind::kOutputSize, "output size = number of true mask entries"},
        {"aten::unique", SyncKind::kOutputSize, "output size = number of distinct values"},
        {"aten::_unique", SyncKind::kOutputSize, "output size = number of distinct values"},
        {"aten::_unique2", SyncKind::kOutputSize, "output size = number of distinct values"},
        {"aten::unique_dim", SyncKind::kOutputSize, "output size = number of distinct values"},
        {"aten::unique_consecutive", SyncKind::kOutputSize, "output size = number of runs"},
        {"aten::bincount", SyncKind::kOutputSize, "output size = max value + 1, read on the host"},
        {"aten::repeat_interleave", SyncKind::kOutputSize,
         "output size = sum of repeats unless output_size is given (the name alone cannot tell, so "
         "every call is counted)"},
    };
    return kTable;
}

SyncKind classifySyncOp(std::string_view opName) {
    static const std::unordered_map<std::string, SyncKind> kByName = [] {
        std::unordered_map<std::string, SyncKind> byName;
        for (const SyncOpInfo& info : syncOpTable()) byName.emplace(info.name, info.kind);
        return byName;
    }();
    // Cheap reject: every entry is namespaced aten:: or glueprof::.
    if (opName.size() < 6) return SyncKind::kNone;
    auto it = kByName.find(std::string(opName));
    return it != kByName.end() ? it->second : SyncKind::kNone;
}

const char* toString(SyncKind kind) {
    switch (kind) {
        case SyncKind::kNone:
            return "none";
        case SyncKind::kHostRead:
            return "host_read";
        case SyncKind::kOutputSize:
            return "output_size";
        case SyncKind::kDeviceToHost:
            return "device_to_host";
    }
    return "unknown";
}

}  // namespace glueprof
