// fenceline: the command-line driver. `fenceline check` reads top to bottom as
// the pipeline it runs: select checks, collect inputs, and for each input get
// PTX, parse it, build the program model and run the checks; then one report
// per source site, suppressions, and either --verify or a renderer.
// `list-checks` and `explain` read the same check table.
#include <cxxabi.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "checks/CheckTable.h"
#include "driver/CheckModule.h"
#include "driver/CheckSelection.h"
#include "driver/Compiler.h"
#include "driver/Deduplicate.h"
#include "driver/Explain.h"
#include "driver/Inputs.h"
#include "driver/Options.h"
#include "driver/Parallel.h"
#include "driver/Suppressions.h"
#include "driver/Verify.h"
#include "model/Program.h"
#include "ptx/Parser.h"
#include "report/Json.h"
#include "report/Sarif.h"
#include "report/SourceText.h"
#include "report/Text.h"

namespace fenceline::driver {

namespace {

namespace fs = std::filesystem;
using Checks = std::vector<const checks::CheckInfo*>;

// What checking one input produced; filled by a worker thread.
struct InputResult {
  std::vector<report::Diagnostic> diagnostics;
  std::vector<std::string> sourceFiles;  // where --verify looks for `// expect:`
  std::string error;                     // an input error, printed as is
  std::string warning;                   // something skipped, printed as is
  bool checked = false;
  size_t functions = 0, instructions = 0;
};

// A .ptx input: a regular file (not a FIFO or a device behind a .ptx name),
// under 2 GiB (the front end's text offsets are 32-bit).
std::string readFile(const std::string& path, std::string& error) {
  std::string why;
  auto text = report::readRegularFile(path, size_t{2} << 30, why);
  if (!text) error = fmt::format("{}: error: cannot read file: {}", path, why);
  return text ? std::move(*text) : std::string();
}

// Kernel names as users wrote them: nvcc's PTX names are Itanium-mangled.
std::string demangle(const std::string& name) {
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string result = status == 0 && text ? text : name;
  std::free(text);
  return result;
}

std::string formatParseError(const ptx::ParseError& e) {
  std::string text = fmt::format("{}:{}:{}: error: {}\n", e.file, e.line, e.column, e.message);
  if (!e.excerpt.empty()) text += e.excerpt + (e.excerpt.back() == '\n' ? "" : "\n");
  return text;
}

// The architecture for `nvcc -ptx`: --arch when given, else the newest one the
// build's compile command names, else the default.
std::string archFor(const Input& input, const CheckOptions& options) {
  if (options.archGiven || input.archs.empty()) return options.arch;
  auto number = [](const std::string& arch) {
    size_t digit = arch.find_first_of("0123456789");
    return digit == std::string::npos ? 0 : std::atoi(arch.c_str() + digit);
  };
  std::string best;
  for (const auto& arch : input.archs)
    if (number(arch) > 0 && (best.empty() || number(arch) > number(best))) best = arch;
  return best.empty() ? options.arch : best;
}

// Sources of a module that may carry suppressions or expectations: the files
// its .loc directives name, except the toolkit's and the system's headers.
std::vector<std::string> projectSources(const ptx::Module& module, const std::string& toolkitRoot) {
  std::vector<std::string> files;
  for (const auto& file : module.files) {
    const std::string& path = file.path;
    if (path.starts_with("/usr/include/") || path.starts_with("/usr/lib/") ||
        (!toolkitRoot.empty() && path.starts_with(toolkitRoot + "/")))
      continue;
    files.push_back(path);
  }
  return files;
}

InputResult checkInput(const Input& input, const Checks& selected, const CheckOptions& options,
                       const std::string& toolkitRoot) {
  InputResult result;
  // Get PTX: read it, or have nvcc produce it from the .cu file.
  std::string ptxText, ptxPath = input.path;
  if (input.kind == Input::Kind::Ptx) {
    ptxText = readFile(input.path, result.error);
    if (!result.error.empty()) return result;
  } else {
    CompileRequest request{options.nvcc, input.path, archFor(input, options), input.flags, options.verbose};
    request.flags.insert(request.flags.end(), options.nvccFlags.begin(), options.nvccFlags.end());
    CompileResult compiled = compileToPtx(request);
    if (!compiled.ok) {
      result.error = fmt::format("{}: error: {}\n", input.path, compiled.error);
      return result;
    }
    ptxText = std::move(compiled.ptx);
    ptxPath = input.path + ".ptx";  // names the generated PTX in messages; never written
    result.sourceFiles.push_back(input.path);
  }
  try {
    // Parse: PTX text to syntax tree (malformed input throws ParseError).
    ptx::Module module = ptx::parseModule(ptxText, ptxPath);
    std::string().swap(ptxText);  // the tree holds copies: free the text before the models
    // Model and check: per function, the model (CFG, dominators, loops,
    // values, thread roles), then each selected check; then drop the model.
    ModuleCheck checked = checkModule(module, selected, options.limits);
    result.diagnostics = std::move(checked.diagnostics);
    for (const auto& error : checked.limitErrors) result.error += error + "\n";
    for (auto& diagnostic : result.diagnostics) diagnostic.function = demangle(diagnostic.function);
    auto sources = projectSources(module, toolkitRoot);
    result.sourceFiles.insert(result.sourceFiles.end(), sources.begin(), sources.end());
    result.functions = checked.functions;
    result.instructions = checked.instructions;
    result.checked = true;
    if (checked.functions == 0 && checked.limitErrors.empty())
      result.warning = fmt::format("{}: warning: no function with a body: nothing to check\n", ptxPath);
  } catch (const ptx::ParseError& e) {
    result.error = formatParseError(e);
    if (input.kind == Input::Kind::Cuda)
      result.error += fmt::format("note: the PTX was generated by nvcc from {} (-ptx -lineinfo -arch={})\n",
                                  input.path, archFor(input, options));
  } catch (const std::exception& e) {
    result.error = fmt::format("{}: error: internal error while checking: {}\n", input.path, e.what());
  }
  return result;
}

bool useColor(const CheckOptions& options) {
  if (options.color == "always") return true;
  if (options.color == "never" || !options.output.empty()) return false;
  const char* term = std::getenv("TERM");
  return ::isatty(1) && !std::getenv("NO_COLOR") && !(term && std::string_view(term) == "dumb");
}

std::string render(const std::vector<report::Diagnostic>& diagnostics, const report::RunStats& stats,
                   report::SourceText& sources, const CheckOptions& options) {
  if (options.format == "json") return report::renderJson(diagnostics, stats);
  if (options.format == "sarif") {
    report::SarifOptions sarif;
    sarif.toolVersion = kVersion;
    std::error_code error;
    sarif.sourceRoot = fs::absolute(options.sarifRoot.empty() ? fs::current_path(error) : fs::path(options.sarifRoot), error);
    sarif.rules = sarifRules();
    return report::renderSarif(diagnostics, sources, sarif);
  }
  return report::renderText(diagnostics, sources, {useColor(options), true});
}

// A report that cannot be written (a full disk, a closed pipe, /dev/full) is
// an error: exit 2 with a message, never a silent exit without the report.
bool writeOutput(const std::string& text, const std::string& path) {
  if (path.empty()) {
    errno = 0;
    std::cout << text << std::flush;
    if (std::cout) return true;
    std::cerr << fmt::format("error: cannot write the report to standard output: {}\n",
                             errno ? std::strerror(errno) : "write failed");
    return false;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) std::cerr << fmt::format("{}: error: cannot write output: {}\n", path, std::strerror(errno));
  return static_cast<bool>(out);
}

int runCheck(const CheckOptions& options) {
  auto start = std::chrono::steady_clock::now();

  // Select checks from the table (--checks globs).
  Checks selected;
  std::string error;
  if (!selectChecks(options.checks, selected, error)) {
    std::cerr << error << "\n";
    return 2;
  }

  // Collect inputs: files, directories, and compile_commands.json (-p).
  std::vector<Input> inputs;
  if (!collectInputs(options, inputs, error)) {
    std::cerr << error << "\n";
    return 2;
  }

  // Check every input, in parallel, keeping results in input order.
  std::string nvcc = findNvcc(options.nvcc);
  std::string toolkitRoot = nvcc.empty() ? "" : fs::path(nvcc).parent_path().parent_path().string();
  std::vector<InputResult> results(inputs.size());
  forEachInParallel(
      inputs.size(), options.jobs,
      [&](size_t i) { results[i] = checkInput(inputs[i], selected, options, toolkitRoot); },
      [&](size_t i) { return inputs[i].path; });

  bool inputErrors = false;
  report::RunStats stats;
  std::vector<report::Diagnostic> diagnostics;
  std::vector<std::string> sourceFiles;
  for (auto& result : results) {
    std::cerr << result.warning;
    if (!result.error.empty()) {
      inputErrors = true;
      std::cerr << result.error << (result.error.back() == '\n' ? "" : "\n");
    }
    if (!result.checked) continue;
    ++stats.files;
    stats.functions += result.functions;
    stats.instructions += result.instructions;
    sortByLocation(result.diagnostics);
    for (auto& diagnostic : result.diagnostics) diagnostics.push_back(std::move(diagnostic));
    sourceFiles.insert(sourceFiles.end(), result.sourceFiles.begin(), result.sourceFiles.end());
  }

  // An empty file (or a directory of them) is not a pass: nothing was checked.
  if (stats.functions == 0 && !inputErrors) {
    std::cerr << "error: no function with a body in the inputs: nothing was checked\n";
    inputErrors = true;
  }

  // One report per source site: unrolled copies of a line are one finding.
  diagnostics = deduplicate(std::move(diagnostics));

  // Drop what `// fenceline: ignore(check-id)` comments suppress.
  report::SourceText sources;
  diagnostics = applySuppressions(std::move(diagnostics), sources);
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // --verify: compare with the `// expect:` comments instead of rendering.
  if (options.verify) {
    VerifyResult verified = verify(diagnostics, sourceFiles, sources, {useColor(options), true});
    if (!writeOutput(verified.output, options.output)) return 2;
    std::cerr << fmt::format("verify: {} expected diagnostics produced, {} missing, {} unexpected\n",
                             verified.matched, verified.missing, verified.unexpected);
    if (inputErrors) return 2;
    return verified.ok ? 0 : 1;
  }

  // Render: text, JSON or SARIF, to stdout or -o FILE.
  if (!writeOutput(render(diagnostics, stats, sources, options), options.output)) return 2;
  if (stats.files > 0) std::cerr << report::summaryLine(diagnostics, stats) << "\n";
  if (inputErrors) return 2;
  return diagnostics.empty() ? 0 : 1;
}

}  // namespace

int runCommandLine(int argc, char** argv) {
  CLI::App app{"fenceline: finds memory-ordering bugs in GPU kernels by reading their PTX", "fenceline"};
  app.set_version_flag("--version", std::string("fenceline ") + kVersion);
  app.require_subcommand(1);
  app.footer("Exit status: 0 no findings, 1 findings (or --verify mismatch), 2 usage or input error.\n"
             "Run 'fenceline SUBCOMMAND --help' for the options of each subcommand.");

  CheckOptions options;
  CLI::App* check = app.add_subcommand("check", "Check .ptx and .cu files (or directories of them) for ordering bugs");
  check->add_option("inputs", options.inputs,
                    "Files to check: .ptx (read as is), .cu (compiled with nvcc -ptx -lineinfo), or directories "
                    "(searched recursively for both)");
  check->add_option("--format", options.format, "Output format: text, json or sarif (default: text)")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  check->add_option("--checks", options.checks,
                    "Comma-separated globs selecting checks, applied in order to all checks; '-glob' removes "
                    "(e.g. '-*,proxy-*'). A glob matching no check is an error");
  CLI::Option* arch = check->add_option("--arch", options.arch,
                                        "GPU architecture for .cu inputs (default: sm_90a; overrides the one in "
                                        "compile_commands.json)");
  check->add_option("--nvcc", options.nvcc, "CUDA compiler to run (default: nvcc on PATH, then /usr/local/cuda/bin/nvcc)");
  check->add_option("--nvcc-flag", options.nvccFlags,
                    "Extra flag for nvcc, repeatable; write flags that start with '-' as --nvcc-flag=-DNAME")
      ->allow_extra_args(false);
  check->add_option("-p,--build-dir", options.buildDir,
                    "Build folder holding compile_commands.json: its device-code flags are used for .cu inputs; "
                    "with no inputs, every .cu file it compiles is checked");
  check->add_option("-j,--jobs", options.jobs, "Inputs checked in parallel (default: all cores)");
  check->add_option("-o,--output", options.output, "Write the report to FILE instead of stdout");
  check->add_option("--color", options.color, "Colors in text output: auto (on a terminal), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  check->add_option("--sarif-root", options.sarifRoot,
                    "Folder SARIF paths are made relative to (default: the working directory)");
  check->add_flag("--verify", options.verify,
                  "Compare diagnostics with '// expect: check-id' comments in the sources; report missing and "
                  "unexpected ones (exit 0 when they match)");

  check->add_flag("-v,--verbose", options.verbose, "Print each nvcc command line to stderr before running it");
  // Limits (model/Limits.h): a function over one is reported and not checked; exit status 2.
  model::Limits& limits = options.limits;
  check->add_option("--max-instructions", limits.maxInstructions, "Instructions per function after inlining")
      ->default_val(limits.maxInstructions);
  check->add_option("--max-registers", limits.maxRegisters, "Registers per function after inlining")
      ->default_val(limits.maxRegisters);
  check->add_option("--max-call-depth", limits.maxCallDepth, "Nesting of inlined calls")
      ->default_val(limits.maxCallDepth)->check(CLI::PositiveNumber);
  check->add_option("--inlining-growth", limits.inliningGrowth,
                    "Instructions inlining may add to one input, as a multiple of its own (plus --max-instructions)")
      ->default_val(limits.inliningGrowth);
  check->add_option("--max-seconds-per-function", limits.maxSecondsPerFunction,
                    "Time to model and check one function (0: no limit)")
      ->default_val(limits.maxSecondsPerFunction)->check(CLI::NonNegativeNumber);

  std::string listFormat = "text";
  CLI::App* list = app.add_subcommand("list-checks", "List the checks: id, severity and summary");
  list->add_option("--format", listFormat, "text or json (default: text)")->check(CLI::IsMember({"text", "json"}));

  std::string explainId;
  CLI::App* explain = app.add_subcommand("explain", "Print the documentation page of a check");
  explain->add_option("check", explainId, "Check id (see list-checks)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int status = app.exit(e);
    return status == 0 ? 0 : 2;
  }
  options.archGiven = arch->count() > 0;

  if (list->parsed()) return listChecks(listFormat);
  if (explain->parsed()) return explainCheck(explainId);
  return runCheck(options);
}

}  // namespace fenceline::driver

int main(int argc, char** argv) { return fenceline::driver::runCommandLine(argc, argv); }
