#!/bin/sh
# The Python package's tests in-process under valgrind: fails if a block that posenc's code
# allocated is definitely lost (tests/python/valgrind_leaks.py says how that is told apart
# from the interpreter's and the libraries' own). The tests that need forked runs (Ctrl-C, the
# GIL) are left out. About five minutes.
#   tests/python/leaks.sh [BUILD]        (BUILD: a meson build folder, default build)
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
log=${POSENC_LEAKS_LOG:-$(mktemp)}
[ -n "${POSENC_LEAKS_LOG:-}" ] || trap 'rm -f "$log"' EXIT
tests=0
POSENC_PYTHON_FORK=0 PYTHONMALLOC=malloc valgrind --leak-check=full --show-leak-kinds=definite \
	--errors-for-leak-kinds=none --num-callers=50 --log-file="$log" \
	/usr/bin/python3 tests/python/run.py "$build/cli/posenc" "$build/cli/libposenc-python.so" \
	>/dev/null || tests=$?
[ "$tests" = 0 ] || echo "leaks.sh: the tests failed under valgrind (status $tests)" >&2
/usr/bin/python3 tests/python/valgrind_leaks.py "$log" || exit 1
exit "$tests"
