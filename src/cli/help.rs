//! The help texts of the command line, printed by `--help` and with usage errors.

pub const USAGE: &str = "usage: area-scoring <command> [options]

commands:
  init [--db PATH] [--force]                         create the database from schema.sql and seed/
  import [--db PATH] FILE                            replace the areas with your own (CSV or JSON Lines)
  rollback [--db PATH]                               put back the dataset the last import or init --force replaced
  serve [--db PATH] [--addr HOST:PORT] [--workers N] [--client-timeout SECS] [--metrics-addr HOST:PORT]
                                                     serve the API
  keys create [--db PATH] --plan PLAN [--label TEXT] issue an API key (plans: free, starter, growth, enterprise)
  keys list [--db PATH]                              list keys (ids, never the keys)
  keys revoke [--db PATH] ID                         revoke a key by its id
  --version                                          print the version

environment: AREA_DB, AREA_ADDR, AREA_WORKERS, AREA_CLIENT_TIMEOUT, AREA_METRICS_ADDR
(a flag beats its variable)
run 'area-scoring <command> --help' for more";

pub const INIT_USAGE: &str =
    "usage: area-scoring init [--db PATH] [--force] [--synthetic N [--history-days D]]

Creates the database from schema.sql and the seed places with synthetic scores.
  --db PATH           database file (default data/areas.db, or AREA_DB)
  --force             replace an existing file (its API keys are kept)
  --synthetic N       instead of the seed, N generated areas around the seed places (for benchmarks)
  --history-days D    days of history per generated area (default 400)";

pub const IMPORT_USAGE: &str = "usage: area-scoring import [--db PATH] FILE

Replaces the areas of the database with those in FILE (.csv or .jsonl; see README).
Every row is checked first and every bad row reported; nothing changes unless all are good.
API keys are kept; the replaced dataset is kept as <db>.previous (see rollback). A running server picks up the new file on reload.
  --db PATH   database file (default data/areas.db, or AREA_DB)";

pub const ROLLBACK_USAGE: &str = "usage: area-scoring rollback [--db PATH]

Puts back <db>.previous, the dataset the last import or init --force replaced, in one
rename; the dataset it replaces becomes <db>.previous in turn (rollback again to undo).
A running server picks it up within a second. Exits 1 when there is no previous dataset.
  --db PATH   database file (default data/areas.db, or AREA_DB)";

pub const SERVE_USAGE: &str = "usage: area-scoring serve [--db PATH] [--addr HOST:PORT] [--workers N]
                          [--client-timeout SECS] [--metrics-addr HOST:PORT]

  --db PATH                database file (default data/areas.db, or AREA_DB)
  --addr HOST:PORT         address to listen on (default 127.0.0.1:8080, or AREA_ADDR); port 0 picks a free port
  --workers N              request worker threads, 1 to 256 (default 2 per CPU, or AREA_WORKERS)
  --client-timeout SECS    drop a client that sends or reads nothing for this long, 1 to 3600
                           (default 10, or AREA_CLIENT_TIMEOUT)
  --metrics-addr HOST:PORT serve /metrics there instead of on --addr (or AREA_METRICS_ADDR)

Signals: SIGTERM/SIGINT finish the requests in flight and exit 0; SIGHUP reloads the
database file (replacing the file by a rename is also noticed within a second).";

pub const KEYS_USAGE: &str =
    "usage: area-scoring keys create [--db PATH] --plan PLAN [--label TEXT]
       area-scoring keys list [--db PATH]
       area-scoring keys revoke [--db PATH] ID

  create  prints the new key on stdout, and nothing else; plans: free, starter, growth, enterprise
  list    one line per key: id, plan, label, created, revoked
  revoke  revokes the key with that id";
