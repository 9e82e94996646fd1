# posenc: `make demo`, `make` and `make test` set everything up on a fresh Debian
# machine (missing packages through apt-get), then build with meson. Building needs
# only BUILD_DEPS; the test suite is the meson feature 'tests' (auto: built when
# TEST_DEPS are installed), which `make test` installs and turns on.

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
# python3-pandas: the Python package returns DataFrames when pandas is there (the notebook path);
# without it those tests skip.
# libopenblas-dev: so that the suite also runs the BLAS path of learned and file tables (the Gram
# products, the NPY writer's pieces), which users with OpenBLAS and the benchmark take.
TEST_DEPS = libcmocka-dev python3-numpy valgrind groff-base man-db poppler-utils chromium \
	python3-pytest libopenblas-dev python3-pandas
# make python: the Python package (doc/python.md), built by Debian's pip and setuptools, offline.
PYTHON_DEPS = python3-numpy python3-pip python3-setuptools python3-wheel
# libFuzzer for the bounded fuzz run; without it that test reports a skip.
OPTIONAL_TEST_DEPS = clang libclang-rt-14-dev
# OpenBLAS: numpy's BLAS for the references, and (libopenblas-dev, optional: -Dblas=auto) the CBLAS of
# posenc's Gram path for learned and file tables;
# installing it also makes Debian's numpy use it for every reference script.
BENCH_DEPS = python3-numpy python3-scipy python3-matplotlib libopenblas0-pthread libopenblas-dev

.PHONY: all deps test-deps tests-on build python demo gallery test check-sanitize check-valgrind check-python-leaks check-clang check-release check-format format bench clean

all: build

deps:
	@sh tools/install-deps.sh $(BUILD_DEPS)

test-deps:
	@sh tools/install-deps.sh $(BUILD_DEPS) $(TEST_DEPS)
	@sh tools/install-deps.sh $(OPTIONAL_TEST_DEPS) 2>/dev/null || \
		echo "posenc: optional $(OPTIONAL_TEST_DEPS) not installed: the fuzz run will be skipped" >&2

# Quiet, but for one line (whether the tests are built, and if not what they miss) and for
# the whole output of a step that fails.
QUIET_NINJA = out=$$(ninja -C $(1) 2>&1) || { printf '%s\n' "$$out"; exit 1; }
$(BUILD)/build.ninja:
	@out=$$(meson setup $(BUILD) $(MESON_OPTS) 2>&1) || { echo "$$out"; exit 1; }; \
	echo "$$out" | awk '/^ *tests *:/ { sub(/^ *tests *: */, "posenc: tests: "); print; exit }'

build: deps $(BUILD)/build.ninja
	@$(call QUIET_NINJA,$(BUILD))

demo: build
	@mkdir -p out
	$(BUILD)/cli/posenc compare -o out/compare.png
	$(BUILD)/cli/posenc compare -o out/compare.csv
	$(BUILD)/cli/posenc encode -s sinusoidal -n 64 -d 32 -o out/encode.npy

# The Python package for this python3: in a venv into it, else into the user's site-packages
# (Debian's pip refuses to touch the system's packages, PEP 668). Offline: numpy is Debian's.
python: deps
	@sh tools/install-deps.sh $(PYTHON_DEPS)
	$(PYTHON) -m pip install --no-build-isolation --no-index $$($(PYTHON) -c 'import sys; \
		print("" if sys.prefix != sys.base_prefix else "--user --break-system-packages")') .

# The README's gallery: every figure type drawn by the current build. The images are kept in
# the repository, so that they show on a fresh clone and on the forge; pngquant halves their
# bytes (256 colours, dithered so that colour scales stay smooth). Writes exactly the files
# README.md shows (tests/docs/test_readme_images.py checks both ways).
GALLERY = doc/gallery
# numpy: tools/synthetic-checkpoint.py writes the checkpoint of the usage figures.
GALLERY_DEPS = pngquant python3-numpy
gallery: build
	@sh tools/install-deps.sh $(GALLERY_DEPS)
	@rm -rf $(BUILD)/gallery && mkdir -p $(BUILD)/gallery $(GALLERY)
	@P=$(BUILD)/cli/posenc; G=$(BUILD)/gallery; set -e; \
	$$P compare -q -o $$G/compare.png; \
	$$P encode -q -s sinusoidal -n 512 -d 128 -o $$G/encode.png; \
	$$P encode -q -s rope:layout=half --view cos -n 1000000 -d 128 -o $$G/rope-cos.png; \
	$$P distance -q -s sinusoidal -n 1000000 -d 512 -o $$G/distance.png; \
	$$P corr -q -s sinusoidal:base=10 -n 256 -d 128 -o $$G/corr.png; \
	$$P scatter -q -n 256 -d 128 -o $$G/scatter.png; \
	$$P profile -q --at 0,128,256 -n 512 -d 128 -o $$G/profile.png; \
	$$P decay -q -s rope --base 10000,500000 -d 128 --max-offset 256 --bound -o $$G/decay.png; \
	$$P freqs -q -s rope:scaling=llama3,base=500000 -d 128 -o $$G/freqs.png; \
	$$P bias -q -s alibi:heads=8 -n 64 -o $$G/alibi.png; \
	$$P bias -q -s t5 -n 256 -o $$G/t5.png; \
	$$P precision -q -s rope:layout=half,base=500000,scaling=llama3,factor=8,low=1,high=4,original=8192 \
		--precision f32,f32/bf16,bf16,f16 -o $$G/precision.png; \
	$$P compare -q -s sinusoidal -s learned:seed=1 -n 256 -d 64 --style paper -o $$G/paper-compare.png; \
	/usr/bin/python3 tools/synthetic-checkpoint.py $$G/synthetic-llama; \
	$$P usage -q -s hf:$$G/synthetic-llama/config.json --weights $$G/synthetic-llama/model.safetensors \
		-o $$G/usage.png; \
	$$P usage -q -s hf:$$G/synthetic-llama/config.json --weights $$G/synthetic-llama/model.safetensors \
		--view wavelength -o $$G/usage-wavelength.png
	@rm -f $(GALLERY)/*.png
	@for f in $(BUILD)/gallery/*.png; do \
		pngquant --quality 80-100 --speed 1 --strip -o $(GALLERY)/$${f##*/} $$f || exit 1; \
	done
	@echo "posenc: gallery in $(GALLERY)/ ($$(du -cb $(GALLERY)/*.png | tail -n 1 | cut -f 1) bytes)"

# A build dir that `make demo` or `make` set up before the test dependencies were there
# has no tests: turn them on (meson reconfigures at the next ninja).
TESTS_ENABLED = $(PYTHON) -c 'import json, sys; sys.exit(not any(o["name"] == "tests" and \
	o["value"] == "enabled" for o in json.load(open(sys.argv[1]))))' \
	$(BUILD)/meson-info/intro-buildoptions.json
tests-on: test-deps
	@if test -f $(BUILD)/build.ninja; then \
		$(TESTS_ENABLED) || meson configure $(BUILD) -Dtests=enabled; \
	else \
		$(MAKE) --no-print-directory $(BUILD)/build.ninja MESON_OPTS='$(MESON_OPTS) -Dtests=enabled'; \
	fi

test: tests-on
	@$(call QUIET_NINJA,$(BUILD))
	@meson test -C $(BUILD) --print-errorlogs >$(BUILD)/test-output.txt 2>&1 || true
	@$(PYTHON) tests/summarize.py $(BUILD)/meson-logs/testlog.json

# The whole suite again under AddressSanitizer and UBSan (any report fails it).
check-sanitize: test-deps
	@test -f $(BUILD)-asan/build.ninja || meson setup $(BUILD)-asan -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args=-fno-sanitize-recover=all -Dtests=enabled >/dev/null
	@$(call QUIET_NINJA,$(BUILD)-asan)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		meson test -C $(BUILD)-asan --print-errorlogs >$(BUILD)-asan/test-output.txt 2>&1 || true
	@$(PYTHON) tests/summarize.py --label sanitize $(BUILD)-asan/meson-logs/testlog.json

# The library tests under valgrind's memcheck.
check-valgrind: tests-on
	@$(call QUIET_NINJA,$(BUILD))
	@meson test -C $(BUILD) --setup valgrind --suite lib --print-errorlogs >$(BUILD)/valgrind-output.txt 2>&1 || true
	@$(PYTHON) tests/summarize.py --label valgrind $(BUILD)/meson-logs/testlog-valgrind.json

# The Python package's tests in-process under valgrind: no block lost by posenc's code (a few minutes).
check-python-leaks: tests-on
	@$(call QUIET_NINJA,$(BUILD))
	@sh tests/python/leaks.sh $(BUILD)

# Every tracked file follows .clang-format (C) and .editorconfig (all text files).
check-format:
	@sh tools/install-deps.sh clang-format python3
	@$(PYTHON) tools/check-format.py

# Rewrites the C files the way check-format wants them.
format:
	@sh tools/install-deps.sh clang-format python3
	@$(PYTHON) tools/check-format.py --fix

# The same sources must build warning-free with clang (-Werror).
check-clang: test-deps
	@sh tools/install-deps.sh clang
	@test -f $(BUILD)-clang/build.ninja || CC=clang meson setup $(BUILD)-clang >/dev/null
	@$(call QUIET_NINJA,$(BUILD)-clang) && echo "clang: build clean"

# The optimised build of `make bench`: -O3 inlining finds warnings (format truncation) the
# debug build does not, and -Werror makes them failures.
check-release: deps
	@test -f $(BENCH_BUILD)/build.ninja || \
		meson setup $(BENCH_BUILD) -Dbuildtype=release -Dtests=disabled $(MESON_OPTS) >/dev/null
	@$(call QUIET_NINJA,$(BENCH_BUILD)) && echo "release: build clean"

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-clang $(BENCH_BUILD) out build-python python/posenc.egg-info

bench:
	@sh tools/install-deps.sh $(BUILD_DEPS) $(BENCH_DEPS)
	@test -f $(BENCH_BUILD)/build.ninja || \
		meson setup $(BENCH_BUILD) -Dbuildtype=release -Dtests=disabled $(MESON_OPTS) >/dev/null
	@$(call QUIET_NINJA,$(BENCH_BUILD))
	@$(PYTHON) bench/run --posenc $(BENCH_BUILD)/cli/posenc --runs $(BENCH_RUNS) \
		--reference-runs $(BENCH_REF_RUNS) \
		$(if $(BENCH_ONLY),--only '$(BENCH_ONLY)') $(if $(BENCH_UPDATE),--update)

