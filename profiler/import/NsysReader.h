#pragma once
// Nsight Systems SQLite exports (`nsys export --type sqlite`): CUPTI kernel, memcpy, memset,
// synchronization, runtime and CUDA event tables, NVTX ranges, the GPUs (TARGET_INFO_GPU). Export
// schemas 3.1 (EXPORT_META_DATA) to 3.24 (META_DATA_EXPORT): columns are read by name, enums
// through the file's own ENUM_* tables where it has them (docs/import.md).
#include <string>

#include "profiler/core/Sqlite.h"
#include "profiler/import/TraceAssembly.h"

namespace glueprof {

// An SQLite file with Nsight Systems' export tables (StringIds and a CUPTI_ACTIVITY_KIND_* or
// NVTX_EVENTS table, or its export metadata table).
bool isNsysExport(SqliteDb& db);

// Reads one export into a run; input errors name the file and what is wrong.
ImportedRun readNsysExport(const std::string& path, const ImportOptions& options);

}  // namespace glueprof
