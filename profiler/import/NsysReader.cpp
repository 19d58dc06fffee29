#include "profiler/import/NsysReader.h"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profiler/core/Error.h"
#include "profiler/core/RuntimeCallNames.h"

namespace glueprof {

namespace {

// NVTX_EVENTS.eventType (ENUM_NSYS_EVENT_TYPE): the same numbers in every export schema.
constexpr std::int64_t kNvtxMark = 34;
constexpr std::int64_t kNvtxPushPopRange = 59;
constexpr std::int64_t kNvtxStartEndRange = 60;

// The event tables this reader turns into events; every other table with rows per event is
// counted as not imported.
const std::set<std::string> kImportedTables = {"CUPTI_ACTIVITY_KIND_RUNTIME",
                                               "CUPTI_ACTIVITY_KIND_KERNEL",
                                               "CUPTI_ACTIVITY_KIND_MEMCPY",
                                               "CUPTI_ACTIVITY_KIND_MEMSET",
                                               "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                               "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
                                               "NVTX_EVENTS"};

struct EnumValue {
    std::string name;   // CUDA_MEMOPR_MEMORY_KIND_PINNED
    std::string label;  // Pinned ("" where the source has none)
};

// CUPTI's own enums by value: what exports without the ENUM_* tables store.
const std::vector<EnumValue> kCuptiMemoryKinds = {
    {"UNKNOWN", ""}, {"PAGEABLE", ""}, {"PINNED", ""},        {"DEVICE", ""},
    {"ARRAY", ""},   {"MANAGED", ""},  {"DEVICE_STATIC", ""}, {"MANAGED_STATIC", ""}};
const std::vector<EnumValue> kCuptiCopyKinds = {
    {"UNKNOWN", ""}, {"HTOD", ""}, {"DTOH", ""}, {"HTOA", ""}, {"ATOH", ""}, {"ATOA", ""},
    {"ATOD", ""},    {"DTOA", ""}, {"DTOD", ""}, {"HTOH", ""}, {"PTOP", ""}};
const std::vector<EnumValue> kCuptiSyncTypes = {{"UNKNOWN", "Unknown sync"},
                                                {"EVENT_SYNCHRONIZE", "Event sync"},
                                                {"STREAM_WAIT_EVENT", "Stream wait event"},
                                                {"STREAM_SYNCHRONIZE", "Stream sync"},
                                                {"CONTEXT_SYNCHRONIZE", "Context sync"}};

bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

std::string quoted(const std::string& identifier) {
    std::string out = "\"";
    for (char c : identifier) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::optional<std::int64_t> intAt(const SqliteStatement& row, int column) {
    if (column < 0 || row.columnIsNull(column)) return std::nullopt;
    return row.columnInt(column);
}

// CUPTI and Kineto write "no stream" as -1 or as its 32-bit pattern.
std::int64_t streamOf(std::optional<std::int64_t> stream) {
    if (!stream || *stream == -1 || *stream == 0xFFFFFFFF) return -1;
    return *stream;
}

bool hasTable(SqliteDb& db, const std::string& table) {
    SqliteStatement query =
        db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
    query.bind(1, table);
    return query.step();
}

// One table's columns by name: a SELECT of only the columns that exist, each read back by the
// index column() gave it, so a schema that adds, drops or reorders columns reads the same.
class Table {
  public:
    Table(SqliteDb& db, std::string name) : m_db(db), m_name(std::move(name)) {
        SqliteStatement info = db.prepare("SELECT name FROM pragma_table_info(?1)");
        info.bind(1, m_name);
        while (info.step()) m_columns.insert(info.columnText(0));
    }
    bool exists() const { return !m_columns.empty(); }  // a table always has a column
    const std::string& name() const { return m_name; }
    bool has(const std::string& column) const { return m_columns.count(column) != 0; }

    // Adds `column` to the SELECT; its index in each row, or -1 when the table lacks it.
    int column(const std::string& name) {
        if (!has(name)) return -1;
        m_selected.push_back(quoted(name));
        return static_cast<int>(m_selected.size()) - 1;
    }
    // column(), for a column read as an integer: damaged() says when a row holds something else
    // there.
    int integerColumn(const std::string& name) {
        const int index = column(name);
        if (index >= 0) m_integers.push_back(quoted(name));
        return index;
    }
    SqliteStatement select() const {
        std::string list = m_selected.empty() ? "NULL" : m_selected.front();
        for (std::size_t i = 1; i < m_selected.size(); ++i) list += ", " + m_selected[i];
        // An INTEGER column keeps what SQLite cannot convert ('abc', x'00ff', 1e300), which
        // sqlite3_column_int64 then reads as 0 or clamps: one more column flags such a row.
        if (!m_integers.empty()) {
            std::string wrong;
            for (const std::string& quotedName : m_integers) {
                wrong += fmt::format("{}typeof({}) NOT IN ('integer', 'null')",
                                     wrong.empty() ? "" : " OR ", quotedName);
            }
            list += ", (" + wrong + ")";
        }
        return m_db.prepare(fmt::format("SELECT {} FROM {}", list, quoted(m_name)));
    }
    // Whether a row of select() holds text, a blob or a real in a column read as an integer.
    bool damaged(const SqliteStatement& row) const {
        return !m_integers.empty() && row.columnInt(static_cast<int>(m_selected.size())) != 0;
    }

  private:
    SqliteDb& m_db;
    std::string m_name;
    std::set<std::string> m_columns;
    std::vector<std::string> m_selected;
    std::vector<std::string> m_integers;  // the selected columns read as integers, quoted
};

// One of the file's ENUM_* tables by id; nullopt when the file has none (older exports).
using EnumTable = std::optional<std::unordered_map<std::int64_t, EnumValue>>;

EnumTable readEnum(SqliteDb& db, const std::string& name) {
    Table table(db, name);
    const int id = table.column("id");
    const int text = table.column("name");
    const int label = table.column("label");
    if (id < 0 || text < 0) return std::nullopt;
    std::unordered_map<std::int64_t, EnumValue> values;
    SqliteStatement row = table.select();
    while (row.step()) {
        values[row.columnInt(id)] = {row.columnText(text), label < 0 ? "" : row.columnText(label)};
    }
    return values;
}

// The file's own enum decides what a value means: Nsight renumbers some of CUPTI's enums (its
// ENUM_CUDA_MEM_KIND starts at 0 = pageable, CUPTI's at 1). Without the table, CUPTI's numbering.
EnumValue lookUp(const EnumTable& table, const std::vector<EnumValue>& cupti,
                 std::optional<std::int64_t> value) {
    if (!value) return {};
    if (table) {
        auto it = table->find(*value);
        return it != table->end() ? it->second : EnumValue{};
    }
    if (*value < 0 || *value >= static_cast<std::int64_t>(cupti.size())) return {};
    return cupti[static_cast<std::size_t>(*value)];
}

MemoryKind memoryKindNamed(const std::string& name) {
    if (contains(name, "PAGEABLE")) return MemoryKind::kPageable;
    if (contains(name, "PINNED")) return MemoryKind::kPinned;
    // Arrays, managed and static memory live on the device as far as a copy's cost goes.
    if (contains(name, "DEVICE") || contains(name, "ARRAY") || contains(name, "MANAGED"))
        return MemoryKind::kDevice;
    return MemoryKind::kUnknown;
}

// CUDA_MEMCPY_KIND_HTOD -> "memcpy HtoD", CUDA_MEMCPY_KIND_UVM_DTOH -> "memcpy UVM DtoH".
std::string copyName(const std::string& kind) {
    const std::size_t at = kind.rfind("KIND_");
    std::string token = at == std::string::npos ? kind : kind.substr(at + 5);
    std::string prefix = "memcpy ";
    if (token.rfind("UVM_", 0) == 0) {
        prefix += "UVM ";
        token = token.substr(4);
    }
    if (token.size() != 4 || token.compare(1, 2, "TO") != 0) return "memcpy";
    return prefix + token[0] + "to" + token[3];
}

SyncRecordKind syncKindNamed(const std::string& name) {
    if (contains(name, "STREAM_WAIT_EVENT")) return SyncRecordKind::kStreamWaitEvent;
    if (contains(name, "EVENT_SYNCHRONIZE")) return SyncRecordKind::kEvent;
    if (contains(name, "STREAM_SYNCHRONIZE")) return SyncRecordKind::kStream;
    if (contains(name, "CONTEXT_SYNCHRONIZE")) return SyncRecordKind::kContext;
    return SyncRecordKind::kUnknown;
}

// Metadata and lookup tables: they describe events rather than hold them.
bool isLookupTable(const std::string& name) {
    static const std::set<std::string> kLookups = {"StringIds",        "ThreadNames",
                                                   "PROCESSES",        "ProcessStreams",
                                                   "EXPORT_META_DATA", "UnwindMethodType"};
    for (const char* prefix : {"ENUM_", "META_DATA_", "TARGET_INFO_", "ANALYSIS_", "sqlite_"}) {
        if (name.rfind(prefix, 0) == 0) return true;
    }
    return kLookups.count(name) != 0;
}

// SQLite's own messages do not know the file: add it, and what to do.
GlueprofError namingFile(const GlueprofError& error, const std::string& path) {
    const std::string message = error.what();
    if (contains(message, path)) return error;
    return GlueprofError(error.code(),
                         fmt::format("cannot read Nsight Systems export '{}': {}; check that it is "
                                     "a complete `nsys export --type sqlite` file, or export the "
                                     "report again",
                                     path, message));
}

struct Span {
    TimestampNs start = 0;
    TimestampNs end = 0;
};

class NsysReader {
  public:
    NsysReader(const std::string& path, const ImportOptions& options)
        : m_path(path), m_db(path, OpenMode::kReadOnly), m_assembly(options) {}

    ImportedRun read();

  private:
    void loadStrings();
    void readRuntime();
    void readKernels();
    void readMemcpys();
    void readMemsets();
    void readSyncs();
    void readCudaEvents();
    void readNvtx();
    void nameLanes();
    void reportUnreadTables();
    std::string formatDetail();
    std::string devicesJson();
    std::int64_t startedUnixNs();

    // Device-side rows share these columns.
    struct GpuColumns {
        int start, end, device, stream, correlation, globalPid;
    };
    static GpuColumns gpuColumns(Table& table);
    std::size_t streamLaneOf(const SqliteStatement& row, const GpuColumns& c);
    // Correlation and stream ids are per process: in an export of several CUDA processes they
    // are made unique as (pid << 32 | id) and the stream lanes name their process.
    std::string processOf(std::optional<std::int64_t> globalPidOrTid) const;
    std::int64_t correlationOf(std::optional<std::int64_t> id,
                               std::optional<std::int64_t> globalPidOrTid) const;
    void decideProcessScope();
    void loadEventStreams();
    std::size_t hostLaneOf(std::optional<std::int64_t> globalTid);
    std::optional<Span> spanOf(const SqliteStatement& row, int start, int end, const char* what);
    bool skipDamaged(const Table& table, const SqliteStatement& row, const char* what);
    const std::string& stringAt(const SqliteStatement& row, int column) const;

    std::string m_path;
    SqliteDb m_db;
    TraceAssembly m_assembly;
    std::unordered_map<std::int64_t, std::string> m_strings;       // StringIds
    std::unordered_map<std::int64_t, TimestampNs> m_runtimeStart;  // by correlation id
    bool m_perProcess = false;  // several processes made CUDA calls (decideProcessScope)
    // cudaEventRecord's stream by (process, event id): what an event sync waits for.
    std::map<std::pair<std::string, std::int64_t>, std::int64_t> m_eventStreams;
    std::unordered_map<std::int64_t, std::size_t> m_hostLanes;      // by globalTid
    std::set<std::pair<std::int64_t, std::int64_t>> m_usedThreads;  // (pid, tid) with events
    EnumTable m_memoryKinds;
    EnumTable m_copyKinds;
    EnumTable m_syncTypes;
};

ImportedRun NsysReader::read() {
    loadStrings();
    m_memoryKinds = readEnum(m_db, "ENUM_CUDA_MEM_KIND");
    m_copyKinds = readEnum(m_db, "ENUM_CUDA_MEMCPY_OPER");
    m_syncTypes = readEnum(m_db, "ENUM_CUPTI_SYNC_TYPE");
    decideProcessScope();
    loadEventStreams();
    readRuntime();  // first: CUDA event records without a timestamp take their call's start
    readKernels();
    readMemcpys();
    readMemsets();
    readSyncs();
    readCudaEvents();
    readNvtx();
    if (m_assembly.eventCount() == 0) {
        throw inputError(
            fmt::format("'{}' is an Nsight Systems export without CUDA or NVTX "
                        "events; record it with `nsys profile --trace=cuda,nvtx` "
                        "and export it again",
                        m_path));
    }
    nameLanes();
    reportUnreadTables();

    RunSummary run;
    run.label = std::filesystem::path(m_path).filename().string();
    run.status = "complete";
    run.identity.kind = RunKind::kImported;
    run.startedUnixNs = startedUnixNs();
    std::string detail = formatDetail();
    std::string devices = devicesJson();
    const std::int64_t started = run.startedUnixNs;

    ImportedRun out = std::move(m_assembly).finish(std::move(run));
    out.source = m_path;
    out.format = "Nsight Systems SQLite";
    out.formatDetail = std::move(detail);
    out.devicesJson = std::move(devices);
    out.startedUnixNs = started;
    return out;
}

void NsysReader::loadStrings() {
    Table table(m_db, "StringIds");
    const int id = table.column("id");
    const int value = table.column("value");
    if (id < 0 || value < 0) return;
    SqliteStatement row = table.select();
    while (row.step()) m_strings[row.columnInt(id)] = row.columnText(value);
}

void NsysReader::readRuntime() {
    Table table(m_db, "CUPTI_ACTIVITY_KIND_RUNTIME");
    if (!table.exists()) return;
    const int start = table.integerColumn("start");
    const int end = table.integerColumn("end");
    const int globalTid = table.integerColumn("globalTid");
    const int correlation = table.integerColumn("correlationId");
    const int nameId = table.integerColumn("nameId");
    SqliteStatement row = table.select();
    while (row.step()) {
        m_assembly.countRead(table.name());
        if (skipDamaged(table, row, "CUDA API call")) continue;
        const auto span = spanOf(row, start, end, "CUDA API call");
        if (!span) continue;
        std::string name(withoutApiVersion(stringAt(row, nameId)));
        if (name.empty()) name = "CUDA API call";
        Event& e = m_assembly.add(hostLaneOf(intAt(row, globalTid)), EventKind::kRuntime,
                                  Category::kNone, name, span->start, span->end);
        e.correlation = correlationOf(intAt(row, correlation), intAt(row, globalTid));
        if (e.correlation != 0) m_runtimeStart.emplace(e.correlation, span->start);
    }
}

void NsysReader::readKernels() {
    Table table(m_db, "CUPTI_ACTIVITY_KIND_KERNEL");
    if (!table.exists()) return;
    const GpuColumns c = gpuColumns(table);
    const int demangled = table.integerColumn("demangledName");
    const int shortName = table.integerColumn("shortName");
    SqliteStatement row = table.select();
    while (row.step()) {
        m_assembly.countRead(table.name());
        if (skipDamaged(table, row, "kernel")) continue;
        const auto span = spanOf(row, c.start, c.end, "kernel");
        if (!span) continue;
        std::string name = stringAt(row, demangled);
        if (name.empty()) name = stringAt(row, shortName);
        if (name.empty()) name = "kernel";
        Event& e = m_assembly.add(streamLaneOf(row, c), EventKind::kKernel, Category::kNone, name,
                                  span->start, span->end);
        e.correlation = correlationOf(intAt(row, c.correlation), intAt(row, c.globalPid));
    }
}

void NsysReader::readMemcpys() {
    Table table(m_db, "CUPTI_ACTIVITY_KIND_MEMCPY");
    if (!table.exists()) return;
    const GpuColumns c = gpuColumns(table);
    const int bytes = table.integerColumn("bytes");
    const int copyKind = table.integerColumn("copyKind");
    const int srcKind = table.integerColumn("srcKind");
    const int dstKind = table.integerColumn("dstKind");
    SqliteStatement row = table.select();
    while (row.step()) {
        m_assembly.countRead(table.name());
        if (skipDamaged(table, row, "memcpy")) continue;
        const auto span = spanOf(row, c.start, c.end, "memcpy");
        if (!span) continue;
        const std::string name =
            copyName(lookUp(m_copyKinds, kCuptiCopyKinds, intAt(row, copyKind)).name);
        Event& e = m_assembly.add(streamLaneOf(row, c), EventKind::kMemcpy, Category::kCopy, name,
                                  span->start, span->end);
        e.correlation = correlationOf(intAt(row, c.correlation), intAt(row, c.globalPid));
        e.bytes = intAt(row, bytes).value_or(0);
        e.srcKind =
            memoryKindNamed(lookUp(m_memoryKinds, kCuptiMemoryKinds, intAt(row, srcKind)).name);
        e.dstKind =
            memoryKindNamed(lookUp(m_memoryKinds, kCuptiMemoryKinds, intAt(row, dstKind)).name);
    }
}

void NsysReader::readMemsets() {
    Table table(m_db, "CUPTI_ACTIVITY_KIND_MEMSET");
    if (!table.exists()) return;
    const GpuColumns c = gpuColumns(table);
    const int bytes = table.integerColumn("bytes");
    SqliteStatement row = table.select();
    while (row.step()) {
        m_assembly.countRead(table.name());
        if (skipDamaged(table, row, "memset")) continue;
        const auto span = spanOf(row, c.start, c.end, "memset");
        if (!span) continue;
        Event& e = m_assembly.add(streamLaneOf(row, c), EventKind::kMemset, Category::kNone,
                                  "memset", span->start, span->end);
        e.correlation = correlationOf(intAt(row, c.correlation), intAt(row, c.globalPid));
        e.bytes = intAt(row, bytes).value_or(0);
    }
}

void NsysReader::readSyncs() {
    Table table(m_db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
    if (!table.exists()) return;
    const GpuColumns c = gpuColumns(table);
    const int syncType = table.integerColumn("syncType");
    const int deprecatedSyncType = table.integerColumn("deprecatedSyncType");
    const int eventId = table.integerColumn("eventId");
    SqliteStatement row = table.select();
    while (row.step()) {
        m_assembly.countRead(table.name());
        if (skipDamaged(table, row, "synchronization")) continue;
        const auto span = spanOf(row, c.start, c.end, "synchronization");
        if (!span) continue;
        // Newer schemas keep the value re-exported older reports had in deprecatedSyncType;
        // syncType wins whenever it says something.
        EnumValue type = lookUp(m_syncTypes, kCuptiSyncTypes, intAt(row, syncType));
        if (syncKindNamed(type.name) == SyncRecordKind::kUnknown) {
            EnumValue old = lookUp(m_syncTypes, kCuptiSyncTypes, intAt(row, deprecatedSyncType));
            if (syncKindNamed(old.name) != SyncRecordKind::kUnknown) type = std::move(old);
        }
        SyncRecord sync;
        sync.kind = syncKindNamed(type.name);
        sync.name = type.label.empty() ? "Unknown sync" : type.label;
        sync.startNs = span->start;
        sync.endNs = span->end;
        sync.correlation = correlationOf(intAt(row, c.correlation), intAt(row, c.globalPid));
        sync.device = intAt(row, c.device).value_or(0);
        sync.stream = streamOf(intAt(row, c.stream));
        sync.process = processOf(intAt(row, c.globalPid));
        // A stream sync waits for its stream; an event sync for the stream its event was
        // recorded on (CUDA_EVENT's row with the same event id); a context sync for all.
        if (sync.kind == SyncRecordKind::kStream) sync.waitedStream = sync.stream;
        if (sync.kind == SyncRecordKind::kEvent) {
            if (auto id = intAt(row, eventId)) {
                auto recorded = m_eventStreams.find({sync.process, *id});
                if (recorded != m_eventStreams.end()) sync.waitedStream = recorded->second;
            }
        }
        m_assembly.addSync(sync);
    }
}

void NsysReader::readCudaEvents() {
    Table table(m_db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT");
    if (!table.exists()) return;
    const GpuColumns c = gpuColumns(table);  // start/end only in schemas without `timestamp`
    const int timestamp = table.integerColumn("timestamp");
    SqliteStatement row = table.select();
    while (row.step()) {
        m_assembly.countRead(table.name());
        if (skipDamaged(table, row, "CUDA event record")) continue;
        // `timestamp` is the device-side completion time, 0 when Nsight did not collect it; the
        // cudaEventRecord call's start is then the best placement there is.
        std::optional<TimestampNs> at = intAt(row, timestamp);
        if (!at || *at == 0) at = intAt(row, c.start);
        const std::int64_t correlation =
            correlationOf(intAt(row, c.correlation), intAt(row, c.globalPid));
        if (!at || *at == 0) {
            auto call = m_runtimeStart.find(correlation);
            at = call != m_runtimeStart.end() ? std::optional<TimestampNs>(call->second)
                                              : std::nullopt;
        }
        if (!at) {
            m_assembly.count(DiagnosticId::kSkippedEventRecordWithoutTime);
            continue;
        }
        Event& e = m_assembly.add(streamLaneOf(row, c), EventKind::kMarker, Category::kNone,
                                  "cudaEventRecord", *at, *at);
        e.correlation = correlation;
    }
}

void NsysReader::readNvtx() {
    Table table(m_db, "NVTX_EVENTS");
    if (!table.exists()) return;
    const int start = table.integerColumn("start");
    const int end = table.integerColumn("end");
    const int eventType = table.integerColumn("eventType");
    const int text = table.column("text");
    const int textId = table.integerColumn("textId");
    const int globalTid = table.integerColumn("globalTid");
    const EnumTable types = readEnum(m_db, "ENUM_NSYS_EVENT_TYPE");
    SqliteStatement row = table.select();
    while (row.step()) {
        m_assembly.countRead(table.name());
        if (skipDamaged(table, row, "NVTX record")) continue;
        const std::int64_t type = intAt(row, eventType).value_or(-1);
        const bool range = type == kNvtxPushPopRange || type == kNvtxStartEndRange;
        if (!range && type != kNvtxMark) {
            const std::string label = lookUp(types, {}, type).label;
            m_assembly.count(DiagnosticId::kSkippedNvtxNotRange,
                             label.empty() ? fmt::format("type {}", type) : label);
            continue;
        }
        const std::optional<TimestampNs> begin = intAt(row, start);
        const std::optional<TimestampNs> finish = range ? intAt(row, end) : begin;
        if (!begin || !finish || *finish < *begin) {
            m_assembly.count(range ? DiagnosticId::kSkippedNvtxRangeWithoutEnd
                                   : DiagnosticId::kSkippedNvtxMarkWithoutTime);
            continue;
        }
        std::string name =
            text >= 0 && !row.columnIsNull(text) ? row.columnText(text) : stringAt(row, textId);
        if (name.empty()) name = range ? "unnamed NVTX range" : "unnamed NVTX mark";
        m_assembly.add(hostLaneOf(intAt(row, globalTid)),
                       range ? EventKind::kRange : EventKind::kMarker, Category::kNone, name,
                       *begin, *finish);
    }
}

// Names only the threads and processes that have events: an export lists every thread of the
// machine (225 in the fixture), and naming a lane creates it.
void NsysReader::nameLanes() {
    Table threads(m_db, "ThreadNames");
    const int nameId = threads.column("nameId");
    const int threadTid = threads.column("globalTid");
    if (nameId >= 0 && threadTid >= 0) {
        SqliteStatement row = threads.select();
        while (row.step()) {
            const std::int64_t globalTid = row.columnInt(threadTid);
            const std::int64_t pid = (globalTid >> 24) & 0xFFFFFF;
            const std::int64_t tid = globalTid & 0xFFFFFF;
            const std::string& name = stringAt(row, nameId);
            if (!name.empty() && m_usedThreads.count({pid, tid}) != 0)
                m_assembly.nameHostLane(std::to_string(pid), tid, name);
        }
    }
    std::set<std::int64_t> usedPids;
    for (const auto& [pid, tid] : m_usedThreads) usedPids.insert(pid);
    Table processes(m_db, "PROCESSES");
    const int pidColumn = processes.column("pid");
    const int globalPid = processes.column("globalPid");
    const int name = processes.column("name");
    if (name < 0 || (pidColumn < 0 && globalPid < 0)) return;
    SqliteStatement row = processes.select();
    while (row.step()) {
        std::optional<std::int64_t> pid = intAt(row, pidColumn);
        if (!pid && intAt(row, globalPid)) pid = (*intAt(row, globalPid) >> 24) & 0xFFFFFF;
        if (pid && usedPids.count(*pid) != 0 && !row.columnIsNull(name))
            m_assembly.nameProcess(std::to_string(*pid), row.columnText(name));
    }
}

void NsysReader::reportUnreadTables() {
    std::vector<std::string> tables;
    SqliteStatement row =
        m_db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    while (row.step()) tables.push_back(row.columnText(0));
    for (const std::string& table : tables) {
        if (kImportedTables.count(table) != 0 || isLookupTable(table)) continue;
        const std::int64_t rows = m_db.queryInt("SELECT COUNT(*) FROM " + quoted(table));
        m_assembly.count(DiagnosticId::kSkippedUnreadTable, table, rows);
    }
}

std::string NsysReader::formatDetail() {
    // 3.1 called the table EXPORT_META_DATA; later schemas META_DATA_EXPORT, same name/value rows.
    for (const char* tableName : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
        Table table(m_db, tableName);
        if (!table.exists()) continue;
        const int name = table.column("name");
        const int value = table.column("value");
        std::unordered_map<std::string, std::string> meta;
        if (name >= 0 && value >= 0) {
            SqliteStatement row = table.select();
            while (row.step()) meta[row.columnText(name)] = row.columnText(value);
        }
        std::string version = meta["EXPORT_SCHEMA_VERSION"];
        if (version.empty() && !meta["EXPORT_SCHEMA_VERSION_MAJOR"].empty()) {
            version = fmt::format("{}.{}.{}", meta["EXPORT_SCHEMA_VERSION_MAJOR"],
                                  meta["EXPORT_SCHEMA_VERSION_MINOR"],
                                  meta["EXPORT_SCHEMA_VERSION_MICRO"]);
        }
        std::string detail =
            fmt::format("export schema {} ({})", version.empty() ? "unknown" : version, tableName);
        const std::string& product = meta["EXPORT_PRODUCT_VERSION"];
        if (!product.empty()) detail += ", Nsight Systems " + product;
        return detail;
    }
    return "export schema unknown (no metadata table)";
}

std::string NsysReader::devicesJson() {
    Table table(m_db, "TARGET_INFO_GPU");
    const int id = table.column("id");
    const int name = table.column("name");
    if (id < 0) return "[]";
    std::string json = "[";
    SqliteStatement row = table.select();
    while (row.step()) {
        if (json.size() > 1) json += ",";
        json += fmt::format("{{\"id\":{},\"name\":{}}}", row.columnInt(id),
                            jsonStringLiteral(name < 0 ? "" : row.columnText(name)));
    }
    return json + "]";
}

std::int64_t NsysReader::startedUnixNs() {
    Table table(m_db, "TARGET_INFO_SESSION_START_TIME");
    const int utc = table.column("utcEpochNs");
    if (utc < 0) return 0;
    SqliteStatement row = table.select();
    return row.step() ? intAt(row, utc).value_or(0) : 0;
}

NsysReader::GpuColumns NsysReader::gpuColumns(Table& table) {
    return {table.integerColumn("start"),         table.integerColumn("end"),
            table.integerColumn("deviceId"),      table.integerColumn("streamId"),
            table.integerColumn("correlationId"), table.integerColumn("globalPid")};
}

std::size_t NsysReader::streamLaneOf(const SqliteStatement& row, const GpuColumns& c) {
    return m_assembly.streamLane(intAt(row, c.device).value_or(0), streamOf(intAt(row, c.stream)),
                                 processOf(intAt(row, c.globalPid)));
}

// globalPid and globalTid carry the pid in the same bits.
std::string NsysReader::processOf(std::optional<std::int64_t> globalPidOrTid) const {
    if (!m_perProcess || !globalPidOrTid) return "";
    return std::to_string((*globalPidOrTid >> 24) & 0xFFFFFF);
}

std::int64_t NsysReader::correlationOf(std::optional<std::int64_t> id,
                                       std::optional<std::int64_t> globalPidOrTid) const {
    if (!id) return 0;
    if (!m_perProcess || !globalPidOrTid) return *id;
    return (((*globalPidOrTid >> 24) & 0xFFFFFF) << 32) | (*id & 0xFFFFFFFF);
}

void NsysReader::decideProcessScope() {
    Table runtime(m_db, "CUPTI_ACTIVITY_KIND_RUNTIME");
    if (!runtime.has("globalTid")) return;
    m_perProcess = m_db.queryInt(
                       "SELECT COUNT(DISTINCT (globalTid >> 24) & 16777215) FROM "
                       "CUPTI_ACTIVITY_KIND_RUNTIME") > 1;
}

void NsysReader::loadEventStreams() {
    Table table(m_db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT");
    const int eventId = table.integerColumn("eventId");
    const int stream = table.integerColumn("streamId");
    const int globalPid = table.integerColumn("globalPid");
    if (eventId < 0 || stream < 0) return;
    SqliteStatement row = table.select();
    while (row.step()) {
        if (table.damaged(row)) continue;  // counted where readCudaEvents skips the row
        if (auto id = intAt(row, eventId))
            m_eventStreams[{processOf(intAt(row, globalPid)), *id}] = streamOf(intAt(row, stream));
    }
}

// globalTid packs the pid and tid in 24 bits each (NVIDIA's documented decoding).
std::size_t NsysReader::hostLaneOf(std::optional<std::int64_t> globalTid) {
    const std::int64_t key = globalTid.value_or(0);
    auto it = m_hostLanes.find(key);
    if (it != m_hostLanes.end()) return it->second;
    const std::int64_t pid = (key >> 24) & 0xFFFFFF;
    const std::int64_t tid = key & 0xFFFFFF;
    m_usedThreads.emplace(pid, tid);
    const std::size_t lane = m_assembly.hostLane(std::to_string(pid), tid);
    m_hostLanes.emplace(key, lane);
    return lane;
}

// A row whose start, end, id or kind is text, a blob or a real is skipped as one without start or
// end is: read as 0 or INT64_MAX it would be an event at time 0 or forever, named [Unknown].
bool NsysReader::skipDamaged(const Table& table, const SqliteStatement& row, const char* what) {
    if (!table.damaged(row)) return false;
    m_assembly.count(DiagnosticId::kSkippedNonIntegerValue, what);
    return true;
}

std::optional<Span> NsysReader::spanOf(const SqliteStatement& row, int start, int end,
                                       const char* what) {
    const std::optional<std::int64_t> s = intAt(row, start);
    const std::optional<std::int64_t> e = intAt(row, end);
    if (!s || !e) {
        m_assembly.count(DiagnosticId::kSkippedWithoutStartOrEnd, what);
        return std::nullopt;
    }
    if (*e < *s) {
        m_assembly.count(DiagnosticId::kSkippedNegativeRowDuration, what);
        return std::nullopt;
    }
    return Span{*s, *e};
}

const std::string& NsysReader::stringAt(const SqliteStatement& row, int column) const {
    static const std::string kEmpty;
    const std::optional<std::int64_t> id = intAt(row, column);
    if (!id) return kEmpty;
    auto it = m_strings.find(*id);
    return it != m_strings.end() ? it->second : kEmpty;
}

}  // namespace

bool isNsysExport(SqliteDb& db) {
    try {
        if (!hasTable(db, "StringIds")) return false;
        SqliteStatement query = db.prepare(
            R"(SELECT 1 FROM sqlite_master WHERE type = 'table' AND )"
            R"((name LIKE 'CUPTI\_ACTIVITY\_KIND\_%' ESCAPE '\' OR )"
            R"(name IN ('NVTX_EVENTS', 'META_DATA_EXPORT', 'EXPORT_META_DATA')) LIMIT 1)");
        return query.step();
    } catch (const GlueprofError& error) {
        throw namingFile(error, db.path());
    }
}

ImportedRun readNsysExport(const std::string& path, const ImportOptions& options) {
    try {
        NsysReader reader(path, options);
        return reader.read();
    } catch (const GlueprofError& error) {
        throw namingFile(error, path);
    }
}

}  // namespace glueprof
