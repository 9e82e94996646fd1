#!/bin/sh
# The Python package's tests in-process under valgrind: fails if a block allocated by posenc's
# code (libposenc-python.so) is definitely lost. Python's own allocations left at exit are not
# counted; the tests that need forked runs (Ctrl-C, GIL) are left out. A few minutes.
#   tests/python/leaks.sh [BUILD]        (BUILD: a meson build folder, default build)
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
POSENC_PYTHON_FORK=0 PYTHONMALLOC=malloc valgrind --leak-check=full --show-leak-kinds=definite \
	--errors-for-leak-kinds=none --num-callers=50 --log-file="$log" \
	/usr/bin/python3 tests/python/run.py "$build/cli/posenc" "$build/cli/libposenc-python.so" >/dev/null
/usr/bin/python3 - "$log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
ours = re.compile(r"libposenc-python\.so|: (pe|cli|cmd|posenc|fig|report|rd|wr)_\w+ \(")
records = re.split(r"\n==\d+== \n", text)
leaks = [r for r in records if "definitely lost in loss record" in r and ours.search(r)]
summary = re.search(r"definitely lost: [^\n]*", text)
print("valgrind: %s; records through posenc's code: %d" % (summary.group(0) if summary else "no leak summary", len(leaks)))
print("\n\n".join(leaks))
sys.exit(1 if leaks or not summary else 0)
PY
