#include "distributed/fingerprint.h"

#include <fmt/format.h>

#include <sstream>
#include <string>
#include <vector>

#include "detail/names.h"
#include "devcheck/error.h"

namespace devcheck::detail {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

std::string describe(const TensorFingerprint& t) { return t.shape + " " + t.dtype; }

[[noreturn]] void disagree(const std::string& what) {
  throw InvalidArgumentError(fmt::format(
      "[devcheck] DistributedDataParallel: {}; every rank must build the same model before "
      "wrapping it",
      what));
}

}  // namespace

std::string ModuleFingerprint::serialize() const {
  std::string out = fmt::format("rank\t{}\t{}\t{}\n", rank, local_rank, device);
  for (const auto& t : tensors) {
    out += fmt::format("{}\t{}\t{}\t{}\t{}\n", t.kind, t.name, t.shape, t.dtype, t.device);
  }
  return out;
}

ModuleFingerprint ModuleFingerprint::parse(const std::string& text) {
  ModuleFingerprint f;
  bool header = false;
  for (const std::string& line : split(text, '\n')) {
    const std::vector<std::string> fields = split(line, '\t');
    if (!header && fields.size() == 4 && fields[0] == "rank") {
      f.rank = std::stoi(fields[1]);
      f.local_rank = std::stoi(fields[2]);
      f.device = fields[3];
      header = true;
    } else if (header && fields.size() == 5) {
      f.tensors.push_back({fields[0], fields[1], fields[2], fields[3], fields[4]});
    } else {
      throw InvalidArgumentError(fmt::format(
          "[devcheck] DistributedDataParallel: a rank sent a module fingerprint this devcheck "
          "cannot read (line {:?}); run the same devcheck on every rank",
          line));
    }
  }
  return f;
}

ModuleFingerprint fingerprint(const torch::nn::Module& module, const ProcessGroup& group) {
  ModuleFingerprint f;
  f.rank = group.rank();
  f.local_rank = group.local_rank();
  f.device = group.device().str();
  const auto add = [&f](const char* kind, const std::string& name, const at::Tensor& t) {
    f.tensors.push_back(
        {kind, name, shape_str(t.sizes()), dtype_name(t.scalar_type()), t.device().str()});
  };
  for (const auto& item : module.named_parameters()) add("parameter", item.key(), item.value());
  for (const auto& item : module.named_buffers()) add("buffer", item.key(), item.value());
  return f;
}

void check_fingerprints(const std::vector<ModuleFingerprint>& ranks) {
  for (const ModuleFingerprint& r : ranks) {
    for (const TensorFingerprint& t : r.tensors) {
      if (t.device == r.device) continue;
      throw DeviceMismatchError(fmt::format(
          "[devcheck] DistributedDataParallel: rank {}'s {} '{}' is on {}, expected {} (rank "
          "{}'s device, LOCAL_RANK={}); move the module to the process group's device "
          "(module->to(group.device())) before wrapping it",
          r.rank, t.kind, t.name, t.device, r.device, r.rank, r.local_rank));
    }
  }
  if (ranks.empty()) return;
  const ModuleFingerprint& first = ranks.front();
  for (const ModuleFingerprint& r : ranks) {
    const size_t common = std::min(first.tensors.size(), r.tensors.size());
    for (size_t i = 0; i < common; ++i) {
      const TensorFingerprint& a = first.tensors[i];
      const TensorFingerprint& b = r.tensors[i];
      if (a.kind != b.kind || a.name != b.name) {
        disagree(fmt::format("rank {}'s {} number {} is '{}', rank {}'s is {} '{}'", first.rank,
                             a.kind, i, a.name, r.rank, b.kind, b.name));
      }
      if (a.shape != b.shape || a.dtype != b.dtype) {
        disagree(fmt::format("ranks disagree on {} '{}': rank {} has {}, rank {} has {}", a.kind,
                             a.name, first.rank, describe(a), r.rank, describe(b)));
      }
    }
    if (first.tensors.size() != r.tensors.size()) {
      const bool longer = r.tensors.size() > first.tensors.size();
      const TensorFingerprint& extra = longer ? r.tensors[common] : first.tensors[common];
      disagree(
          fmt::format("rank {} has {} parameters and buffers, rank {} has {}: {} '{}' is on "
                      "rank {} only",
                      first.rank, first.tensors.size(), r.rank, r.tensors.size(), extra.kind,
                      extra.name, longer ? r.rank : first.rank));
    }
  }
}

}  // namespace devcheck::detail
