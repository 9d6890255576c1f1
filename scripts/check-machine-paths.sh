#!/usr/bin/env bash
# Fails when a tracked text file names an absolute home or work path of some machine: the
# repository must work wherever it is cloned.
set -uo pipefail
cd "$(dirname "$0")/.."
pattern='(^|[^A-Za-z0-9_.~-])(/(work|home|root|Users)/|[A-Za-z]:\\Users\\)'
if git ls-files -z | xargs -0 grep -nIE "$pattern" -- 2>/dev/null; then
  echo "error: the files above name an absolute path of a machine; use a path relative to the repository" >&2
  exit 1
fi
echo "no machine paths in tracked files"
