// Collecting and applying fixes (fix/Apply.h): identical edits from two
// findings are made once, an edit that overlaps another finding's is refused
// with a reason and the file keeps the first, and insertions at one offset
// are all made, in the order of the findings.
//
// No lit test reaches the refusal from a kernel: the only replacing fix is
// scope-too-narrow's widening, which edits a line only when it spells the
// scope once, and two findings at one site are one finding after
// de-duplication (driver/Deduplicate.h), template instantiations included.
#include <gtest/gtest.h>

#include <string>

#include "fix/Apply.h"

using namespace fenceline;

namespace {

constexpr std::string_view kLine = R"(    asm volatile("ld.acquire.cta.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");)";

report::Edit replaceScope(std::string text) {
  report::Edit edit;
  edit.file = "/src/poll.cu";
  edit.line = 17;
  edit.offset = kLine.find("cta");
  edit.length = 3;
  edit.column = static_cast<uint32_t>(edit.offset) + 1;
  edit.text = std::move(text);
  return edit;
}

report::Edit insertAt(size_t offset, std::string text) {
  report::Edit edit;
  edit.file = "/src/poll.cu";
  edit.line = 17;
  edit.offset = offset;
  edit.text = std::move(text);
  return edit;
}

report::Diagnostic finding(std::string check, report::Edit edit) {
  report::Diagnostic d;
  d.check = std::move(check);
  d.edits.push_back(std::move(edit));
  return d;
}

}  // namespace

TEST(FixApply, OverlappingEditIsRefusedWithAReason) {
  const report::Diagnostic findings[] = {finding("scope-too-narrow", replaceScope("gpu")),
                                         finding("scope-too-narrow", replaceScope("sys"))};
  const fix::FixSet fixes = fix::collectFixes(findings);
  EXPECT_EQ(fixes.fixed, (std::vector<bool>{true, false}));
  ASSERT_EQ(fixes.refusals.size(), 1u);
  EXPECT_EQ(fixes.refusals[0],
            "/src/poll.cu:17: fix of [scope-too-narrow] not applied: it overlaps another fix at line 17; run --fix "
            "again");
  ASSERT_EQ(fixes.editCount(), 1u);
  // The file gets the first finding's edit only: one well-formed instruction.
  EXPECT_EQ(fix::applyEdits(std::string(kLine), fixes.editsByFile.at("/src/poll.cu")),
            R"(    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");)");
}

TEST(FixApply, InsertionInsideAReplacedRangeIsRefused) {
  const size_t inside = kLine.find("cta") + 1;
  const report::Diagnostic findings[] = {finding("scope-too-narrow", replaceScope("gpu")),
                                         finding("proxy-war", insertAt(inside, "x"))};
  const fix::FixSet fixes = fix::collectFixes(findings);
  EXPECT_EQ(fixes.fixed, (std::vector<bool>{true, false}));
  EXPECT_EQ(fixes.refusals.size(), 1u);
}

TEST(FixApply, IdenticalEditsAreMadeOnceAndInsertionsAtOneOffsetInOrder) {
  const report::Diagnostic findings[] = {finding("scope-too-narrow", replaceScope("gpu")),
                                         finding("scope-too-narrow", replaceScope("gpu")),
                                         finding("proxy-war", insertAt(0, "a\n")),
                                         finding("release-missing", insertAt(0, "b\n"))};
  const fix::FixSet fixes = fix::collectFixes(findings);
  EXPECT_EQ(fixes.fixed, (std::vector<bool>{true, true, true, true}));
  EXPECT_TRUE(fixes.refusals.empty());
  EXPECT_EQ(fixes.editCount(), 3u);
  const std::string fixed = fix::applyEdits(std::string(kLine), fixes.editsByFile.at("/src/poll.cu"));
  EXPECT_TRUE(fixed.starts_with("a\nb\n    asm volatile(\"ld.acquire.gpu.global")) << fixed;
}

// A helper's wider-scope twin is a copy of the helper's lines (scope-too-narrow); a line another
// finding inserts into the helper (a proxy fence before its arrive) goes into the copy too, at the
// same line of the copy, so that the call moved to the twin keeps it. An edit that changes the
// copied lines other than by whole-line insertion leaves the copy as planned.
TEST(FixApply, TwinCopyTakesLinesInsertedIntoTheHelper) {
  // Lines 10-13 of /src/k.cu: the helper, at byte offsets 100..160.
  const std::string helper =
      "__device__ void arrive_masked(uint64_t* bar) {\n  const uint32_t a = smem(bar);\n"
      "  asm volatile(\"mbarrier.arrive.shared::cluster.b64 _, [%0];\" ::\"r\"(a));\n}\n";
  report::Edit twin;
  twin.file = "/src/k.cu";
  twin.line = 14;
  twin.column = 1;
  twin.offset = 160;
  twin.text = helper;
  twin.copiedLine = 10;
  twin.copiedOffset = 100;
  twin.copiedLength = 60;
  report::Edit fence;  // before line 12 (the asm), inside the helper
  fence.file = "/src/k.cu";
  fence.line = 12;
  fence.column = 1;
  fence.offset = 140;
  fence.text = "  fence();\n";
  report::Edit elsewhere = fence;  // outside the helper: not copied
  elsewhere.line = 30;
  elsewhere.offset = 400;
  elsewhere.text = "  other();\n";
  std::vector<report::Diagnostic> findings = {finding("proxy-war", fence), finding("proxy-war", elsewhere),
                                              finding("scope-too-narrow", twin)};
  fix::mergeCopiedLines(findings);
  EXPECT_EQ(findings[2].edits[0].text,
            "__device__ void arrive_masked(uint64_t* bar) {\n  const uint32_t a = smem(bar);\n  fence();\n"
            "  asm volatile(\"mbarrier.arrive.shared::cluster.b64 _, [%0];\" ::\"r\"(a));\n}\n");
  // A replacement inside the copied lines: the copy stays as planned.
  report::Edit replace = fence;
  replace.length = 3;
  replace.column = 5;
  std::vector<report::Diagnostic> replaced = {finding("scope-too-narrow", replace), finding("scope-too-narrow", twin)};
  fix::mergeCopiedLines(replaced);
  EXPECT_EQ(replaced[1].edits[0].text, helper);
}
