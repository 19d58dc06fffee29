#pragma once
// The `glueprof import` use case: traces recorded by other tools (torch.profiler / Kineto JSON,
// Nsight Systems SQLite exports) into a trace database, one run per file and rank; the ranks of one
// data-parallel job form one group (RankGrouping.h), and two traces given as BEFORE and AFTER one
// A/B pair. The CLI renders what it says (app/report/ImportText.h); any face may run it.
// Torch-free.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "profiler/import/ImportOutcome.h"

namespace glueprof {

struct ImportRequest {
    std::vector<std::string> inputs;  // trace files or directories of them
    std::string db = "runs.sqlite";
    std::string label;              // "" = each file's name
    std::string name = "imported";  // an A/B pair's name (with `ab`)
    std::string stepPrefix = "ProfilerStep#";
    bool keepPythonFunctions = true;
    // A Kineto file is read by two threads, the second reading spans ahead (EventPrescan);
    // false: by one.
    bool readAhead = true;
    bool ab = false;  // the two traces are BEFORE and AFTER: arms A and B of one pair
};

// What a caller hears while the import runs; every member may be empty.
struct ImportProgress {
    // A directory entry skipped (a broken link), the database's schema upgraded.
    std::function<void(const std::string& line)> notice;
    std::function<void(const StoredImport& run)> stored;  // after each run is written
    // How far the read of a Kineto JSON file is: the bytes of the file read and its size (0:
    // unknown). Called on the thread reading that file, which may run beside the store of the
    // file before it.
    std::function<void(const std::string& file, std::uint64_t readBytes, std::uint64_t fileBytes)>
        reading;
    // A file read whole is about to be stored: its events.
    std::function<void(const std::string& file, std::size_t events)> storing;
};

// Checks the request (usage errors name the flag) before the database is touched. An A/B is read
// whole before anything is written, so a bad second trace leaves no lone first arm; other imports
// write each run as soon as it is read. The run being written when the import fails is marked
// failed, and a database this import created for it is removed again (TraceStore::abandon).
ImportOutcome runImport(const ImportRequest& request, const ImportProgress& progress = {});

}  // namespace glueprof
