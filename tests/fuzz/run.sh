#!/bin/sh
# Builds the libFuzzer targets with clang and runs each for a bounded time
# on a generated seed corpus; prints TAP. Skips when clang cannot link
# -fsanitize=fuzzer (Debian: clang and libclang-rt-14-dev).
#
#   tests/fuzz/run.sh SRCDIR OUTDIR [SECONDS [TARGET...]]
#
# Inputs that once crashed a target live in tests/fuzz/regressions/TARGET/
# and are replayed first. A crash leaves OUTDIR/artifacts/TARGET-crash-*.
# The mutations follow a fixed seed (FUZZ_SEED, default 1), so that the
# suite's short run covers a prefix of what a longer run with the same seed
# covered and a result can be reproduced; FUZZ_SEED=0 lets libFuzzer pick
# one, for exploring.
set -u
src=$1
out=$2
seconds=${3:-5}
shift 3 2>/dev/null || shift $#
targets=${*:-npy safetensors csv spec json list hf gguf}
CLANG=${CLANG:-clang}
PYTHON=${PYTHON:-python3}

mkdir -p "$out/artifacts"
probe="$out/probe"
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n'\
'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return d && n; }\n' \
	>"$probe.c"
if ! "$CLANG" -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" >/dev/null 2>&1; then
	echo "1..0 # SKIP clang with libFuzzer is not available"
	exit 0
fi

set -- $targets
echo "1..$#"
"$PYTHON" "$src/tests/fuzz/make_seeds.py" "$out/seeds" || exit 1
n=0
status=0
for target in $targets; do
	n=$((n + 1))
	exe="$out/fuzz_$target"
	if ! "$CLANG" -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -ffp-contract=off \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-I"$src/lib/include" -I"$src/lib" \
		"$src"/lib/*/*.c "$src/tests/fuzz/fuzz_$target.c" -lm -lpthread \
		-o "$exe" 2>"$out/fuzz_$target.build.log"; then
		echo "not ok $n - fuzz_$target does not build (see $out/fuzz_$target.build.log)"
		status=1
		continue
	fi
	regress="$src/tests/fuzz/regressions/$target"
	if [ -d "$regress" ] && [ -n "$(ls "$regress")" ]; then
		if ! "$exe" "$regress"/* >"$out/fuzz_$target.regress.log" 2>&1; then
			echo "not ok $n - fuzz_$target fails a regression input (see $out/fuzz_$target.regress.log)"
			status=1
			continue
		fi
	fi
	corpus="$out/corpus/$target"
	mkdir -p "$corpus"
	dict=""
	[ -f "$src/tests/fuzz/$target.dict" ] && dict="-dict=$src/tests/fuzz/$target.dict"
	if "$exe" -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
		-artifact_prefix="$out/artifacts/$target-" $dict \
		"$corpus" "$out/seeds/$target" >"$out/fuzz_$target.log" 2>&1; then
		runs=$(grep -o 'Done [0-9]* runs' "$out/fuzz_$target.log" | tail -1)
		echo "ok $n - fuzz_$target ${seconds}s: ${runs:-done}"
	else
		echo "not ok $n - fuzz_$target crashed: $(ls "$out/artifacts" | grep "^$target-" | head -1)"
		tail -30 "$out/fuzz_$target.log" | sed 's/^/# /'
		status=1
	fi
done
exit $status
