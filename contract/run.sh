#!/usr/bin/env bash
# contract/run.sh: proves that the server answers as docs/openapi.json says.
#
# `make contract` builds the release binary and runs this script, which:
#   1. checks that docs/openapi.json is what the binary's `openapi` command prints;
#   2. installs a pinned schemathesis into contract/.venv and a pinned
#      openapi-python-client (contract/requirements-client.txt) into
#      contract/.venv-client (once), and GDAL's ogrinfo (gdal-bin) with apt-get
#      when it is missing;
#   3. makes a fresh seeded database in a temporary directory, issues a growth
#      and a starter key, and starts target/release/area-scoring on a free
#      loopback port;
#   4. checks that GET /v1/openapi.json serves docs/openapi.json byte for byte;
#   5. generates a Python client from the served document with
#      openapi-python-client and calls every operation through it
#      (contract/client_check.py);
#   5b. generates TypeScript types from docs/openapi.json with the pinned
#      openapi-typescript of contract/ts/package-lock.json (npm ci into
#      contract/ts/node_modules when missing or when the lock changed, and
#      node and npm with apt-get when missing), compiles contract/ts's client
#      under tsc --strict, which fails unless List's and Search's `data.total`
#      type-check with no narrowing, and runs it with node against the server
#      through openapi-fetch (contract/ts/client_check.ts);
#   6. has ogrinfo read Search's and the export's GeoJSON and CSV answers
#      (contract/ogr_check.py);
#   7. runs schemathesis against the served document with every check, every
#      phase (examples, coverage, fuzzing, stateful) and both positive and
#      negative data, as the growth key, with a bounded number of examples
#      (contract/hooks.py keeps positive data to the rules the document states
#      in prose only: see there);
#   8. spends the budgets schemathesis never reaches, through the generated
#      client: the starter key's (429 rate_limited; GET /v1/key still
#      answers) and its client's keyless one (401s, then 429
#      too_many_unknown_keys), and checks their RateLimit fields against the
#      document (contract/limits_check.py);
#   9. exits non-zero on any failure; the trap stops the server and removes
#      the temporary directory whatever happens.
#
# Knobs (environment): CONTRACT_EXAMPLES (examples per operation, default 100),
# CONTRACT_SEED (default 20261122, so that a run can be repeated exactly),
# CONTRACT_WORKERS (default 1), CONTRACT_MAX_TIME (seconds, default 600),
# CONTRACT_SERVE_ARGS (extra flags for `area-scoring serve`, default none).
# The server's log and schemathesis's JUnit report are left in contract/reports/.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN="$ROOT/target/release/area-scoring"
VENV="$ROOT/contract/.venv"
CLIENT_VENV="$ROOT/contract/.venv-client"
CLIENT_REQUIREMENTS="$ROOT/contract/requirements-client.txt"
TS="$ROOT/contract/ts"
REPORTS="$ROOT/contract/reports"
SCHEMATHESIS_VERSION=4.32.5
EXAMPLES=${CONTRACT_EXAMPLES:-100}
SEED=${CONTRACT_SEED:-20261122}
# One worker: with two, schemathesis 4.32.5 (hypothesis 6.170) now and then
# fails inside its own generation (a KeyError from hypothesis's lambda-source
# cache shared between threads, reported as "Inconsistent results").
WORKERS=${CONTRACT_WORKERS:-1}
MAX_TIME=${CONTRACT_MAX_TIME:-600}
read -r -a SERVE_ARGS <<<"${CONTRACT_SERVE_ARGS:-}"

say() { printf 'contract: %s\n' "$*"; }
die() { printf 'contract: FAIL: %s\n' "$*" >&2; exit 1; }

started=$(date +%s)

[[ -x "$BIN" ]] || die "$BIN is missing: run 'cargo build --release' (make contract does)"

# A temporary directory for the database and logs; the trap stops the server
# and removes it, whatever happens.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/area-contract.XXXXXX")
SERVER_PID=""
cleanup() {
    local status=$?
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    mkdir -p "$REPORTS"
    for f in server.log client_check.txt ts_check.txt ogr_check.txt schemathesis.txt limits_check.txt; do
        [[ -f "$WORK/$f" ]] && cp "$WORK/$f" "$REPORTS/$f"
    done
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. The document is built by the binary from its own contract; a hand edit of
#    the JSON, or a change not written out with `make openapi`, is caught here
#    (as `make test` catches it) rather than tested against.
"$BIN" openapi | cmp -s - "$ROOT/docs/openapi.json" ||
    die "docs/openapi.json differs from \`area-scoring openapi\`: run make openapi"

# 2. schemathesis in a local virtualenv, pinned. Done before the server starts,
#    so that a slow first install never leaves the server idle.
if [[ ! -x "$VENV/bin/schemathesis" ]] ||
    [[ "$("$VENV/bin/schemathesis" --version 2>/dev/null)" != *"$SCHEMATHESIS_VERSION"* ]]; then
    say "installing schemathesis $SCHEMATHESIS_VERSION into contract/.venv"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
#    The client generator in a venv of its own, so that its dependencies and
#    schemathesis's never have to agree; reinstalled when the pins change.
if ! cmp -s "$CLIENT_REQUIREMENTS" "$CLIENT_VENV/requirements.txt" 2>/dev/null; then
    say "installing openapi-python-client into contract/.venv-client"
    rm -rf "$CLIENT_VENV"
    python3 -m venv "$CLIENT_VENV"
    "$CLIENT_VENV/bin/pip" install --quiet --disable-pip-version-check -r "$CLIENT_REQUIREMENTS"
    cp "$CLIENT_REQUIREMENTS" "$CLIENT_VENV/requirements.txt"
fi
#    The TypeScript check's node and npm, from Debian, and its pinned npm
#    packages in contract/ts/node_modules, installed again when the lock
#    changes (npm ci installs exactly what package-lock.json names).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    # shellcheck source=../deploy/apt-install.sh
    source "$ROOT/deploy/apt-install.sh"
    apt_install nodejs npm || die "needs node and npm (apt-get install nodejs npm, as root)"
fi
if ! cmp -s "$TS/package-lock.json" "$TS/node_modules/.contract-lock.json" 2>/dev/null; then
    say "installing the TypeScript check's npm packages into contract/ts/node_modules"
    rm -rf "$TS/node_modules"
    (cd "$TS" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error) >"$WORK/npm.txt" 2>&1 ||
        { cat "$WORK/npm.txt" >&2; die "npm ci in contract/ts failed"; }
    cp "$TS/package-lock.json" "$TS/node_modules/.contract-lock.json"
fi
#    GDAL's ogrinfo, from Debian.
if ! command -v ogrinfo >/dev/null; then
    [[ $(id -u) -eq 0 ]] || die "needs ogrinfo (apt-get install gdal-bin, as root)"
    say "installing gdal-bin"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gdal-bin >/dev/null ||
        die "apt-get install gdal-bin failed"
fi

# 3. A fresh database, a growth key and a server on a free loopback port.
DB="$WORK/areas.db"
"$BIN" init --db "$DB" >/dev/null 2>&1
KEY=$("$BIN" keys create --db "$DB" --new-keys-file --plan growth --label contract 2>/dev/null)
[[ "$KEY" =~ ^[A-Za-z0-9_]+$ ]] || die "keys create printed something other than a key"
#    A starter key, for the answers a lower plan gets (403 on history and export).
STARTER_KEY=$("$BIN" keys create --db "$DB" --plan starter --label contract-starter 2>/dev/null)
[[ "$STARTER_KEY" =~ ^[A-Za-z0-9_]+$ ]] || die "keys create printed something other than a key"

"$BIN" serve --db "$DB" --addr 127.0.0.1:0 "${SERVE_ARGS[@]}" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!

BASE=""
for _ in $(seq 1 100); do
    BASE=$(grep -o -m1 'listening on http://127\.0\.0\.1:[0-9]*' "$WORK/server.log" 2>/dev/null | sed 's/^listening on //' || true)
    [[ -n "$BASE" ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; die "the server exited at start"; }
    sleep 0.1
done
[[ -n "$BASE" ]] || die "the server did not report its address within 10 s"
say "server on $BASE (pid $SERVER_PID)"

# 4. The server embeds docs/openapi.json at build time; a binary built before
#    the last change to the document would test an old contract.
curl -fsS --max-time 5 "$BASE/v1/openapi.json" -o "$WORK/served.json" ||
    die "GET /v1/openapi.json failed"
cmp -s "$WORK/served.json" "$ROOT/docs/openapi.json" ||
    die "the server serves another document than docs/openapi.json: rebuild (cargo build --release)"

# 5. A client generated from the served document, as a user would make it,
#    calls every operation. ruff, which the generator runs on its output, is
#    in the venv's bin.
say "openapi-python-client: generating a client from $BASE/v1/openapi.json"
PATH="$CLIENT_VENV/bin:$PATH" "$CLIENT_VENV/bin/openapi-python-client" generate \
    --url "$BASE/v1/openapi.json" --meta none --config "$ROOT/contract/client-config.yaml" \
    --output-path "$WORK/client/area_client" \
    >"$WORK/generate.txt" 2>&1 || { cat "$WORK/generate.txt" >&2; die "openapi-python-client could not generate a client"; }
if grep -q 'Warning' "$WORK/generate.txt"; then
    cat "$WORK/generate.txt" >&2
    die "openapi-python-client skipped part of the document"
fi
"$CLIENT_VENV/bin/python" "$ROOT/contract/client_check.py" "$BASE" "$WORK/client" "$KEY" "$STARTER_KEY" 2>&1 |
    tee "$WORK/client_check.txt" || die "the generated client's calls failed"

# 5b. A TypeScript client: types from docs/openapi.json (which the server
#    serves byte for byte, step 4), compiled under --strict, run with node.
say "openapi-typescript: types from docs/openapi.json; tsc --strict; node against $BASE"
rm -rf "$TS/generated"
(cd "$TS" && ./node_modules/.bin/openapi-typescript "$ROOT/docs/openapi.json" -o generated/schema.d.ts) \
    >"$WORK/ts_generate.txt" 2>&1 || { cat "$WORK/ts_generate.txt" >&2; die "openapi-typescript could not read the document"; }
(cd "$TS" && ./node_modules/.bin/tsc -p tsconfig.json --strict) >"$WORK/ts_compile.txt" 2>&1 ||
    { cat "$WORK/ts_compile.txt" >&2; die "tsc --strict refused the TypeScript client (contract/ts/client_check.ts)"; }
node "$TS/generated/js/client_check.js" "$BASE" "$KEY" 2>&1 | tee "$WORK/ts_check.txt" ||
    die "the TypeScript client's calls failed"

# 6. GDAL reads the GeoJSON and CSV answers.
mkdir -p "$WORK/ogr"
python3 "$ROOT/contract/ogr_check.py" "$BASE" "$KEY" "$WORK/ogr" 2>&1 | tee "$WORK/ogr_check.txt" ||
    die "ogrinfo did not read what the API says"

# 7. Every check; every phase; positive and negative data. `timeout` bounds
#    the run (schemathesis's own --max-time would instead repeat fuzzing until
#    the time is spent).
mkdir -p "$REPORTS"
say "schemathesis $SCHEMATHESIS_VERSION: $EXAMPLES examples per operation, seed $SEED, $WORKERS workers"
set +e
SCHEMATHESIS_HOOKS=hooks PYTHONPATH="$ROOT/contract" \
    timeout "$MAX_TIME" "$VENV/bin/schemathesis" --no-color --config-file "$ROOT/contract/schemathesis.toml" run \
    "$BASE/v1/openapi.json" \
    --url "$BASE" \
    --header "Authorization: Bearer $KEY" \
    --checks all \
    --mode all \
    --phases examples,coverage,fuzzing,stateful \
    --max-examples "$EXAMPLES" \
    --seed "$SEED" \
    --workers "$WORKERS" \
    --request-timeout 10 \
    --output-sanitize true \
    --report junit --report-junit-path "$REPORTS/junit.xml" \
    2>&1 | tee "$WORK/schemathesis.txt"
result=${PIPESTATUS[0]}
set -e

# The server must still be up and healthy after the run.
server_still_well() {
    kill -0 "$SERVER_PID" 2>/dev/null || die "the server died during the run (see contract/reports/server.log)"
    curl -fsS --max-time 5 "$BASE/healthz" >/dev/null || die "the server stopped answering /healthz after the run"
    if grep -q 'panicked' "$WORK/server.log"; then
        grep 'panicked' "$WORK/server.log" | head -5 >&2
        die "a handler panicked during the run"
    fi
}
server_still_well

elapsed=$(($(date +%s) - started))
requests=$(grep -c ' INFO .* [A-Z]* /' "$WORK/server.log" || true)
if [[ "$result" -eq 124 ]]; then
    die "schemathesis did not finish within ${MAX_TIME}s (CONTRACT_MAX_TIME); $requests requests served"
elif [[ "$result" -ne 0 ]]; then
    die "schemathesis found failures (exit $result) after ${elapsed}s, $requests requests served"
fi

# 8. Last, because a spent keyless budget turns the 401s schemathesis
#    expects into 429s for a minute.
"$CLIENT_VENV/bin/python" "$ROOT/contract/limits_check.py" "$BASE" "$WORK/client" "$KEY" "$STARTER_KEY" 2>&1 |
    tee "$WORK/limits_check.txt" || die "the rate limits' answers are not what the document says"
server_still_well

elapsed=$(($(date +%s) - started))
requests=$(grep -c ' INFO .* [A-Z]* /' "$WORK/server.log" || true)
say "PASS: no failures; ${elapsed}s in all, $requests requests served"
