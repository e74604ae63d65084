// XLA dump file names as xla/service/dump.cc and hlo_pass_pipeline.cc write them
// (tools/common/xla_dump_files.h), and a directory of them grouped per module.
#include "tools/common/xla_dump_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace hloscope {
namespace {

DumpFileName Classify(std::string_view name) {
  std::optional<DumpFileName> f = ClassifyDumpFileName(name);
  EXPECT_TRUE(f.has_value()) << name;
  return f.value_or(DumpFileName{});
}

TEST(XlaDumpFileNameTest, BeforeOptimizations) {
  DumpFileName f = Classify("module_0016.jit_train_step.before_optimizations.txt");
  EXPECT_EQ(f.kind, DumpFileKind::kBeforeOptimizations);
  EXPECT_EQ(f.format, DumpFormat::kText);
  EXPECT_EQ(f.module_id, 16);
  EXPECT_EQ(f.module_name, "jit_train_step");
  EXPECT_EQ(f.timestamp, "");
}

TEST(XlaDumpFileNameTest, AfterOptimizationsWithGpuPlatformHoldingADot) {
  DumpFileName f = Classify("module_0016.jit_train_step.sm_9.0_gpu_after_optimizations.txt");
  EXPECT_EQ(f.kind, DumpFileKind::kAfterOptimizations);
  EXPECT_EQ(f.module_name, "jit_train_step");
  EXPECT_EQ(f.platform, "sm_9.0_gpu");
}

TEST(XlaDumpFileNameTest, AfterOptimizationsOnHopperWithArchitectureSuffix) {
  // sm_90a targets (H100/H200): the platform is "sm_9.0a_gpu", and the module name stays whole.
  DumpFileName f =
      Classify("module_51630.jit_pipelined_train_step_remat.sm_9.0a_gpu_after_optimizations.txt");
  EXPECT_EQ(f.kind, DumpFileKind::kAfterOptimizations);
  EXPECT_EQ(f.module_name, "jit_pipelined_train_step_remat");
  EXPECT_EQ(f.platform, "sm_9.0a_gpu");
  DumpFileName report = Classify(
      "module_5967.jit_pipelined_train_step.sm_9.0a_gpu_after_optimizations-memory-usage-report."
      "txt");
  EXPECT_EQ(report.module_name, "jit_pipelined_train_step");
  EXPECT_EQ(report.platform, "sm_9.0a_gpu");
}

TEST(XlaDumpFileNameTest, AfterOptimizationsOnCpuAndWithoutPlatform) {
  DumpFileName cpu = Classify("module_0873.jit__gn_fit_kernel.cpu_after_optimizations.txt");
  EXPECT_EQ(cpu.kind, DumpFileKind::kAfterOptimizations);
  EXPECT_EQ(cpu.module_name, "jit__gn_fit_kernel");
  EXPECT_EQ(cpu.platform, "cpu");
  DumpFileName plain = Classify("module_0001.f.after_optimizations.txt");
  EXPECT_EQ(plain.kind, DumpFileKind::kAfterOptimizations);
  EXPECT_EQ(plain.module_name, "f");
  EXPECT_EQ(plain.platform, "");
}

TEST(XlaDumpFileNameTest, ModuleNameWithDots) {
  DumpFileName f = Classify("module_0010.SyncTensorsGraph.636.cpu_after_optimizations.txt");
  EXPECT_EQ(f.kind, DumpFileKind::kAfterOptimizations);
  EXPECT_EQ(f.module_name, "SyncTensorsGraph.636");
  EXPECT_EQ(f.platform, "cpu");
}

TEST(XlaDumpFileNameTest, NameLeftOutWhenTooLong) {
  DumpFileName f = Classify("module_0042.sm_8.0_gpu_after_optimizations.txt");
  EXPECT_EQ(f.kind, DumpFileKind::kAfterOptimizations);
  EXPECT_EQ(f.module_id, 42);
  EXPECT_EQ(f.module_name, "");
  EXPECT_EQ(f.platform, "sm_8.0_gpu");
}

TEST(XlaDumpFileNameTest, BufferAssignmentAndMemoryUsageReport) {
  DumpFileName ba =
      Classify("module_0016.jit_train_step.sm_9.0_gpu_after_optimizations-buffer-assignment.txt");
  EXPECT_EQ(ba.kind, DumpFileKind::kBufferAssignment);
  EXPECT_EQ(ba.module_name, "jit_train_step");
  EXPECT_EQ(ba.platform, "sm_9.0_gpu");
  DumpFileName mr = Classify(
      "module_1201.jit_single_integral.sm_8.9_gpu_after_optimizations-memory-usage-report.txt");
  EXPECT_EQ(mr.kind, DumpFileKind::kMemoryUsageReport);
  EXPECT_EQ(mr.module_id, 1201);
  EXPECT_EQ(mr.module_name, "jit_single_integral");
}

TEST(XlaDumpFileNameTest, BufferAssignmentAnalysisFilesAreNotRead) {
  for (std::string_view name :
       {"module_0016.f.sm_9.0_gpu_after_optimizations-buffer-assignment-values.txt",
        "module_0016.f.sm_9.0_gpu_after_optimizations-live-range.txt",
        "module_0016.f.sm_9.0_gpu_after_optimizations-memory-usage-report.pb",
        "module_0016.f.sm_9.0_gpu_after_optimizations-memory-usage-report.pb.gz"}) {
    DumpFileName f = Classify(name);
    EXPECT_EQ(f.kind, DumpFileKind::kOtherModuleFile) << name;
    EXPECT_EQ(f.module_name, "f") << name;
  }
}

TEST(XlaDumpFileNameTest, ProtoForms) {
  DumpFileName pb =
      Classify("module_0040.pjit__wrapped_step_fn.sm_8.0_gpu_after_optimizations.hlo.pb");
  EXPECT_EQ(pb.kind, DumpFileKind::kAfterOptimizations);
  EXPECT_EQ(pb.format, DumpFormat::kProto);
  EXPECT_EQ(pb.module_name, "pjit__wrapped_step_fn");
  DumpFileName gz = Classify("module_0003.f.before_optimizations.hlo.pb.gz");
  EXPECT_EQ(gz.kind, DumpFileKind::kBeforeOptimizations);
  EXPECT_EQ(gz.format, DumpFormat::kCompressedProto);
}

TEST(XlaDumpFileNameTest, PassDump) {
  DumpFileName f =
      Classify("module_0001.jit_f.0012.gpu-ir-emit-prepare.after_copy-insertion.before_dce.txt");
  EXPECT_EQ(f.kind, DumpFileKind::kPassDump);
  EXPECT_EQ(f.module_id, 1);
  EXPECT_EQ(f.module_name, "jit_f");
  EXPECT_EQ(f.step, 12);
  EXPECT_EQ(f.pipeline, "gpu-ir-emit-prepare");
  EXPECT_EQ(f.pass, "copy-insertion");
  EXPECT_EQ(f.next_pass, "dce");
  DumpFileName start =
      Classify("module_0001.jit_f.0000.optimization.after_pipeline-start.before_algsimp.hlo.pb");
  EXPECT_EQ(start.kind, DumpFileKind::kPassDump);
  EXPECT_EQ(start.format, DumpFormat::kProto);
  EXPECT_EQ(start.pass, "pipeline-start");
  EXPECT_EQ(start.next_pass, "algsimp");
  DumpFileName end = Classify("module_0001.0045.spmd.after_dce.before_pipeline-end.txt");
  EXPECT_EQ(end.kind, DumpFileKind::kPassDump);
  EXPECT_EQ(end.module_name, "");
  EXPECT_EQ(end.step, 45);
  EXPECT_EQ(end.next_pass, "pipeline-end");
}

// DumpHloModuleDuringPassIfEnabled's STEP.PASS.STEP_NAME: a snapshot inside a pass, not read.
TEST(XlaDumpFileNameTest, DuringPassDumpIsNotRead) {
  DumpFileName f = Classify("module_0001.jit_f.0004.spmd-partitioning.before_sharding.txt");
  EXPECT_EQ(f.kind, DumpFileKind::kOtherModuleFile);
  EXPECT_EQ(f.what, "jit_f.0004.spmd-partitioning.before_sharding.txt");
}

TEST(XlaDumpFileNameTest, TimestampPrefix) {
  DumpFileName f = Classify("1700000000123456.module_0016.jit_train_step.before_optimizations.txt");
  EXPECT_EQ(f.kind, DumpFileKind::kBeforeOptimizations);
  EXPECT_EQ(f.timestamp, "1700000000123456");
  EXPECT_EQ(f.module_id, 16);
}

TEST(XlaDumpFileNameTest, StepsAndIdsPastFourDigits) {
  DumpFileName f = Classify("module_12345.f.10001.p.after_a.before_b.txt");
  EXPECT_EQ(f.module_id, 12345);
  EXPECT_EQ(f.step, 10001);
}

TEST(XlaDumpFileNameTest, OtherFilesOfAModule) {
  for (std::string_view name :
       {"module_0016.jit_train_step.ir-no-opt.ll", "module_0016.jit_train_step.ptx",
        "module_0016.jit_train_step.thunk_sequence.txt.pb",
        "module_0016.jit_train_step.sm_9.0_gpu_after_optimizations.dot",
        "module_0016.jit_train_step.sm_9.0_gpu_after_optimizations.html",
        "module_0016.metadata.textproto", "module_0016.jit_train_step.autotune_results.pbtxt"}) {
    DumpFileName f = Classify(name);
    EXPECT_EQ(f.kind, DumpFileKind::kOtherModuleFile) << name;
    EXPECT_EQ(f.module_id, 16) << name;
    EXPECT_FALSE(f.what.empty()) << name;
  }
}

TEST(XlaDumpFileNameTest, NamesXlaDoesNotWrite) {
  for (std::string_view name : {"README", "notes.txt", "module_12.f.before_optimizations.txt",
                                "x.module_0001.f.before_optimizations.txt", "module_.txt",
                                "my_module_0001.f.before_optimizations.txt"}) {
    EXPECT_FALSE(ClassifyDumpFileName(name).has_value()) << name;
  }
}

class XlaDumpDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("xla_dump_files_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Touch(const std::string& relative) {
    std::filesystem::path p = dir_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << "x";
  }
  std::filesystem::path dir_;
};

TEST_F(XlaDumpDirectoryTest, GroupsFilesPerModule) {
  Touch("module_0001.f.before_optimizations.txt");
  Touch("module_0001.f.cpu_after_optimizations.txt");
  Touch("module_0001.f.cpu_after_optimizations.hlo.pb");
  Touch("module_0001.f.cpu_after_optimizations-buffer-assignment.txt");
  Touch("module_0001.f.cpu_after_optimizations-memory-usage-report.txt");
  Touch("module_0001.f.0002.p.after_b.before_pipeline-end.txt");
  Touch("module_0001.f.0000.p.after_pipeline-start.before_a.txt");
  Touch("module_0001.f.0001.p.after_a.before_b.hlo.pb");
  Touch("module_0001.f.0001.p.after_a.before_b.txt");
  Touch("module_0001.f.ir-no-opt.ll");
  Touch("module_0002.g.cpu_after_optimizations.hlo.pb");
  Touch("README");
  absl::StatusOr<DumpDirectory> d = ScanDumpDirectory(dir_.string());
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->modules.size(), 2u);
  const DumpModule& f = d->modules[0];
  EXPECT_EQ(f.id, 1);
  EXPECT_EQ(f.name, "f");
  ASSERT_TRUE(f.before && f.after && f.buffer_assignment && f.memory_usage_report);
  EXPECT_EQ(f.after->name.format, DumpFormat::kText);  // text over the proto beside it
  ASSERT_EQ(f.passes.size(), 3u);
  EXPECT_EQ(f.passes[0].name.pass, "pipeline-start");
  EXPECT_EQ(f.passes[1].name.pass, "a");
  EXPECT_EQ(f.passes[1].name.format, DumpFormat::kText);
  EXPECT_EQ(f.passes[2].name.pass, "b");
  EXPECT_EQ(f.other_files, 1);
  EXPECT_EQ(f.origin, "");
  const DumpModule& g = d->modules[1];
  ASSERT_TRUE(g.after.has_value());
  EXPECT_EQ(g.after->name.format, DumpFormat::kProto);  // a proto stands in where it is alone
  EXPECT_EQ(d->other_module_files, 1);
  EXPECT_EQ(d->unrecognized, std::vector<std::string>{"README"});
  EXPECT_TRUE(d->collisions.empty());
}

TEST_F(XlaDumpDirectoryTest, SeveralProcessesAndRecompilations) {
  Touch("rank0/module_0002.f.before_optimizations.txt");
  Touch("rank1/module_0002.f.before_optimizations.txt");
  Touch("1700000000000001.module_0003.f.before_optimizations.txt");
  Touch("1700000000000002.module_0003.f.before_optimizations.txt");
  absl::StatusOr<DumpDirectory> d = ScanDumpDirectory(dir_.string());
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->modules.size(), 4u);
  std::vector<std::string> origins;
  for (const DumpModule& m : d->modules) origins.push_back(m.origin);
  // By id, then name, source and timestamp.
  EXPECT_EQ(origins,
            (std::vector<std::string>{"rank0", "rank1", "@1700000000000001", "@1700000000000002"}));
  EXPECT_EQ(d->modules[0].before->relative, "rank0/module_0002.f.before_optimizations.txt");
  EXPECT_EQ(d->collisions,
            (std::vector<std::string>{
                "module 2 f was dumped 2 times (rank0, rank1)",
                "module 3 f was dumped 2 times (@1700000000000001, @1700000000000002)"}));
  EXPECT_EQ(d->recompiled, std::vector<std::string>{"f was compiled 2 times (ids 2, 3)"});
}

TEST_F(XlaDumpDirectoryTest, ANonFileNamedAsAModuleFileIsKeptSoThatReadingItFails) {
  std::filesystem::create_directories(dir_ / "module_0001.f.before_optimizations.txt");
  absl::StatusOr<DumpDirectory> d = ScanDumpDirectory(dir_.string());
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->modules.size(), 1u);
  ASSERT_TRUE(d->modules[0].before.has_value());
  EXPECT_TRUE(std::filesystem::is_directory(d->modules[0].before->path));
}

TEST_F(XlaDumpDirectoryTest, NothingRecognizableSaysWhatItLookedFor) {
  Touch("README");
  Touch("module_0001.f.ptx");
  absl::StatusOr<DumpDirectory> d = ScanDumpDirectory(dir_.string());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(d.status().message().find("it has 1 file not named as XLA names its dumps and 1 XLA "
                                      "file that holds no module"),
            std::string::npos)
      << d.status();
  EXPECT_NE(d.status().message().find("looked for module_NNNN.NAME.before_optimizations.txt"),
            std::string::npos)
      << d.status();
}

TEST_F(XlaDumpDirectoryTest, EmptyAndMissingDirectories) {
  absl::StatusOr<DumpDirectory> empty = ScanDumpDirectory(dir_.string());
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("it is empty"), std::string::npos) << empty.status();
  absl::StatusOr<DumpDirectory> missing = ScanDumpDirectory((dir_ / "missing").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(missing.status().message().find("No such file or directory"), std::string::npos)
      << missing.status();
}

}  // namespace
}  // namespace hloscope
