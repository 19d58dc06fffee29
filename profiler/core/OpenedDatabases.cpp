#include "profiler/core/OpenedDatabases.h"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <vector>

#include "profiler/core/Error.h"

namespace glueprof {

namespace {

struct OpenedDatabase {
    std::string path;                 // as the user gave it, for the message
    std::filesystem::path canonical;  // weakly canonical at the time it was opened
    dev_t device = 0;
    ino_t inode = 0;
    bool identified = false;  // device and inode known (the file existed when noted)
};

std::mutex g_mutex;
std::vector<OpenedDatabase> g_opened;

std::filesystem::path weaklyCanonical(const std::string& path) {
    std::error_code ec;
    std::filesystem::path result = std::filesystem::weakly_canonical(path, ec);
    return ec ? std::filesystem::path(path).lexically_normal() : result;
}

constexpr const char* kCompanions[] = {"", "-wal", "-shm", "-journal"};

}  // namespace

void noteOpenedDatabase(const std::string& path) {
    OpenedDatabase db{path, weaklyCanonical(path)};
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        db.device = st.st_dev;
        db.inode = st.st_ino;
        db.identified = true;
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const OpenedDatabase& known : g_opened) {
        if (known.canonical == db.canonical && known.identified == db.identified &&
            known.inode == db.inode && known.device == db.device)
            return;
    }
    g_opened.push_back(std::move(db));
}

void forgetRemovedDatabase(const std::string& path) {
    const std::filesystem::path canonical = weaklyCanonical(path);
    struct stat st {};
    const bool identified = ::stat(path.c_str(), &st) == 0;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_opened.erase(std::remove_if(g_opened.begin(), g_opened.end(),
                                  [&](const OpenedDatabase& db) {
                                      return db.canonical == canonical ||
                                             (identified && db.identified &&
                                              db.device == st.st_dev && db.inode == st.st_ino);
                                  }),
                   g_opened.end());
}

void refuseOutputOntoDatabase(const std::string& output, const std::string& option) {
    struct stat st {};
    const bool exists = ::stat(output.c_str(), &st) == 0;
    const std::filesystem::path target = weaklyCanonical(output);
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const OpenedDatabase& db : g_opened) {
        bool hit = exists && db.identified && st.st_dev == db.device && st.st_ino == db.inode;
        const char* companion = "";
        for (const char* suffix : kCompanions) {
            if (hit) break;
            if (target == std::filesystem::path(db.canonical.string() + suffix)) {
                hit = true;
                companion = suffix;
            }
        }
        if (!hit) continue;
        const std::string what =
            *companion == '\0'
                ? fmt::format("the trace database '{}'", db.path)
                : fmt::format("the {} file of the trace database '{}'", companion + 1, db.path);
        throw inputError(
            fmt::format("{} '{}' is {}; writing there would destroy it: pass another {}",
                        option.empty() ? "output file" : option, output, what,
                        option.empty() ? "output path" : option));
    }
}

}  // namespace glueprof
