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

// The files SQLite and the schema upgrade keep beside a database FILE: FILE-wal, FILE-shm,
// FILE-journal, FILE.v1.bak, FILE.v1-N.bak (TraceSchema). None ends as a trace's name does today;
// this keeps them out of a directory's traces whatever that filter becomes.
bool isCompanionName(const std::string& name, const std::string& database) {
    if (name.size() <= database.size() || name.compare(0, database.size(), database) != 0)
        return false;
    const std::string rest = name.substr(database.size());
    if (rest == "-wal" || rest == "-shm" || rest == "-journal") return true;
    return rest.size() >= 7 && rest.compare(0, 3, ".v1") == 0 &&
           rest.compare(rest.size() - 4, 4, ".bak") == 0;
}

// Whether `entry`, listed in `directory`, is the import's own output: the database (compared by
// device and inode, so another spelling of its path or a link to it is it too) or a companion.
bool isOutputFile(const fs::path& directory, const fs::path& entry, const std::string& outputDb) {
    if (outputDb.empty()) return false;
    std::error_code error;  // a file that does not exist (yet) is not the entry
    if (fs::equivalent(entry, outputDb, error)) return true;
    const fs::path db(outputDb);
    if (!isCompanionName(entry.filename().string(), db.filename().string())) return false;
    return fs::equivalent(directory, db.has_parent_path() ? db.parent_path() : fs::path("."),
                          error);
}

const char* const kLoopingLink = "a symbolic link that loops (it never reaches a file)";

// A directory's trace files, sorted by name; entries named as traces but with no file behind them
// go to `skipped`.
std::vector<std::string> traceFilesIn(const std::string& directory, const std::string& outputDb,
                                      std::vector<std::string>& skipped) {
    std::vector<std::string> inside;
    std::vector<std::string> passedOver;
    std::size_t outputs = 0;
    std::error_code error;
    // Every call here takes an error_code: a link that loops makes the throwing forms throw
    // filesystem_error ("Too many levels of symbolic links"), which is no message for a user.
    fs::directory_iterator entries(directory, error);
    for (; !error && entries != fs::directory_iterator(); entries.increment(error)) {
        const fs::path& entry = entries->path();
        if (!isTraceFileName(entry.filename().string())) continue;
        if (isOutputFile(directory, entry, outputDb)) {
            ++outputs;
            continue;
        }
        std::error_code statusError;
        const fs::file_status status = fs::status(entry, statusError);  // follows links
        if (status.type() == fs::file_type::not_found ||
            statusError == std::errc::too_many_symbolic_link_levels) {
            std::error_code linkError;
            if (!fs::is_symlink(fs::symlink_status(entry, linkError))) continue;  // gone meanwhile
            passedOver.push_back(fmt::format("skipped '{}': {}", entry.string(),
                                             status.type() == fs::file_type::not_found
                                                 ? "a symbolic link to a missing file"
                                                 : kLoopingLink));
            continue;
        }
        if (statusError) {
            throw inputError(fmt::format("cannot examine '{}': {}; check its permissions",
                                         entry.string(), statusError.message()));
        }
        if (fs::is_regular_file(status)) inside.push_back(entry.string());
    }
    if (error) {
        throw inputError(fmt::format("cannot list directory '{}': {}; check its permissions",
                                     directory, error.message()));
    }
    if (inside.empty()) {
        std::string only;
        if (outputs > 0) only = "the output database";
        if (!passedOver.empty()) {
            only += fmt::format("{}{} symbolic link(s) to no file", only.empty() ? "" : " and ",
                                passedOver.size());
        }
        throw inputError(
            fmt::format("directory '{}' holds no trace files (*.json, *.json.gz, *.sqlite){}",
                        directory, only.empty() ? "" : ", only " + only));
    }
    std::sort(inside.begin(), inside.end());
    std::sort(passedOver.begin(), passedOver.end());
    skipped.insert(skipped.end(), passedOver.begin(), passedOver.end());
    return inside;
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

TraceInputs expandTraceInputs(const std::vector<std::string>& paths, const std::string& outputDb) {
    TraceInputs inputs;
    for (const std::string& path : paths) {
        std::error_code error;
        if (fs::is_directory(path, error)) {
            const std::vector<std::string> inside = traceFilesIn(path, outputDb, inputs.skipped);
            inputs.files.insert(inputs.files.end(), inside.begin(), inside.end());
        } else if (fs::exists(path, error)) {
            inputs.files.push_back(path);
        } else if (error == std::errc::too_many_symbolic_link_levels) {
            throw inputError(fmt::format("'{}' is {}; point it at a trace", path, kLoopingLink));
        } else if (error) {
            throw inputError(fmt::format("cannot read '{}': {}; check the path and its permissions",
                                         path, error.message()));
        } else {
            throw inputError(fmt::format("'{}' does not exist; check the path", path));
        }
    }
    return inputs;
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

RunId storeImportedRun(TraceStore& store, const ImportedRun& run, RunInfo info) {
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
    const RunId id = store.beginRun(info);
    try {
        RunAppend append(store, id);
        copyRunContents(append, model);
        append.finish(RunStatus::kComplete);
    } catch (...) {
        try {
            RunAppend(store, id).finish(RunStatus::kFailed);
        } catch (...) {  // NOTE(import): the first failure is the one to report
        }
        throw;
    }
    return id;
}

}  // namespace glueprof
