// devcheck train: the Fashion-MNIST classifier, end to end, under
// devcheck's sanitizer. Parses and prints; train_classifier() does the work.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>

#include "classifier/classifier.h"
#include "command.h"
#include "devcheck/error.h"
#include "devcheck/fake_cuda.h"
#include "devcheck/sanitizer.h"
#include "torch_commands.h"

namespace devcheck::cli {
namespace {

struct TrainArgs {
  std::string device = "auto";
  int64_t epochs = 1;
  int64_t batch_size = 32;
  bool amp = false;
  std::string out;
  std::string resume;
  std::string data = kFashionMnistDir;
  int64_t max_steps = 0;
  int64_t test_samples = 0;
  int threads = 0;
  uint64_t seed = 0;
  double lr = 2.5e-3;
  LrSchedule lr_schedule = LrSchedule::kCosine;
  std::size_t prefetch = 0;
  CLI::Option* prefetch_set = nullptr;  // unset: TrainOptions' default
  int64_t nproc = 1;
  bool json = false;
  bool no_sanitize = false;
};

// A progress bar only on a terminal; in a pipe or a file, one line per epoch.
bool is_terminal(const std::ostream& out) { return &out == &std::cout && isatty(STDOUT_FILENO); }

Runner setup_train(CLI::App& sub, Streams& io) {
  auto a = std::make_shared<TrainArgs>();
  sub.add_option("--device", a->device,
                 "auto, cpu, cuda, cuda:N, or fake[:N] (devcheck's fake device) (default auto)");
  sub.add_option("--epochs", a->epochs,
                 "Total epochs; a resumed run continues up to it (default 1)");
  sub.add_option("--batch-size", a->batch_size, "Samples per batch (default 32)");
  sub.add_flag("--amp", a->amp,
               "Mixed precision: autocast (bfloat16 on cpu, float16 on cuda) + GradScaler on cuda");
  sub.add_option("--out", a->out, "Checkpoint written after every epoch (torch.load reads it)");
  sub.add_option("--resume", a->resume, "Checkpoint to resume from, onto this run's device");
  sub.add_option("--data", a->data, "Folder with the Fashion-MNIST IDX files")
      ->default_str(kFashionMnistDir);
  sub.add_option("--max-steps", a->max_steps,
                 "At most N optimizer steps per epoch, for quick runs (default 0: whole epochs)");
  sub.add_option("--test-samples", a->test_samples,
                 "Evaluate on the first N test samples (default 0: all 10000)");
  sub.add_option("--threads", a->threads, "Intra-op threads (default 0: LibTorch's choice)");
  sub.add_option("--seed", a->seed, "Seed for weights and shuffling (default 0)");
  sub.add_option("--lr", a->lr, "Adam's learning rate (default 0.0025)");
  sub.add_option("--lr-schedule", a->lr_schedule,
                 "cosine (from --lr down to 0 over all epochs) or constant (default cosine)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, LrSchedule>{
          {"cosine", LrSchedule::kCosine}, {"constant", LrSchedule::kConstant}}));
  a->prefetch_set = sub.add_option(
      "--prefetch", a->prefetch,
      "Batches kept in flight on the device; 0 collates on the training thread (default: 2, or "
      "0 on the cpu when the ranks' --threads fill every core)");
  sub.add_option("--nproc", a->nproc,
                 "Train with N processes (distributed data parallel, Gloo on cpu, NCCL on cuda); "
                 "--batch-size is the global batch, split evenly (default 1)");
  sub.add_flag("--json", a->json, "Print the final report as JSON");
  sub.add_flag("--no-sanitize", a->no_sanitize,
               "Do not run under devcheck's device sanitizer (it runs by default)");
  return [a, &io]() {
    // DEVCHECK_FAKE_CUDA=N: N fake CUDA devices, as under `devcheck run --fake-cuda`.
    start_fake_cuda_from_environment();
    // `devcheck train --nproc N` starts N ranks of this command, each with
    // WORLD_SIZE=N; started by hand, this process is no rank.
    const char* world = std::getenv("WORLD_SIZE");
    if (a->nproc > 1 && (world == nullptr || *world == '\0')) {
      throw InvalidArgumentError(fmt::format(
          "[devcheck] train: --nproc {} needs {} processes; run it through `devcheck train "
          "--nproc {}`, which starts them (this program is one of them, and found no WORLD_SIZE "
          "in its environment)",
          a->nproc, a->nproc, a->nproc));
    }
    keep_freed_host_memory();
    TrainOptions options = TrainOptions()
                               .device(a->device)
                               .epochs(a->epochs)
                               .batch_size(a->batch_size)
                               .amp(a->amp)
                               .out(a->out)
                               .resume(a->resume)
                               .data_dir(a->data)
                               .max_steps(a->max_steps)
                               .test_samples(a->test_samples)
                               .threads(a->threads)
                               .seed(a->seed)
                               .learning_rate(a->lr)
                               .lr_schedule(a->lr_schedule)
                               .nproc(a->nproc);
    if (*a->prefetch_set) options.prefetch(a->prefetch);
    const bool tty = !a->json && is_terminal(io.out);
    // Only rank 0 speaks on stdout.
    const ProgressCallback progress = [&io, tty, json = a->json](const TrainProgress& p) {
      if (json || p.rank != 0) return;
      switch (p.kind) {
        case TrainProgress::Kind::kStarted:
          io.out << "device: " << p.device << " (" << p.device_reason << ")\n" << std::flush;
          break;
        case TrainProgress::Kind::kStep:
          if (tty) io.out << "\r" << format_progress_bar(p) << "\x1b[K" << std::flush;
          break;
        case TrainProgress::Kind::kEpochEnd:
          if (tty) io.out << "\r\x1b[K";
          io.out << format_epoch_line(p.epoch_report, p.epochs) << "\n" << std::flush;
          break;
      }
    };

    // The sanitizer watches every op of the run; a clean run has no findings.
    std::optional<Sanitizer> sanitizer;
    if (!a->no_sanitize && !Sanitizer::active()) {
      sanitizer.emplace(SanitizerOptions().provenance(false).print_summary(false));
    }
    TrainReport report = train_classifier(options, progress);
    bool findings = false;
    if (sanitizer) {
      const SanitizerReport r = sanitizer->report();
      findings = !r.ok();
      report.sanitizer = r.to_text();
    }
    if (report.rank == 0) {
      io.out << (a->json ? report.to_json() + "\n" : report.summary_text());
    }
    return findings ? kExitFindings : kExitOk;
  };
}

const CommandRegistrar kTrain(kTrainCommand.name, kTrainCommand.description, kTrainCommand.order,
                              setup_train);

}  // namespace
}  // namespace devcheck::cli
