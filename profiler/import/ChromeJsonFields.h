#pragma once
// The keys of a Chrome trace's events and args that glueprof reads, and the kinds of JSON value
// the reader (JsonScanner) hands over: the vocabulary of ChromeJsonHandler, decided once per key.
#include <string_view>

namespace glueprof::chrome_json {

enum class Scalar { kNull, kBool, kNumber, kString };

// The keys of an event and of its args that are read, decided once per key.
enum class Field {
    kOther,
    kPh,
    kCat,
    kName,
    kPid,
    kTid,
    kTs,
    kDur,
    kId,
    kCorrelation,
    kExternalId,
    kStream,
    kDevice,
    kBytes,
    kSyncKind,
    kWaitOnStream,
    kArgName,
    kCollective,
    kSequence,
    kElements,
    kDtype,
    kProcessGroup,
    // glueprof's own args: read only from its export (RawEventSink::readsRecordedArgs)
    kStep,
    kLayer,
    kMicrobatch,
    kFlags,
    kCategory,
    kSrc,
    kDst,
    kSyncPoint,
};

// The field of an event's key (ph, name, ...), of an args key (correlation, stream, ...), or
// Field::kOther for one glueprof passes over.
Field eventFieldOf(std::string_view key);
Field argFieldOf(std::string_view key);

// "a string", "null", ...: what a value of the wrong kind is, for messages.
const char* kindName(Scalar kind);

}  // namespace glueprof::chrome_json
