#pragma once
// A shared flock(2) on the directory a trace database really is in (a symlink followed), held by
// every TraceWriter from before it opens the file until it is destroyed or abandoned. A writer that
// wants to remove a database it created (an import that failed before storing anything) may do so
// only under the exclusive lock: then no other writer, in any process, has a database of that
// directory open or is about to open one, so no process can be writing into a file that is about to
// lose its name.
#include <chrono>
#include <string>

namespace glueprof {

class WriterDirectoryLock {
  public:
    // Takes the shared lock on DATABASE_PATH's directory, waiting while a remover holds it
    // exclusively (a moment; at most kWaitLimit). Where the directory cannot be opened or locked
    // (a file system without flock, a lock held longer), the lock is not held and tryExclusive()
    // always fails.
    explicit WriterDirectoryLock(const std::string& databasePath);
    ~WriterDirectoryLock();
    WriterDirectoryLock(const WriterDirectoryLock&) = delete;
    WriterDirectoryLock& operator=(const WriterDirectoryLock&) = delete;

    // Converts the shared lock to an exclusive one without waiting: true when no other writer
    // holds the directory (this process's other writers included).
    bool tryExclusive();
    // Gives the lock up (a closed writer need not hold it). Idempotent.
    void release();

    static constexpr std::chrono::seconds kWaitLimit{10};

  private:
    int m_fd = -1;
    bool m_held = false;
};

}  // namespace glueprof
