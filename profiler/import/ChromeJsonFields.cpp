#include "profiler/import/ChromeJsonFields.h"

#include <array>
#include <cstddef>
#include <initializer_list>
#include <utility>
#include <vector>

#include "profiler/core/ChromeExportFormat.h"

namespace glueprof::chrome_json {

namespace {

// Keys found by length and first byte, then compared: most keys of a trace (Kineto's "grid",
// "registers per thread", ...) are passed over after one or two byte comparisons.
class FieldTable {
  public:
    FieldTable(std::initializer_list<std::pair<std::string_view, Field>> fields) {
        for (const auto& entry : fields) m_buckets[bucketOf(entry.first)].push_back(entry);
    }
    Field find(std::string_view key) const {
        if (key.empty()) return Field::kOther;
        for (const auto& [name, field] : m_buckets[bucketOf(key)]) {
            if (key == name) return field;
        }
        return Field::kOther;
    }

  private:
    static constexpr std::size_t kBuckets = 64;
    static std::size_t bucketOf(std::string_view key) {
        return (key.size() * 31 + static_cast<unsigned char>(key.empty() ? 0 : key[0])) % kBuckets;
    }
    std::array<std::vector<std::pair<std::string_view, Field>>, kBuckets> m_buckets;
};

}  // namespace

Field eventFieldOf(std::string_view key) {
    using namespace chrome;
    static const FieldTable table{{kPh, Field::kPh},   {kCat, Field::kCat}, {kName, Field::kName},
                                  {kPid, Field::kPid}, {kTid, Field::kTid}, {kTs, Field::kTs},
                                  {kDur, Field::kDur}, {kId, Field::kId}};
    return table.find(key);
}

Field argFieldOf(std::string_view key) {
    using namespace chrome;
    static const FieldTable table{{kArgCorrelation, Field::kCorrelation},
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
                                  {"Process Group Name", Field::kProcessGroup}};
    return table.find(key);
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
