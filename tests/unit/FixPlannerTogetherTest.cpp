// A fix request's `together` (report/Diagnostic.h): the further requests a fix
// needs as well (proxy-war's program-order finding that stands for several
// copies, a fence before each): every one makes its edit, or the fix makes
// none; two that come to the same line make one edit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fix/Planner.h"

using namespace fenceline;

namespace {

class PlannerTogether : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("fenceline-together-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    file_ = (dir_ / "k.cu").string();
    std::ofstream(file_) << "__global__ void k(float* p) {\n"
                            "  p[0] = 1.f;\n"
                            "  p[1] = 2.f;\n"
                            "  p[2] = 3.f;\n"
                            "}\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  report::FixRequest before(uint32_t line) const {
    report::FixRequest request;
    request.placement = report::FixPlacement::BeforeStatement;
    request.fence = report::FenceToInsert::ProxyAsyncShared;
    request.anchor.frames.push_back({file_, line, 3, "k"});
    return request;
  }

  report::Diagnostic plan(report::FixRequest request) {
    report::Diagnostic d;
    d.check = "proxy-war";
    d.fixRequest = std::move(request);
    fix::SourceCache sources;
    fix::planFix(d, sources, fix::FixSettings{});
    return d;
  }

  std::filesystem::path dir_;
  std::string file_;
};

TEST_F(PlannerTogether, EveryRequestMakesItsEdit) {
  auto request = before(2);
  request.together.push_back(before(4));
  auto d = plan(request);
  ASSERT_EQ(d.edits.size(), 2u);
  EXPECT_EQ(d.edits[0].line, 2u);
  EXPECT_EQ(d.edits[1].line, 4u);
  EXPECT_EQ(d.noEditReason, "");
}

TEST_F(PlannerTogether, OneLineOneEdit) {
  auto request = before(3);
  request.together.push_back(before(3));
  auto d = plan(request);
  ASSERT_EQ(d.edits.size(), 1u);
  EXPECT_EQ(d.edits[0].line, 3u);
}

TEST_F(PlannerTogether, NoneWhenOneHasNoEdit) {
  auto request = before(2);
  auto without = before(40);  // past the end of the file
  request.together.push_back(without);
  auto d = plan(request);
  EXPECT_TRUE(d.edits.empty());
  EXPECT_NE(d.noEditReason.find("line 40 is not in"), std::string::npos) << d.noEditReason;
}

}  // namespace
