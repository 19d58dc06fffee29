#pragma once
// What `glueprof profile` (the launcher) tells the capture it injects into the user's program, and
// what that capture leaves for it: environment variables in, one trace file per recording process
// out (docs/profile.md, "How the capture gets in"). Both sides include this header and nothing
// else of each other. Torch-free.
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace glueprof::profile {

// Set by the launcher for the program and everything it starts.
inline constexpr const char kTracePrefixVar[] = "GLUEPROF_PROFILE_TRACE_PREFIX";  // + rank
inline constexpr const char kLabelVar[] = "GLUEPROF_PROFILE_LABEL";
inline constexpr const char kStepRangeVar[] = "GLUEPROF_PROFILE_STEP_RANGE";
inline constexpr const char kWarmupVar[] = "GLUEPROF_PROFILE_WARMUP";
inline constexpr const char kGlueRangesVar[] = "GLUEPROF_PROFILE_GLUE_RANGES";  // comma-separated
inline constexpr const char kDeviceVar[] = "GLUEPROF_PROFILE_DEVICE";           // auto, cpu, cuda
inline constexpr const char kCommandVar[] = "GLUEPROF_PROFILE_COMMAND";         // JSON array
inline constexpr const char kTorchVersionVar[] = "GLUEPROF_PROFILE_TORCH";      // "2.11.0+cu130"
inline constexpr const char kLibraryVar[] = "GLUEPROF_PROFILE_LIBRARY";         // the capture's .so
inline constexpr const char kArmVar[] = "GLUEPROF_PROFILE_ARM";  // ab --exec: baseline/optimized
inline constexpr const char kBlockVar[] = "GLUEPROF_PROFILE_BLOCK";  // ab --exec: the block, 1..
// "1" for a program that is not Python: the capture, in LD_PRELOAD, starts as it is loaded.
inline constexpr const char kPreloadVar[] = "GLUEPROF_PROFILE_PRELOAD";
// Set by the process that records, for its own children: a DataLoader worker, a subprocess or a
// multiprocessing child of a recording process does not record (torchrun's workers do: the
// launcher process of torchrun never records).
inline constexpr const char kRecordingPidVar[] = "GLUEPROF_PROFILE_RECORDING_PID";
// The launcher (glueprof) itself: its PID, which every recording process watches (a recording
// process ends, with its own process group, when glueprof ends however it ends: LauncherWatch),
// and its process group, which a recording process never signals.
inline constexpr const char kLauncherPidVar[] = "GLUEPROF_PROFILE_LAUNCHER_PID";
inline constexpr const char kLauncherGroupVar[] = "GLUEPROF_PROFILE_LAUNCHER_GROUP";
// The capture refused to record (the program's torch is not glueprof's): it notes the reason in
// the process file (kRefused) and ends the program with kRefusedExitCode.
inline constexpr int kRefusedExitCode = 2;

// The process file, TRACE_PREFIX + "processes": created by the launcher before the program runs
// and held open by it, so what is noted there survives a program that deletes it. Every process
// whose capture starts, fails, refuses or finishes appends one line (one write, O_APPEND):
// "WORD PID STARTTIME RANK DETAIL", STARTTIME the process's start in clock ticks since boot
// (/proc/PID/stat's 22nd field: with the PID it names the process, whatever reuses the PID later).
inline constexpr const char kProcessesSuffix[] = "processes";
enum class ProcessNoteKind { kStarted, kFinished, kFailed, kRefused };
struct ProcessNote {
    ProcessNoteKind kind = ProcessNoteKind::kStarted;
    int pid = 0;
    long long startTime = 0;
    int rank = 0;
    std::string detail;  // kStarted: the trace file; kFailed, kRefused: the reason
};
// Appends a note for this process; false when the file cannot be written.
bool noteProcess(const std::string& tracePrefix, ProcessNoteKind kind, int rank,
                 const std::string& detail);
// The notes of a process file's text, in order; lines that are not notes are skipped.
std::vector<ProcessNote> parseProcessNotes(const std::string& text);

struct ProfileSettings {
    std::string tracePrefix;
    std::string label;
    std::string stepRange;
    int warmup = 1;
    std::set<std::string> glueRanges;
    std::string device = "auto";
    std::string commandJson = "[]";
    std::string torchVersion;
    std::string arm;  // "" outside ab --exec
    int block = 0;
    int launcherPid = 0;  // 0: not watched
    int launcherGroup = 0;
};

// The settings the launcher left in this process's environment; nullopt when it was not started
// by `glueprof profile` (no trace prefix).
std::optional<ProfileSettings> settingsFromEnvironment();

// The trace file of rank `rank` (0 when the program is not a rank of several).
std::string tracePath(const std::string& tracePrefix, int rank);
std::string processesPath(const std::string& tracePrefix);

// The rank of this process (RANK, as torchrun sets it), 0 when none; and the world size (1).
int rankFromEnvironment();
int worldSizeFromEnvironment();

}  // namespace glueprof::profile
