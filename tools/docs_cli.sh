#!/usr/bin/env bash
# Writes docs/cli.md to stdout: the top-level --help and each command's
# --help, exactly as BIN prints them. The commands are the first words of the
# top-level help's command list, so a new command is picked up here and in
# tests/docs_cli.rs, which compares this page with the binary.
set -euo pipefail
bin=${1:?usage: tools/docs_cli.sh BIN}

section() {
  printf '\n## `area-scoring %s`\n\n```text\n' "$*"
  env -u AREA_DB -u AREA_KEYS -u AREA_REDIS -u AREA_REDIS_FILE "$bin" "$@"
  printf '```\n'
}

cat <<'HEAD'
# The command line

Each command's `--help`, exactly as `area-scoring` prints it. `make docs-cli`
writes this page from the binary; `make test` (`tests/docs_cli.rs`) fails when
the two differ.
HEAD
section --help
"$bin" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' | awk '!seen[$0]++' |
  while read -r command; do section "$command" --help; done
