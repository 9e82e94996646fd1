#!/bin/sh
# Installs the Debian packages posenc needs to build, test or benchmark.
# Usage: tools/install-deps.sh PACKAGE...   (only the missing ones are fetched)
set -eu

missing=""
for pkg in "$@"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $pkg" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
	as_root=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	as_root="sudo -n"
else
	echo "posenc: missing packages:$missing" >&2
	echo "posenc: run as root or with sudo: apt-get install$missing" >&2
	exit 1
fi

echo "posenc: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has empty package lists; update once, quietly.
$as_root apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$as_root apt-get install -y -qq --no-install-recommends $missing >/dev/null
