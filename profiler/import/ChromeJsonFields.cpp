#include "profiler/import/ChromeJsonFields.h"

#include <array>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "profiler/core/ChromeExportFormat.h"

namespace glueprof::chrome_json {

namespace {

// Keys found by length and first two bytes, then compared: most keys of a trace (Kineto's "grid",
// "registers per thread", ...) are passed over after one or two byte comparisons. Each bucket is
// a few entries in place (no pointer to follow): Key() asks for every field of every event.
class FieldTable {
  public:
    FieldTable(std::initializer_list<std::pair<std::string_view, Field>> fields) {
        for (const auto& entry : fields) {
            Bucket& bucket = m_buckets[bucketOf(entry.first)];
            if (bucket.size == kPerBucket) throw std::logic_error("FieldTable: a bucket is full");
            bucket.entries[bucket.size++] = entry;
        }
    }
    Field find(std::string_view key) const {
        if (key.empty()) return Field::kOther;
        const Bucket& bucket = m_buckets[bucketOf(key)];
        for (std::size_t i = 0; i < bucket.size; ++i) {
            const std::string_view name = bucket.entries[i].first;
            if (name.size() == key.size() && sameBytes(name.data(), key.data(), key.size()))
                return bucket.entries[i].second;
        }
        return Field::kOther;
    }

  private:
    // Keys are a few bytes: a loop, not a call to memcmp for each.
    static bool sameBytes(const char* a, const char* b, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
            if (a[i] != b[i]) return false;
        }
        return true;
    }
    static constexpr std::size_t kBuckets = 128;
    static constexpr std::size_t kPerBucket = 4;
    static std::size_t bucketOf(std::string_view key) {
        const auto first = static_cast<unsigned char>(key[0]);
        const auto second = static_cast<unsigned char>(key.size() > 1 ? key[1] : 0);
        return (key.size() * 31 + first * 7 + second) % kBuckets;
    }
    struct Bucket {
        std::array<std::pair<std::string_view, Field>, kPerBucket> entries;
        std::size_t size = 0;
    };
    std::array<Bucket, kBuckets> m_buckets;
};

}  // namespace

// An event's own keys, the most asked for (every key of every event): by length, then one or
// two comparisons of a few bytes, with no table to load.
Field eventFieldOf(std::string_view key) {
    using namespace chrome;
    static_assert(kPh.size() == 2 && kTs.size() == 2 && kId.size() == 2);
    static_assert(kCat.size() == 3 && kPid.size() == 3 && kTid.size() == 3 && kDur.size() == 3);
    static_assert(kName.size() == 4);
    const auto is = [&](std::string_view name) {
        for (std::size_t i = 0; i < name.size(); ++i) {
            if (key[i] != name[i]) return false;
        }
        return true;
    };
    switch (key.size()) {
        case 2:
            return is(kPh)   ? Field::kPh
                   : is(kTs) ? Field::kTs
                   : is(kId) ? Field::kId
                             : Field::kOther;
        case 3:
            return is(kCat)   ? Field::kCat
                   : is(kPid) ? Field::kPid
                   : is(kTid) ? Field::kTid
                   : is(kDur) ? Field::kDur
                              : Field::kOther;
        case 4:
            return is(kName) ? Field::kName : Field::kOther;
        default:
            return Field::kOther;
    }
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
