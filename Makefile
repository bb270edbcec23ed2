# The two commands a new user needs are `make run` and `make test`.
SHELL := /bin/bash
DB ?= $(or $(AREA_DB),data/areas.db)
BIN := target/release/area-scoring

.PHONY: run build test bench clean

## run: build, create data/areas.db with a development key on first use, then serve
run: build
	@if [ ! -f "$(DB)" ]; then \
	  $(BIN) init --db "$(DB)" && \
	  echo "development key: $$($(BIN) keys create --db "$(DB)" --plan growth --label development)"; \
	fi
	$(BIN) serve --db "$(DB)"

build:
	cargo build --release

## test: every unit and end-to-end test
test:
	cargo test --all-targets

clean:
	cargo clean
	rm -rf data
