#pragma once
// The real traces of tests/fixtures/import: a path to each, the gzip'd Nsight export unpacked once
// into the temporary directory.
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace glueprof::testing {

inline std::string importFixture(const std::string& name) {
    const std::string stored = std::string(GLUEPROF_SOURCE_DIR) + "/tests/fixtures/import/" + name;
    const std::string suffix = ".sqlite";
    if (name.size() < suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix))
        return stored;
    const std::filesystem::path unpacked =
        std::filesystem::temp_directory_path() /
        ("glueprof-fixture-" + std::filesystem::path(name).filename().string());
    if (!std::filesystem::exists(unpacked)) {
        gzFile in = gzopen((stored + ".gz").c_str(), "rb");
        if (in == nullptr) throw std::runtime_error("missing fixture " + stored + ".gz");
        const std::string partial = unpacked.string() + ".part";
        std::ofstream out(partial, std::ios::binary);
        char block[1 << 16];
        int n = 0;
        while ((n = gzread(in, block, sizeof block)) > 0) out.write(block, n);
        gzclose(in);
        out.close();
        std::filesystem::rename(partial, unpacked);  // whole or not at all (tests run in parallel)
    }
    return unpacked.string();
}

// A file's bytes, gunzip'd (zlib passes a plain file through).
inline std::string gunzip(const std::string& path) {
    gzFile file = gzopen(path.c_str(), "rb");
    if (file == nullptr) throw std::runtime_error("cannot read " + path);
    std::string out;
    char block[1 << 16];
    int n = 0;
    while ((n = gzread(file, block, sizeof block)) > 0)
        out.append(block, static_cast<std::size_t>(n));
    gzclose(file);
    return out;
}

}  // namespace glueprof::testing
