# posenc: `make demo` and `make test` set everything up on a fresh Debian
# machine (missing packages through apt-get), then build with meson.

BUILD ?= build
MESON_OPTS ?=
PYTHON ?= python3
# make bench: a release build of its own; BENCH_RUNS=1 for a quick look, BENCH_ONLY=REGEX for some jobs
# (BENCH_UPDATE=1: and replace just their rows in bench/RESULTS.md).
BENCH_BUILD ?= build-release
BENCH_RUNS ?= 5
BENCH_REF_RUNS ?= $(BENCH_RUNS)
BENCH_ONLY ?=
BENCH_UPDATE ?=

BUILD_DEPS = gcc meson ninja-build pkg-config libcairo2-dev libpng-dev zlib1g-dev \
	fonts-dejavu-core python3
TEST_DEPS = libcmocka-dev python3-numpy valgrind groff-base man-db poppler-utils chromium
# libFuzzer for the bounded fuzz run; without it that test reports a skip.
OPTIONAL_TEST_DEPS = clang libclang-rt-14-dev
# OpenBLAS: numpy's BLAS for the references, and (libopenblas-dev, optional: -Dblas=auto) the CBLAS of
# posenc's Gram path for learned and file tables;
# installing it also makes Debian's numpy use it for every reference script.
BENCH_DEPS = python3-numpy python3-scipy python3-matplotlib libopenblas0-pthread libopenblas-dev

.PHONY: all deps test-deps build demo gallery test check-sanitize check-valgrind check-clang bench clean

all: build

deps:
	@sh tools/install-deps.sh $(BUILD_DEPS)

test-deps:
	@sh tools/install-deps.sh $(BUILD_DEPS) $(TEST_DEPS)
	@sh tools/install-deps.sh $(OPTIONAL_TEST_DEPS) 2>/dev/null || \
		echo "posenc: optional $(OPTIONAL_TEST_DEPS) not installed: the fuzz run will be skipped" >&2

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS) >/dev/null

build: deps $(BUILD)/build.ninja
	@ninja -C $(BUILD) >/dev/null

demo: build
	@mkdir -p out
	$(BUILD)/cli/posenc compare -o out/compare.png
	$(BUILD)/cli/posenc compare -o out/compare.csv
	$(BUILD)/cli/posenc encode -s sinusoidal -n 64 -d 32 -o out/encode.npy

# The README's gallery: every figure type, drawn by the current build into out/gallery/.
GALLERY = out/gallery
gallery: build
	@mkdir -p $(GALLERY)
	@P=$(BUILD)/cli/posenc; set -e; \
	$$P compare -q -o $(GALLERY)/compare.png; \
	$$P encode -q -s sinusoidal -n 512 -d 128 -o $(GALLERY)/encode.png; \
	$$P encode -q -s rope:layout=half --view cos -n 1000000 -d 128 -o $(GALLERY)/rope-cos.png; \
	$$P distance -q -s sinusoidal -n 1000000 -d 512 -o $(GALLERY)/distance.png; \
	$$P corr -q -s sinusoidal:base=10 -n 256 -d 128 -o $(GALLERY)/corr.png; \
	$$P scatter -q -n 256 -d 128 -o $(GALLERY)/scatter.png; \
	$$P profile -q --at 0,128,256 -n 512 -d 128 -o $(GALLERY)/profile.png; \
	$$P decay -q -s rope --base 10000,500000 -d 128 --max-offset 256 --bound -o $(GALLERY)/decay.png; \
	$$P freqs -q -s rope:scaling=llama3,base=500000 -d 128 -o $(GALLERY)/freqs.png; \
	$$P bias -q -s alibi:heads=8 -n 64 -o $(GALLERY)/alibi.png; \
	$$P bias -q -s t5 -n 256 -o $(GALLERY)/t5.png; \
	$$P report -q -o $(GALLERY)/report.pdf
	@echo "posenc: gallery in $(GALLERY)/"

test: test-deps $(BUILD)/build.ninja
	@ninja -C $(BUILD) >/dev/null
	@meson test -C $(BUILD) --print-errorlogs >$(BUILD)/test-output.txt 2>&1 || true
	@$(PYTHON) tests/summarize.py $(BUILD)/meson-logs/testlog.json

# The whole suite again under AddressSanitizer and UBSan (any report fails it).
check-sanitize: test-deps
	@test -f $(BUILD)-asan/build.ninja || meson setup $(BUILD)-asan -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args=-fno-sanitize-recover=all >/dev/null
	@ninja -C $(BUILD)-asan >/dev/null
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		meson test -C $(BUILD)-asan --print-errorlogs >$(BUILD)-asan/test-output.txt 2>&1 || true
	@$(PYTHON) tests/summarize.py --label sanitize $(BUILD)-asan/meson-logs/testlog.json

# The library tests under valgrind's memcheck.
check-valgrind: test-deps $(BUILD)/build.ninja
	@ninja -C $(BUILD) >/dev/null
	@meson test -C $(BUILD) --setup valgrind --suite lib --print-errorlogs >$(BUILD)/valgrind-output.txt 2>&1 || true
	@$(PYTHON) tests/summarize.py --label valgrind $(BUILD)/meson-logs/testlog-valgrind.json

# The same sources must build warning-free with clang (-Werror).
check-clang: test-deps
	@sh tools/install-deps.sh clang
	@test -f $(BUILD)-clang/build.ninja || CC=clang meson setup $(BUILD)-clang >/dev/null
	@ninja -C $(BUILD)-clang >/dev/null && echo "clang: build clean"

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-clang $(BENCH_BUILD) out

bench:
	@sh tools/install-deps.sh $(BUILD_DEPS) $(BENCH_DEPS)
	@test -f $(BENCH_BUILD)/build.ninja || \
		meson setup $(BENCH_BUILD) -Dbuildtype=release -Dtests=false $(MESON_OPTS) >/dev/null
	@ninja -C $(BENCH_BUILD) >/dev/null
	@$(PYTHON) bench/run --posenc $(BENCH_BUILD)/cli/posenc --runs $(BENCH_RUNS) \
		--reference-runs $(BENCH_REF_RUNS) \
		$(if $(BENCH_ONLY),--only '$(BENCH_ONLY)') $(if $(BENCH_UPDATE),--update)

