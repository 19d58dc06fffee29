#pragma once
// A test fixture with a directory of its own under the system's temporary directory, named after
// the prefix and the test, emptied before and removed after each test; write() puts a file in it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace glueprof::testing {

class ScratchDirectoryTest : public ::testing::Test {
  protected:
    explicit ScratchDirectoryTest(std::string prefix) : m_prefix(std::move(prefix)) {}
    void SetUp() override {
        m_dir = std::filesystem::temp_directory_path() /
                (m_prefix + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }
    // `bytes` as the file `name` in the directory; its path.
    std::string write(const std::string& name, const std::string& bytes) const {
        const std::string path = (m_dir / name).string();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }
    std::filesystem::path m_dir;

  private:
    std::string m_prefix;
};

}  // namespace glueprof::testing
