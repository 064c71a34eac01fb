//===- ProblemRecord.cpp - a tunable op on its own, and the record file ---===//
//
// The autotuner and `ejk-tune --recorded` work on one problem at a time: a
// module holding just the op, with its operands as the entry's arguments.
// Compiling tools can append the problems they compile to a per-device
// record file (JSON lines), so that one `ejk-tune --recorded` run later
// tunes everything an application used.
//
//===----------------------------------------------------------------------===//

#include "ejk/Selection/Selection.h"
#include "ejk/Support/FileIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::ejk;
using json = nlohmann::json;

FailureOr<OwningOpRef<ModuleOp>>
mlir::ejk::extractProblem(TunableOpInterface op, StringRef entryName) {
  Operation *original = op.getOperation();
  for (Type type : llvm::concat<const Type>(original->getOperandTypes(),
                                            original->getResultTypes()))
    if (!isa<RankedTensorType>(type))
      return original->emitOpError("cannot be tuned on its own: operand or "
                                   "result type ")
             << type << " is not a ranked tensor";
  MLIRContext *context = original->getContext();
  OpBuilder builder(context);
  Location loc = original->getLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto type = builder.getFunctionType(original->getOperandTypes(),
                                      original->getResultTypes());
  auto func = func::FuncOp::create(builder, loc, entryName, type);
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  IRMapping mapping;
  mapping.map(original->getOperands(), body->getArguments());
  Operation *copy = builder.clone(*original, mapping);
  cast<TunableOpInterface>(copy).setSelectedConfig(ConfigAttr());
  func::ReturnOp::create(builder, loc, copy->getResults());
  return module;
}

std::string mlir::ejk::recordFilePath(const std::string &cacheDir,
                                      const ::ejk::DeviceFingerprint &fp) {
  return cacheDir + "/tuning/" + fp.hash() + ".recorded.jsonl";
}

LogicalResult mlir::ejk::recordProblem(TunableOpInterface op,
                                       const std::string &path,
                                       std::string &error) {
  FailureOr<OwningOpRef<ModuleOp>> problem = extractProblem(op, "problem");
  if (failed(problem)) {
    error = "the op cannot be extracted";
    return failure();
  }
  std::string ir;
  llvm::raw_string_ostream os(ir);
  (*problem)->print(os);
  json line = {{"key", op.getProblemKey()}, {"ir", ir}};
  std::string text = line.dump() + "\n";

  std::string dir = path.substr(0, path.rfind('/'));
  ::mkdir(dir.substr(0, dir.rfind('/')).c_str(), 0777);
  ::mkdir(dir.c_str(), 0777);
  ::ejk::FileLock lock;
  if (!lock.acquire(path + ".lock", error))
    return failure();
  int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0 || ::write(fd, text.data(), text.size()) !=
                    static_cast<ssize_t>(text.size())) {
    error = "cannot append to '" + path + "'";
    if (fd >= 0)
      ::close(fd);
    return failure();
  }
  ::close(fd);
  return success();
}

std::vector<RecordedProblem>
mlir::ejk::readRecordedProblems(const std::string &path,
                                std::vector<std::string> &warnings) {
  std::vector<RecordedProblem> problems;
  std::string contents, error;
  ::ejk::ReadFailure failure = ::ejk::ReadFailure::None;
  if (!::ejk::readRegularFile(path, contents, error, {}, &failure)) {
    // No record file yet is no recorded problem; anything else is said.
    if (failure != ::ejk::ReadFailure::NotFound)
      warnings.push_back(error);
    return problems;
  }
  std::istringstream file(contents);
  std::map<std::string, size_t> index;
  std::string text;
  for (int number = 1; std::getline(file, text); ++number) {
    if (text.empty())
      continue;
    json line = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (line.is_discarded() || !line.is_object() || !line.contains("key") ||
        !line["key"].is_string() || !line.contains("ir") ||
        !line["ir"].is_string()) {
      warnings.push_back("'" + path + "' line " + std::to_string(number) +
                         " is not a recorded problem; skipped");
      continue;
    }
    RecordedProblem problem{line["key"].get<std::string>(),
                            line["ir"].get<std::string>()};
    auto [it, inserted] = index.emplace(problem.key, problems.size());
    if (inserted)
      problems.push_back(std::move(problem));
    else
      problems[it->second] = std::move(problem);
  }
  return problems;
}
