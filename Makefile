# posenc: `make demo` and `make test` set everything up on a fresh Debian
# machine (missing packages through apt-get), then build with meson.

BUILD ?= build
MESON_OPTS ?=
PYTHON ?= python3

BUILD_DEPS = gcc meson ninja-build pkg-config libcairo2-dev libpng-dev zlib1g-dev \
	fonts-dejavu-core python3
TEST_DEPS = libcmocka-dev python3-numpy
BENCH_DEPS = python3-numpy python3-scipy python3-matplotlib hyperfine

.PHONY: all deps test-deps build demo test check-sanitize bench clean

all: build

deps:
	@sh tools/install-deps.sh $(BUILD_DEPS)

test-deps:
	@sh tools/install-deps.sh $(BUILD_DEPS) $(TEST_DEPS)

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS) >/dev/null

build: deps $(BUILD)/build.ninja
	@ninja -C $(BUILD) >/dev/null

demo: build
	@mkdir -p out
	$(BUILD)/cli/posenc encode -s sinusoidal -n 64 -d 32 -o out/encode.csv
	$(BUILD)/cli/posenc encode -s sinusoidal -n 64 -d 32 -o out/encode.npy

test: test-deps $(BUILD)/build.ninja
	@ninja -C $(BUILD) >/dev/null
	@meson test -C $(BUILD) --print-errorlogs >$(BUILD)/test-output.txt 2>&1 || true
	@$(PYTHON) tests/summarize.py $(BUILD)/meson-logs/testlog.json

clean:
	rm -rf $(BUILD) out
