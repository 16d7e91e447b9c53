// The confinement of a service's statements to its import folder (common/file_access.h,
// formats/user_files.h), against a real folder tree with symlinks.
#include "formats/user_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
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

TEST_F(ConfineTest, ATildeIsTheHomeFolder) {
  const char* old = std::getenv("HOME");
  const std::string saved = old ? old : "";
  ::setenv("HOME", (base_ / "outside").c_str(), 1);
  // Embedded: ~ and ~/... become $HOME; ~name and a ~ further in stay as written.
  EXPECT_EQ(ConfineUserPath("~/id.csv", "COPY TO").value(),
            (base_ / "outside" / "id.csv").string());
  EXPECT_EQ(ConfineUserPath("~", "LOAD FROM").value(), (base_ / "outside").string());
  EXPECT_EQ(ConfineUserPath("~x/id.csv", "LOAD FROM").value(), "~x/id.csv");
  EXPECT_EQ(ConfineUserPath("a/~/id.csv", "LOAD FROM").value(), "a/~/id.csv");
  // Confined: the home folder is outside the import folder like any other.
  Result<std::string> confined = Confine("~/secret.csv");
  ASSERT_FALSE(confined.ok());
  EXPECT_EQ(confined.status().code(), ErrorCode::kForbidden);
  if (old) {
    ::setenv("HOME", saved.c_str(), 1);
  } else {
    ::unsetenv("HOME");
  }
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

TEST_F(ConfineTest, RefusesLinksWhoseTargetIsMissing) {
  // A link to a file not there yet would have a write create its target, wherever it is.
  fs::create_symlink(base_ / "outside" / "pwned.csv", root_ / "dangling.csv");
  fs::create_symlink(base_ / "outside" / "absent", root_ / "dangling_dir");
  fs::create_symlink(root_ / "absent.csv", root_ / "dangling_in.csv");
  for (const char* path : {"dangling.csv", "dangling_dir/x.csv", "sub/../dangling.csv"}) {
    Result<std::string> confined = Confine(path);
    ASSERT_FALSE(confined.ok()) << path;
    EXPECT_EQ(confined.status().code(), ErrorCode::kForbidden) << path;
    EXPECT_NE(confined.status().message().find("outside the service's import folder"),
              std::string::npos);
  }
  // Inside, but still a link to nothing.
  Result<std::string> inside = Confine("dangling_in.csv");
  ASSERT_FALSE(inside.ok());
  EXPECT_EQ(inside.status().code(), ErrorCode::kInvalidRequest);
  EXPECT_NE(inside.status().message().find("symbolic link to something that does not exist"),
            std::string::npos);
  ScopedFileAccess scoped(&access_);
  EXPECT_FALSE(CheckUserFileToWrite(env::FileSystem::Default(), "dangling.csv", "COPY TO").ok());
  EXPECT_FALSE(fs::exists(base_ / "outside" / "pwned.csv"));
}

TEST_F(ConfineTest, OpensBeneathTheFolderWithoutFollowingLinks) {
  // A path checked before a link was put in its way: the file system refuses the link when it
  // opens the file, and nothing outside is read, created, renamed or removed.
  ScopedFileAccess scoped(&access_);
  env::FileSystem* fs = env::FileSystem::Default();
  const std::string escape = (root_ / "escape.csv").string();
  const std::string through_dir = (root_ / "escape_dir" / "secret.csv").string();
  for (const std::string& path : {escape, through_dir}) {
    Result<std::unique_ptr<env::RandomAccessFile>> read = fs->OpenForRead(path);
    ASSERT_FALSE(read.ok()) << path;
    EXPECT_NE(read.status().message().find("a symbolic link is in the way"), std::string::npos)
        << read.status().ToString();
    EXPECT_FALSE(fs->MapForRead(path).ok()) << path;
    EXPECT_FALSE(fs->OpenForWrite(path).ok()) << path;
  }
  fs::create_symlink(base_ / "outside" / "pwned.csv", root_ / "dangling.csv");
  EXPECT_FALSE(fs->OpenForWrite((root_ / "dangling.csv").string()).ok());
  EXPECT_FALSE(fs->CreateForWrite((root_ / "dangling.csv").string()).ok());
  EXPECT_FALSE(fs->OpenForWrite((root_ / "escape_dir" / "new.csv").string()).ok());
  EXPECT_FALSE(fs->Remove(through_dir).ok());
  EXPECT_FALSE(fs->Rename(through_dir, (root_ / "taken.csv").string()).ok());
  EXPECT_FALSE(fs->ListDir((root_ / "escape_dir").string()).ok());
  EXPECT_FALSE(fs::exists(base_ / "outside" / "pwned.csv"));
  EXPECT_FALSE(fs::exists(base_ / "outside" / "new.csv"));
  EXPECT_TRUE(fs::exists(base_ / "outside" / "secret.csv"));
  EXPECT_FALSE(fs::exists(root_ / "taken.csv"));
  // Plain files and folders beneath it work as before; a rename replaces a link, not its target.
  EXPECT_EQ(env::ReadFileToString(fs, (root_ / "in.csv").string()).value(), "1\n");
  ASSERT_TRUE(env::WriteStringToFile(fs, (root_ / "sub" / "new.csv").string(), "x", false).ok());
  EXPECT_FALSE(fs->CreateForWrite((root_ / "sub" / "new.csv").string()).ok());
  ASSERT_TRUE(fs->Rename((root_ / "sub" / "new.csv").string(), escape).ok());
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(root_ / "escape.csv")));
  EXPECT_EQ(env::ReadFileToString(fs, (base_ / "outside" / "secret.csv").string()).value(), "2\n");
  EXPECT_EQ(fs->ListDir((root_ / "sub").string()).value(), std::vector<std::string>{"alias.csv"});
  // Outside the folder the thread is not confined to, links are followed as ever.
  const FileAccess any;
  ScopedFileAccess embedded(&any);
  EXPECT_TRUE(fs->OpenForRead((root_ / "sub" / "alias.csv").string()).ok());
}

TEST(TemporaryFilePathTest, IsAHiddenNewNameInTheSameFolder) {
  const std::string first = TemporaryFilePath("/a/b/out.csv");
  EXPECT_EQ(first.rfind("/a/b/.out.csv.tmp-", 0), 0u) << first;
  EXPECT_NE(TemporaryFilePath("/a/b/out.csv"), first);
  EXPECT_EQ(TemporaryFilePath("out.csv").rfind(".out.csv.tmp-", 0), 0u);
}

}  // namespace
}  // namespace graphdb::formats
