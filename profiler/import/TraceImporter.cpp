#include "profiler/import/TraceImporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "profiler/core/Error.h"
#include "profiler/core/RunCopy.h"
#include "profiler/core/Sqlite.h"
#include "profiler/import/KinetoReader.h"
#include "profiler/import/NsysReader.h"

namespace glueprof {

namespace fs = std::filesystem;

namespace {

bool isTraceFileName(const std::string& name) {
    auto endsWith = [&](const char* suffix) {
        const std::size_t n = std::strlen(suffix);
        return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
    };
    return endsWith(".json") || endsWith(".json.gz") || endsWith(".sqlite");
}

}  // namespace

const char* toString(TraceFormat format) {
    return format == TraceFormat::kKinetoJson ? "Kineto JSON" : "Nsight Systems SQLite";
}

TraceFormat detectTraceFormat(const std::string& path) {
    // A pipe would lose the bytes read here and a FIFO block its reader: files only.
    std::error_code error;
    if (!fs::is_regular_file(path, error)) {
        throw inputError(fmt::format(
            "'{}' is not a regular file; save the trace to a file and import that", path));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw inputError(fmt::format("cannot read '{}'; check the path and its permissions", path));
    char head[16] = {};
    in.read(head, sizeof head);
    const std::size_t got = static_cast<std::size_t>(in.gcount());
    if (got == 0) throw inputError(fmt::format("'{}' is empty (0 bytes); pass a trace file", path));
    if (got >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
        static_cast<unsigned char>(head[1]) == 0x8b)
        return TraceFormat::kKinetoJson;
    if (got == 16 && std::memcmp(head, "SQLite format 3", 16) == 0) {
        SqliteDb db(path, OpenMode::kReadOnly);
        if (isNsysExport(db)) return TraceFormat::kNsysSqlite;
        if (db.queryInt("SELECT count(*) FROM sqlite_master WHERE name = 'runs'") > 0) {
            throw inputError(fmt::format(
                "'{}' is a glueprof trace database, not a trace to import; read it with --db",
                path));
        }
        throw inputError(fmt::format(
            "'{}' is an SQLite file but not an Nsight Systems export (no StringIds and CUPTI "
            "tables); export one with `nsys export --type sqlite`",
            path));
    }
    // A UTF-8 byte order mark may precede the JSON.
    const std::size_t bom = got >= 3 && std::memcmp(head, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    for (std::size_t i = bom; i < got; ++i) {
        const char c = head[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c == '{' || c == '[') return TraceFormat::kKinetoJson;
        break;
    }
    throw inputError(fmt::format(
        "'{}' is neither a Kineto/Chrome trace (JSON, optionally gzip'd) nor an Nsight Systems "
        "SQLite export; pass one of those",
        path));
}

std::vector<std::string> expandTraceInputs(const std::vector<std::string>& paths) {
    std::vector<std::string> files;
    for (const std::string& path : paths) {
        std::error_code error;
        if (fs::is_directory(path, error)) {
            std::vector<std::string> inside;
            fs::directory_iterator entries(path, error);
            if (error) {
                throw inputError(
                    fmt::format("cannot list directory '{}': {}; check its permissions", path,
                                error.message()));
            }
            for (const auto& entry : entries) {
                if (entry.is_regular_file() && isTraceFileName(entry.path().filename().string()))
                    inside.push_back(entry.path().string());
            }
            if (inside.empty()) {
                throw inputError(fmt::format(
                    "directory '{}' holds no trace files (*.json, *.json.gz, *.sqlite)", path));
            }
            std::sort(inside.begin(), inside.end());
            files.insert(files.end(), inside.begin(), inside.end());
        } else if (fs::exists(path, error)) {
            files.push_back(path);
        } else if (error) {
            throw inputError(fmt::format("cannot read '{}': {}; check the path and its permissions",
                                         path, error.message()));
        } else {
            throw inputError(fmt::format("'{}' does not exist; check the path", path));
        }
    }
    return files;
}

ImportedRun readTrace(const std::string& path, const ImportOptions& options) {
    switch (detectTraceFormat(path)) {
        case TraceFormat::kKinetoJson:
            return readKinetoTrace(path, options);
        case TraceFormat::kNsysSqlite:
            return readNsysExport(path, options);
    }
    throw inputError("unreachable trace format");
}

RunId storeImportedRun(TraceWriter& writer, const ImportedRun& run, RunInfo info) {
    const TraceModel& model = run.model;
    info.device = model.run().device.empty() ? "cuda" : model.run().device;
    info.identity.kind = RunKind::kImported;
    info.identity.rank = run.rank;
    info.identity.worldSize = run.worldSize;
    info.preset = "imported";  // what `check` baselines of imported pairs name
    std::string skipped = "{";
    for (const auto& [what, count] : run.skipped) {
        if (skipped.size() > 1) skipped += ", ";
        skipped += fmt::format("{}: {}", jsonStringLiteral(what), count);
    }
    skipped += "}";
    info.configJson = fmt::format(
        "{{\"source\": {}, \"format\": {}, \"format_detail\": {}, "
        "\"trace_started_unix_ns\": {}, \"steps_found\": {}, \"devices\": {}, \"skipped\": {}}}",
        jsonStringLiteral(run.source), jsonStringLiteral(run.format),
        jsonStringLiteral(run.formatDetail), run.startedUnixNs, run.stepsFound ? "true" : "false",
        run.devicesJson, skipped);
    const RunId id = writer.beginRun(info);
    try {
        copyRunContents(writer, id, model);
        writer.endRun(id, RunStatus::kComplete);
        writer.flush();
    } catch (...) {
        try {
            writer.endRun(id, RunStatus::kFailed);
        } catch (...) {  // the first failure is the one to report
        }
        throw;
    }
    return id;
}

}  // namespace glueprof
