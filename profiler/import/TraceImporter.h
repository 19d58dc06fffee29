#pragma once
// TraceImporter: which reader a file needs (by its content, never its name), the files a directory
// of per-rank traces holds, and the one way an imported run is written into the store.
#include <string>
#include <vector>

#include "profiler/core/TraceStore.h"
#include "profiler/import/TraceAssembly.h"

namespace glueprof {

enum class TraceFormat { kKinetoJson, kNsysSqlite };
const char* toString(TraceFormat format);

// The format of `path` from its first bytes: gzip or JSON text -> Kineto/Chrome JSON; an SQLite
// file with Nsight Systems' export tables -> Nsight. Anything else (an empty file, a glueprof
// database, another SQLite file, other data) is an input error that says what it is instead.
TraceFormat detectTraceFormat(const std::string& path);

struct TraceInputs {
    std::vector<std::string> files;
    // What a directory held under a trace's name but no file to read, each a line naming the
    // entry and why: a symbolic link that loops or whose target is missing.
    std::vector<std::string> skipped;
};

// Files to import: each path as given, a directory as its trace files (*.json, *.json.gz,
// *.pt.trace.json, *.sqlite; sorted by name: one per rank). A directory's entries never include
// `outputDb` (the same file, by device and inode, or a link to it) nor the files SQLite and the
// schema upgrade keep beside it (-wal, -shm, -journal, .v1.bak): a second `import DIR --db
// DIR/out.sqlite` reads the traces again, not its own output. An input error for a missing path,
// an entry that cannot be examined (permissions) or a directory without traces.
TraceInputs expandTraceInputs(const std::vector<std::string>& paths,
                              const std::string& outputDb = "");

// Reads one file with the reader its content asks for.
ImportedRun readTrace(const std::string& path, const ImportOptions& options);

// Writes `run` into the store (streamed, RunAppend) as one run of kind `imported` (label, A/B
// identity from `info`; rank, world size, device and the source's description from the run).
// Returns its id. A failure while writing marks the run failed before rethrowing.
RunId storeImportedRun(TraceStore& store, const ImportedRun& run, RunInfo info);

}  // namespace glueprof
