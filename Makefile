# The two commands a new user needs are `make run` and `make test`.
SHELL := /bin/bash
DB ?= $(or $(AREA_DB),data/areas.db)
BIN := target/release/area-scoring

.PHONY: run build install test query-cost docs-cli openapi seed-boundaries test-ui bench bench-layer bench-build contract cluster-test redis-test clean

## run: build, create data/areas.db with a development key on first use, then serve
run: build
	@if [ ! -f "$(DB)" ]; then \
	  $(BIN) init --db "$(DB)" && \
	  echo "development key: $$($(BIN) keys create --db "$(DB)" --new-keys-file --plan growth --label development)"; \
	fi
	$(BIN) serve --db "$(DB)"

build:
	cargo build --release

## install: copy the release binary to $(DESTDIR)$(PREFIX)/bin/area-scoring (default /usr/local/bin); build it first
PREFIX ?= /usr/local
install:
	@test -x $(BIN) || { echo "$(BIN) is missing: run 'make build' (or 'make run') first" >&2; exit 1; }
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 $(BIN) "$(DESTDIR)$(PREFIX)/bin/area-scoring"

## test: every unit and end-to-end test (with the test-only fault-injection route);
## tests/trusted_front.rs needs iproute2's ip (installed with apt-get when missing)
## and a network namespace of its own (unshare -rn)
test:
	@command -v ip >/dev/null || bash deploy/apt-install.sh iproute2 || \
	  { echo "make test needs ip: apt-get install iproute2, as root" >&2; exit 1; }
	@unshare -rn true 2>/dev/null || { echo "make test needs user namespaces for \
	tests/trusted_front.rs (unshare -rn true failed: a container's seccomp or AppArmor \
	profile may forbid them)" >&2; exit 1; }
	cargo test --all-targets --features fault-injection

## query-cost: tests/query_cost.rs on the release build, whose bounds it checks:
## a hostile query costs at most 3x a route's plain request (or /healthz's, where the route's is
## cheaper) and 0.5 ms of server CPU
query-cost:
	cargo test --release --test query_cost -- --include-ignored --nocapture

## docs-cli: write docs/cli.md, each command's --help as the (debug) binary prints it;
## make test fails when the page and the binary differ
docs-cli:
	cargo build --quiet
	bash tools/docs_cli.sh target/debug/area-scoring > docs/cli.md.new && mv docs/cli.md.new docs/cli.md

## openapi: write docs/openapi.json, the OpenAPI document as the (debug) binary prints it;
## make test fails when the file and the binary differ
openapi:
	cargo build --quiet
	target/debug/area-scoring openapi > docs/openapi.json.new && mv docs/openapi.json.new docs/openapi.json

## seed-boundaries: write seed/boundaries.csv, the generated (not official) cells of the
## seed places (tools/seed_boundaries.py), with a pinned shapely in tools/.venv-boundaries
seed-boundaries:
	@test -x tools/.venv-boundaries/bin/python || { python3 -m venv tools/.venv-boundaries && \
	  tools/.venv-boundaries/bin/pip install --quiet -r tools/requirements-boundaries.txt; }
	tools/.venv-boundaries/bin/python tools/seed_boundaries.py

## test-ui: the pages (/, /docs, /explore) in Debian's headless chromium via selenium
## (installs chromium, chromium-driver and a pinned selenium in tests/ui/.venv when missing)
test-ui: build
	bash tests/ui/run.sh

## bench: load-test every endpoint at 100,000 areas against nginx serving the same bytes
bench: build
	bash bench/run.sh

## bench-layer: the HTTP layer against nginx and the axum peer (../shared/anchors), and held connections
bench-layer: build
	bash bench/layer.sh

## bench-build: peak memory and time of import (400,000 rows) and, with BUILD=million, of a million-area import and init
bench-build: build
	bash bench/build_memory.sh $(if $(filter million,$(BUILD)),--million)

## contract: check the server against docs/openapi.json with schemathesis
contract: build
	bash contract/run.sh

## cluster-test: nginx in front of two replicas; one dies mid-run, every request is still answered
cluster-test: build
	bash deploy/cluster-test.sh

## redis-test: two servers and an admin host sharing keys, budgets and usage through Redis
## (installs redis-server with apt-get when missing; starts it on a free port)
redis-test:
	bash deploy/redis-test.sh

clean:
	cargo clean
	rm -rf data
