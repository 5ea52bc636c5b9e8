#include "command.h"

#include <algorithm>
#include <cstring>
#include <ostream>
#include <string_view>
#include <utility>
#include <vector>

#include "devcheck/format/error.h"
#include "devcheck/version.h"

namespace devcheck::cli {
namespace {

struct Command {
  std::string name;
  std::string description;
  int order;
  Setup setup;
  Forward forward;  // set for a command another program runs
};

std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

std::vector<ErrorReporter>& reporters() {
  static std::vector<ErrorReporter> all;
  return all;
}

}  // namespace

int exit_code_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUnsafe:
    case ErrorCode::kDeviceMismatch:
      return kExitFindings;
    default:
      return kExitBadInput;
  }
}

std::string in_cli_terms(std::string message) {
  // Longest names first, so TrainOptions::out never eats part of another.
  static const std::pair<const char*, const char*> kFlags[] = {
      {"FakeCudaOptions::force", "--fake-cuda-force"},
      {"TrainOptions::learning_rate", "--lr"},
      {"TrainOptions::test_samples", "--test-samples"},
      {"TrainOptions::lr_schedule", "--lr-schedule"},
      {"TrainOptions::batch_size", "--batch-size"},
      {"TrainOptions::max_steps", "--max-steps"},
      {"TrainOptions::data_dir", "--data"},
      {"PrefetchOptions::in_flight", "--prefetch"},
      {"TrainOptions::threads", "--threads"},
      {"TrainOptions::epochs", "--epochs"},
      {"TrainOptions::device", "--device"},
      {"TrainOptions::resume", "--resume"},
      {"RemapOptions::force", "--force"},
      {"TrainOptions::seed", "--seed"},
      {"TrainOptions::out", "--out"},
  };
  for (const auto& [api, flag] : kFlags) {
    const std::string_view name(api);
    for (std::size_t at = message.find(name); at != std::string::npos;
         at = message.find(name, at + std::strlen(flag))) {
      message.replace(at, name.size(), flag);
    }
  }
  return message;
}

ForwardRegistrar::ForwardRegistrar(std::string name, std::string description, int order,
                                   Forward forward) {
  registry().push_back(
      {std::move(name), std::move(description), order, Setup(), std::move(forward)});
}

ErrorReporterRegistrar::ErrorReporterRegistrar(ErrorReporter reporter) {
  reporters().push_back(reporter);
}

CommandRegistrar::CommandRegistrar(std::string name, std::string description, int order,
                                   Setup setup) {
  registry().push_back({std::move(name), std::move(description), order, std::move(setup), {}});
}

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  Streams io{out, err};
  CLI::App app{"devcheck: find, fix and prevent PyTorch device errors", "devcheck"};
  app.set_version_flag("--version", std::string("devcheck ") + DEVCHECK_VERSION);
  app.require_subcommand(1);
  std::vector<Command> commands = registry();
  std::stable_sort(commands.begin(), commands.end(),
                   [](const Command& a, const Command& b) { return a.order < b.order; });
  Runner chosen;
  std::vector<std::pair<CLI::App*, Runner>> runners;
  for (const auto& command : commands) {
    // A forwarded command's own program parses its command line, --help included.
    if (command.forward && argc > 1 && argv[1] == command.name) {
      return command.forward(argc, argv, io);
    }
  }
  for (const auto& command : commands) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    if (command.forward) {
      sub->allow_extras()->prefix_command();
      runners.emplace_back(sub,
                           [&command, argc, argv, &io] { return command.forward(argc, argv, io); });
    } else {
      runners.emplace_back(sub, command.setup(*sub, io));
    }
  }
  // CLI11 reports a misspelt subcommand as "A subcommand is required"; name it.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    const bool known = std::any_of(commands.begin(), commands.end(),
                                   [&](const Command& c) { return c.name == word; });
    if (!known) {
      std::string names;
      for (const auto& c : commands) names += (names.empty() ? "" : ", ") + c.name;
      err << "devcheck: unknown command '" << word << "' (commands: " << names
          << ")\nRun 'devcheck --help' for usage.\n";
      return kExitBadInput;
    }
  }
  // CLI11 hands everything after "--" to the top-level app, which takes no
  // positionals; a subcommand's trailing arguments (`run -- python3 x.py`)
  // are its own, so the separator is dropped and the subcommand parses them.
  std::vector<std::string> args;
  bool dropped = false;
  for (int i = argc - 1; i >= 1; --i) args.emplace_back(argv[i]);  // CLI11 wants them reversed
  for (auto it = args.rbegin(); it != args.rend() && !dropped; ++it) {
    if (*it == "--") {
      args.erase(std::next(it).base());
      dropped = true;
    }
  }
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp& e) {
    out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // A subcommand's --help arrives here too, as a CallForHelp from the sub.
    if (e.get_exit_code() == 0) {
      for (auto& [sub, runner] : runners) {
        if (sub->parsed()) {
          out << sub->help();
          return kExitOk;
        }
      }
      out << app.help();
      return kExitOk;
    }
    err << "devcheck: " << e.what() << "\nRun 'devcheck --help' for usage.\n";
    return kExitBadInput;
  }
  for (auto& [sub, runner] : runners) {
    if (sub->parsed()) chosen = runner;
  }
  if (!chosen) {
    err << "devcheck: no subcommand given\nRun 'devcheck --help' for usage.\n";
    return kExitBadInput;
  }
  try {
    return chosen();
  } catch (const format::Error& e) {
    err << in_cli_terms(e.message()) << "\n";
    return exit_code_for(e.code());
  } catch (...) {
    const std::exception_ptr error = std::current_exception();
    for (const ErrorReporter reporter : reporters()) {
      const int code = reporter(error, err);
      if (code >= 0) return code;
    }
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      err << "devcheck: " << e.what() << "\n";
    } catch (...) {
      err << "devcheck: unknown error\n";
    }
    return kExitBadInput;
  }
}

}  // namespace devcheck::cli
