// The confinement of a service's statements to its import folder (common/file_access.h,
// formats/user_files.h), against a real folder tree with symlinks.
#include "formats/user_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/file_access.h"

namespace graphdb::formats {
namespace {

namespace fs = std::filesystem;

class ConfineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::canonical(fs::temp_directory_path()) /
            ("graphdb-confine-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    root_ = base_ / "import";
    fs::create_directories(root_ / "sub");
    fs::create_directories(base_ / "outside");
    std::ofstream(root_ / "in.csv") << "1\n";
    std::ofstream(base_ / "outside" / "secret.csv") << "2\n";
    fs::create_symlink(base_ / "outside" / "secret.csv", root_ / "escape.csv");
    fs::create_symlink(base_ / "outside", root_ / "escape_dir");
    fs::create_symlink(root_ / "in.csv", root_ / "sub" / "alias.csv");
    access_.mode = FileAccess::Mode::kWithin;
    access_.root = root_.string();
  }
  void TearDown() override { fs::remove_all(base_); }

  Result<std::string> Confine(const std::string& path) {
    ScopedFileAccess scoped(&access_);
    return ConfineUserPath(path, "LOAD FROM");
  }

  fs::path base_;
  fs::path root_;
  FileAccess access_;
};

TEST_F(ConfineTest, ResolvesPathsInsideTheFolder) {
  EXPECT_EQ(Confine("in.csv").value(), (root_ / "in.csv").string());
  EXPECT_EQ(Confine("./sub/../in.csv").value(), (root_ / "in.csv").string());
  EXPECT_EQ(Confine((root_ / "in.csv").string()).value(), (root_ / "in.csv").string());
  // A symlink that stays inside resolves to its target.
  EXPECT_EQ(Confine("sub/alias.csv").value(), (root_ / "in.csv").string());
  // Files still to be written: the existing folders resolved, the rest as given.
  EXPECT_EQ(Confine("sub/new.csv").value(), (root_ / "sub" / "new.csv").string());
  EXPECT_EQ(Confine("missing/deeper/new.csv").value(),
            (root_ / "missing" / "deeper" / "new.csv").string());
}

TEST_F(ConfineTest, RefusesPathsThatResolveOutside) {
  for (const std::string& path : std::vector<std::string>{
           "../outside/secret.csv", "sub/../../outside/secret.csv", "escape.csv",
        "escape_dir/secret.csv", "escape_dir/new.csv", "/etc/passwd",
        (base_ / "outside" / "secret.csv").string(), root_.string() + "-sibling/x.csv",
        "missing/../../outside/x.csv", "missing/../escape_dir/new.csv",
        "sub/../escape_dir/../escape_dir/new.csv"}) {
    Result<std::string> confined = Confine(path);
    ASSERT_FALSE(confined.ok()) << path;
    EXPECT_EQ(confined.status().code(), ErrorCode::kForbidden) << path;
    EXPECT_NE(confined.status().message().find("outside the service's import folder"),
              std::string::npos);
  }
}

TEST_F(ConfineTest, RefusesEveryFileWhenFilesAreOff) {
  FileAccess none;
  none.mode = FileAccess::Mode::kNone;
  ScopedFileAccess scoped(&none);
  Result<std::string> confined = ConfineUserPath((root_ / "in.csv").string(), "COPY TO");
  ASSERT_FALSE(confined.ok());
  EXPECT_EQ(confined.status().code(), ErrorCode::kForbidden);
  EXPECT_NE(confined.status().message().find("--import-dir"), std::string::npos);
}

TEST_F(ConfineTest, LeavesEmbeddedPathsAsGiven) {
  // No scope: the embedded API's statements open what they name.
  EXPECT_EQ(ConfineUserPath("../anything.csv", "LOAD FROM").value(), "../anything.csv");
  {
    ScopedFileAccess scoped(&access_);
    EXPECT_FALSE(ConfineUserPath("../anything.csv", "LOAD FROM").ok());
    ScopedFileAccess unchanged(nullptr);  // null leaves the policy as it is
    EXPECT_FALSE(ConfineUserPath("../anything.csv", "LOAD FROM").ok());
  }
  EXPECT_EQ(ConfineUserPath("../anything.csv", "LOAD FROM").value(), "../anything.csv");
}

TEST_F(ConfineTest, CheckedReadsAndWritesOpenTheConfinedPath) {
  ScopedFileAccess scoped(&access_);
  env::FileSystem* fs = env::FileSystem::Default();
  EXPECT_EQ(CheckUserFileToRead(fs, "sub/alias.csv", "LOAD FROM").value(),
            (root_ / "in.csv").string());
  EXPECT_EQ(CheckUserFileToRead(fs, "escape.csv", "LOAD FROM").status().code(),
            ErrorCode::kForbidden);
  EXPECT_EQ(CheckUserFileToRead(fs, "absent.csv", "LOAD FROM").status().code(),
            ErrorCode::kInvalidRequest);
  EXPECT_EQ(CheckUserFileToWrite(fs, "out.csv", "COPY TO").value(), (root_ / "out.csv").string());
  EXPECT_EQ(CheckUserFileToWrite(fs, "escape_dir/out.csv", "COPY TO").status().code(),
            ErrorCode::kForbidden);
  EXPECT_FALSE(fs::exists(base_ / "outside" / "out.csv"));
}

}  // namespace
}  // namespace graphdb::formats
