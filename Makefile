# devcheck's entry points. On a fresh Debian 12 machine:
#   make run    installs what is missing, builds, runs the main job
#   make test   the same, then every test (ctest)
BUILD      ?= build
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
GENERATOR  := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
# ccache across precompiled headers needs these sloppiness settings.
export CCACHE_SLOPPINESS := pch_defines,time_macros,include_file_mtime,include_file_ctime
export CCACHE_NOHASHDIR := 1
# Paths under the checkout are hashed relative to it, so a fresh clone (CI)
# reuses what an earlier build compiled.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_DIR ?= $(HOME)/.cache/ccache

.PHONY: deps configure build build-runtime run test test-asan test-tsan test-torch2 test-torch-latest deb test-deb bench fuzz format tidy clean

deps:
	@bash scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	$(MAKE) deps
	cmake -S . -B $(BUILD) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# What `make run` runs and `cmake --install` installs: the CLI, its helper,
# the libraries, the classifier (no tests, benchmarks or examples).
build-runtime: configure
	cmake --build $(BUILD) -j $(JOBS) --target devcheck_runtime

run: build-runtime
	@bash scripts/main-job.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer; any
# report fails the test that caused it.
# handle_segv=0: the planted-crash tests check devcheck's own fatal-signal report.
test-asan: export ASAN_OPTIONS ?= detect_leaks=0:abort_on_error=1:verify_asan_link_order=0:handle_segv=0
test-asan: export UBSAN_OPTIONS ?= halt_on_error=1:print_stacktrace=1
test-asan:
	$(MAKE) test BUILD=build-asan CMAKE_ARGS="-DDEVCHECK_SANITIZE=address,undefined -DDEVCHECK_BUILD_BENCH=OFF -DDEVCHECK_BUILD_EXAMPLES=OFF" \
	  CTEST_ARGS="$(CTEST_ARGS)"

# The device sanitizer's tests under ThreadSanitizer: its callbacks run on
# autograd and intra-op threads at once. LibTorch itself is not instrumented;
# devcheck's code, the tests and the planted programs are. tsan.supp lists
# LibTorch's own refcount hand-offs that TSan cannot see; handle_segv=0 and
# report_signal_unsafe=0 let the planted-crash test reach devcheck's
# best-effort fatal-signal report (docs/sanitizer.md).
test-tsan: export TSAN_OPTIONS ?= halt_on_error=1:second_deadlock_stack=1:handle_segv=0:report_signal_unsafe=0:suppressions=$(CURDIR)/tests/sanitizer/tsan.supp
test-tsan: deps
	cmake -S . -B build-tsan -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DDEVCHECK_SANITIZE=thread -DDEVCHECK_BUILD_BENCH=OFF -DDEVCHECK_BUILD_EXAMPLES=OFF
	cmake --build build-tsan -j $(JOBS) --target devcheck_sanitizer_tests
	build-tsan/tests/devcheck_sanitizer_tests $(GTEST_ARGS)

# The whole tree against Debian 13's LibTorch 2.6 (CUDA 12.4 build) and the
# whole suite with Python torch 2.6, in a debootstrap root made once and
# reused (scripts/test-lane.sh; needs root, builds into build-torch2/).
test-torch2:
	@bash scripts/test-lane.sh torch2

# Today's torch: the whole tree against Debian sid's LibTorch 2.14 (CPU, GCC
# 16, C++20) and the whole suite with Python 3.14's torch 2.14, beside
# torchvision, ignite, accelerate and skorch (builds into build-torch-latest/).
test-torch-latest:
	@bash scripts/test-lane.sh torch-latest

# The Debian package of the installed tree (CPack's DEB generator), and its
# test: contents, dependencies, lintian, then installed into a fresh Debian 12
# root, every subcommand run, removed (scripts/test-deb.sh; needs root).
deb: build-runtime
	cd $(BUILD) && cpack -G DEB
	@ls $(BUILD)/devcheck_*.deb

test-deb: deb
	cmake --build $(BUILD) -j $(JOBS) --target devcheck_san_planted
	@bash scripts/test-deb.sh $$(ls $(BUILD)/devcheck_*.deb | tail -n 1) $(BUILD)/tests/devcheck_san_planted

bench: build
	@bash scripts/bench.sh $(BUILD)

# libFuzzer over every parser of untrusted bytes; FUZZ_SECONDS each.
FUZZ_SECONDS ?= 60
fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DDEVCHECK_BUILD_FUZZ=ON -DDEVCHECK_BUILD_TESTS=OFF -DDEVCHECK_BUILD_BENCH=OFF \
	  -DDEVCHECK_BUILD_EXAMPLES=OFF -DDEVCHECK_SANITIZE=address,undefined
	cmake --build build-fuzz -j $(JOBS) --target devcheck_fuzzers
	@bash scripts/fuzz.sh build-fuzz $(FUZZ_SECONDS)

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

# clang-tidy cannot read GCC's precompiled header: drop it from a copy of the
# compile commands.
tidy: build
	mkdir -p $(BUILD)/tidy
	sed -E 's# -Winvalid-pch -include [^ "]*cmake_pch.hxx##g' $(BUILD)/compile_commands.json \
	  > $(BUILD)/tidy/compile_commands.json
	clang-tidy -p $(BUILD)/tidy --quiet $$(git ls-files 'src/*.cc' 'tools/*.cc')

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz
