#include "profiler/import/ChromeJsonFields.h"

#include <initializer_list>
#include <utility>

#include "profiler/core/ChromeExportFormat.h"

namespace glueprof::chrome_json {

namespace {

Field lookUpField(std::string_view key,
                  std::initializer_list<std::pair<std::string_view, Field>> fields) {
    for (const auto& [name, field] : fields) {
        if (key == name) return field;
    }
    return Field::kOther;
}

}  // namespace

Field eventFieldOf(std::string_view key) {
    using namespace chrome;
    return lookUpField(key, {{kPh, Field::kPh},
                             {kCat, Field::kCat},
                             {kName, Field::kName},
                             {kPid, Field::kPid},
                             {kTid, Field::kTid},
                             {kTs, Field::kTs},
                             {kDur, Field::kDur},
                             {kId, Field::kId}});
}

Field argFieldOf(std::string_view key) {
    using namespace chrome;
    return lookUpField(key, {{kArgCorrelation, Field::kCorrelation},
                             {"External id", Field::kExternalId},
                             {"stream", Field::kStream},
                             {"device", Field::kDevice},
                             {kArgBytes, Field::kBytes},
                             {"cuda_sync_kind", Field::kSyncKind},
                             {"wait_on_stream", Field::kWaitOnStream},
                             {kArgName, Field::kArgName},
                             {kArgStep, Field::kStep},
                             {kArgLayer, Field::kLayer},
                             {kArgMicrobatch, Field::kMicrobatch},
                             {kArgFlags, Field::kFlags},
                             {kArgCategory, Field::kCategory},
                             {kArgSrc, Field::kSrc},
                             {kArgDst, Field::kDst},
                             {kArgSyncPoint, Field::kSyncPoint},
                             {"Collective name", Field::kCollective},
                             {"Seq", Field::kSequence},
                             {"In msg nelems", Field::kElements},
                             {"dtype", Field::kDtype},
                             {"Process Group Name", Field::kProcessGroup}});
}

const char* kindName(Scalar kind) {
    switch (kind) {
        case Scalar::kNull:
            return "null";
        case Scalar::kBool:
            return "a boolean";
        case Scalar::kString:
            return "a string";
        case Scalar::kNumber:
            return "a number";
    }
    return "a value";
}

}  // namespace glueprof::chrome_json
