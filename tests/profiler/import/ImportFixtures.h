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

// `text` as one gzip member (RFC 1952). Members one after another are one stream to gzread: a
// member of 1 MiB written 1024 times is 1 GiB of text in about 1 MB of file.
inline std::string gzipMember(const std::string& text) {
    z_stream z{};
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2 failed");
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
    return out;
}

}  // namespace glueprof::testing
