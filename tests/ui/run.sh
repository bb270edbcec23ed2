#!/usr/bin/env bash
# tests/ui/run.sh: the pages (/, /docs, /explore) in a real headless browser.
#
# `make test-ui` builds the release binary and runs this script, which:
#   1. installs Debian's chromium, chromium-driver and a font
#      (fonts-dejavu-core) with apt-get when one is missing (as root);
#   2. installs the pinned selenium (tests/ui/requirements.txt) into
#      tests/ui/.venv, again whenever the pins change;
#   3. runs tests/ui/test_*.py, each of which starts target/release/area-scoring
#      on a free loopback port over a fresh database with keys made by the
#      CLI, and drives chromium through every test; each page's screenshot is
#      left in tests/ui/screenshots/ (ignored by git).
# The browser never needs the internet: the pages load nothing but the server.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/tests/ui"
VENV="$HERE/.venv"
REQUIREMENTS="$HERE/requirements.txt"

say() { printf 'test-ui: %s\n' "$*"; }
die() { printf 'test-ui: FAIL: %s\n' "$*" >&2; exit 1; }

started=$(date +%s)
[[ -x "$ROOT/target/release/area-scoring" ]] || die "target/release/area-scoring is missing: run 'cargo build --release' (make test-ui does)"

# A font too: without one, chromium lays text out in nothing, and the pages'
# widths and screenshots would not be what a person sees.
PACKAGES=(chromium chromium-driver fonts-dejavu-core)
missing=()
for package in "${PACKAGES[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [[ ${#missing[@]} -gt 0 || ! -x /usr/bin/chromium || ! -x /usr/bin/chromedriver ]]; then
    [[ $(id -u) -eq 0 ]] || die "needs ${PACKAGES[*]} (apt-get install ${PACKAGES[*]}, as root)"
    say "installing ${PACKAGES[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null ||
        die "apt-get install ${PACKAGES[*]} failed"
fi

if ! cmp -s "$REQUIREMENTS" "$VENV/requirements.txt" 2>/dev/null; then
    say "installing selenium into tests/ui/.venv"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
    cp "$REQUIREMENTS" "$VENV/requirements.txt"
fi

mkdir -p "$HERE/screenshots"
cd "$HERE"
"$VENV/bin/python" -m unittest discover -v -s "$HERE" -p 'test_*.py'
say "passed in $(($(date +%s) - started)) s; screenshots in tests/ui/screenshots/"
