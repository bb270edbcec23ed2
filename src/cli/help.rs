//! The help texts of the command line, printed by `--help` and with usage errors.

pub const USAGE: &str = "usage: area-scoring <command> [options]

commands:
  init [--db PATH] [--force]                         create the database from schema.sql and seed/
  import [--db PATH] [--allow-shrink] [--check] FILE replace the areas with your own (CSV or JSON Lines)
  rollback [--db PATH]                               put back the dataset the last import or init --force replaced
  upgrade [--db PATH] [FILE]                         rewrite a dataset of an older layout in the current one
  openapi                                            print the OpenAPI document of the API (docs/openapi.json)
  info [--db PATH] [--format text|json] [FILE]       what a dataset was made from: when, which file and hash, build, areas
  serve [--db PATH] [--keys PATH] [--redis URL] [--addr HOST:PORT] [--workers N]
        [--client-timeout SECS] [--metrics-addr HOST:PORT] [--max-connections N]
        [--max-connections-per-address N] [--max-exports-per-key N]
        [--access-log all|errors|off] [--trusted-front ADDR[,ADDR...]]
                                                     serve the API
  keys create --plan PLAN [--label TEXT] [--format key|json] [--new-keys-file]
                                                     issue an API key (plans: free, starter, growth, enterprise)
  keys list [--format table|csv|json]                list keys (ids, never the keys), last use, 30-day requests
  keys revoke ID                                     revoke a key by its id
  keys set ID [--plan PLAN] [--label TEXT]           move a key to another plan, or relabel it
  keys usage [--month YYYY-MM] [--from DATE] [--to DATE] [--tz ZONE] [--by key|day] [--key ID]
        [--format table|csv|json]                    each key's requests and plans over a month, for invoices
  keys migrate FILE...                               merge the keys of old dataset files or replica copies
  keys migrate --redis URL                           copy the keys file and its usage into Redis (or AREA_REDIS)
  plans list                                         each plan's requests a minute
  plans set PLAN --rpm N|unlimited [--new-keys-file] change a plan's requests a minute
  backup DIR                                         copy the keys, usage and dataset files into DIR
  restore [--yes] DIR                                put back what backup DIR wrote, with servers stopped
  --version                                          print the version
every command takes --db PATH (the dataset) and --keys PATH (the keys file, by default
keys.db in the dataset's folder; the usage file is keys-usage.db beside it; a key command
makes that default only with --new-keys-file, and names the file it used), and --redis URL:
keys, plans, budgets and usage in Redis, shared by every host, instead of those files
(docs/operations.md, \"Keys\"); a password goes only in a file of mode 0640 or 0600 named by
AREA_REDIS_FILE, holding redis://user:password@host:port[/db], or in AREA_REDIS

environment: AREA_DB, AREA_KEYS, AREA_REDIS_FILE, AREA_REDIS, AREA_ADDR, AREA_WORKERS, AREA_CLIENT_TIMEOUT,
  AREA_METRICS_ADDR, AREA_MAX_CONNECTIONS, AREA_MAX_CONNECTIONS_PER_ADDRESS, AREA_MAX_EXPORTS_PER_KEY,
  AREA_ACCESS_LOG, AREA_TRUSTED_FRONT, AREA_INSTANCE
(a flag beats its variable)
run 'area-scoring <command> --help' for more";

pub const INIT_USAGE: &str =
    "usage: area-scoring init [--db PATH] [--force] [--synthetic N [--history-days D]]

Creates the database from schema.sql and the seed places with synthetic scores.
  --db PATH           database file (default data/areas.db, or AREA_DB)
  --force             replace an existing file, kept as <db>.previous (API keys are in the keys file, untouched)
  --synthetic N       instead of the seed, N generated areas around the seed places (for benchmarks)
  --history-days D    days of history per generated area (default 400)
  --redis URL         keys, plans, budgets and usage in Redis, shared by every host: redis://host:port[/db]
                      (or AREA_REDIS_FILE, a file of mode 0640 or 0600 holding it, or AREA_REDIS: a password only there)";

pub const IMPORT_USAGE: &str = "usage: area-scoring import [--db PATH] [--allow-shrink] [--ignore-column NAME]...
                           [--delimiter ,|;|tab] [--decimal-comma]
                           [--region MIN_LNG,MIN_LAT,MAX_LNG,MAX_LAT] [--check] FILE

Replaces the areas of the database with those in FILE (.csv, .jsonl, or .geojson / .geojsons
with boundaries; the formats are in docs/import.md).
Every row is checked first and every bad row reported; nothing changes unless all are good.
A file that would remove more than 20% of the served areas, or move more than 20% of them
to another province (10 areas or more either way), is refused and nothing changes, unless
--allow-shrink is given. A file holding the same areas as the served dataset changes nothing.
Every area must lie in the dataset's region, South Africa's box unless --region sets another;
one far from its province is a warning, and imported (docs/import.md, \"Coordinates\").
API keys are in the keys file, untouched. The replaced dataset is kept as <db>.previous,
the older ones as <db>.previous.2 and <db>.previous.3 (see rollback). A running server
picks up the new file within a second.
  --db PATH             database file (default data/areas.db, or AREA_DB)
  --allow-shrink        replace the areas even when many would be removed or moved
  --check               check FILE and say what the import would change (added, removed,
                        rescored, unchanged), writing nothing; exit 1 when it would fail
  --region BOX          MIN_LNG,MIN_LAT,MAX_LNG,MAX_LAT: the box every area must lie in
  --ignore-column NAME  read past the CSV column NAME (a spreadsheet's notes); repeatable
  --delimiter C         the CSV separator: , ; or tab (default: ; when the header has one and no ,)
  --decimal-comma       every CSV decimal is written with a comma (6,25); default: either, one way throughout
  --redis URL           keys, plans, budgets and usage in Redis, shared by every host: redis://host:port[/db]
                        (or AREA_REDIS_FILE, a file of mode 0640 or 0600 holding it, or AREA_REDIS: a password only there)";

pub const ROLLBACK_USAGE: &str = "usage: area-scoring rollback [--db PATH]

Puts back <db>.previous, the dataset the last import or init --force replaced, in one
rename, and says which (its file, when it was written, its areas). The older kept datasets
(<db>.previous.2, <db>.previous.3) move up a place and the one it replaces is kept last, so
each rollback steps one dataset further back, then round to the newest; with one kept,
rollback again to undo. A running server picks it up within a second. Exits 1 when there
is no previous dataset.
API keys are in the keys file, untouched (--keys is accepted and not needed).
  --db PATH   database file (default data/areas.db, or AREA_DB)";

pub const UPGRADE_USAGE: &str = "usage: area-scoring upgrade [--db PATH] [FILE]

Rewrites a dataset file (FILE, else the dataset) of an older layout in the current one: its
areas are read and built anew as an import builds them, the new file is renamed over the
old, which is kept as <db>.previous (see rollback), and a running server picks it up within
a second. The server opens the current layout only. A file already
current is left as it is. A file that still holds API keys is refused: move them out first
with keys migrate FILE.
  --db PATH   the dataset when no FILE is given (default data/areas.db, or AREA_DB)
API keys are in the keys file, untouched (--keys is accepted and not needed).";

pub const INFO_USAGE: &str = "usage: area-scoring info [--db PATH] [--format text|json] [FILE]

Prints what a dataset file records of itself: when it was made (UTC), from which file (its
name and the SHA-256 of its bytes; init records seed, synthetic areas no hash), by which
build, and its area count. A file made before datasets recorded this prints unknown.
Exits 1 when the file is not an area-scoring dataset.
  --db PATH      the dataset when no FILE is given (default data/areas.db, or AREA_DB)
  --format F     text (default) or json
API keys are in the keys file, untouched (--keys is accepted and not needed).";

pub const OPENAPI_USAGE: &str = "usage: area-scoring openapi

Prints the OpenAPI 3.1 document of the API on stdout: what GET /v1/openapi.json serves and
docs/openapi.json holds, built from the server's own contract (make openapi writes the file).
Reads no dataset and no keys (--db and --keys are accepted and not needed).";

pub const SERVE_USAGE: &str = "usage: area-scoring serve [--db PATH] [--keys PATH] [--redis URL]
                          [--addr HOST:PORT] [--workers N]
                          [--client-timeout SECS] [--metrics-addr HOST:PORT]
                          [--max-connections N] [--max-connections-per-address N]
                          [--max-exports-per-key N] [--access-log all|errors|off]
                          [--trusted-front ADDR[,ADDR...]]

  --db PATH                database file (default data/areas.db, or AREA_DB)
  --keys PATH              keys file, shared by replicas (default keys.db beside the database, or AREA_KEYS)
  --addr HOST:PORT         address to listen on (default 127.0.0.1:8080, or AREA_ADDR); port 0 picks a free port
  --workers N              request worker threads, 1 to 256 (default 2 per CPU, or AREA_WORKERS)
  --client-timeout SECS    drop a client that sends or reads nothing for this long, 1 to 3600
                           (default 10, or AREA_CLIENT_TIMEOUT)
  --metrics-addr HOST:PORT serve /metrics there instead of on --addr (or AREA_METRICS_ADDR)
  --max-connections N      client connections open at most; past it the longest idle closes
                           (default 10000, never above the descriptor limit less 64,
                           or AREA_MAX_CONNECTIONS)
  --max-connections-per-address N
                           connections per client address (IPv6: per /64), loopback and trusted
                           fronts not counted; 0 for no cap (default 64, or AREA_MAX_CONNECTIONS_PER_ADDRESS)
  --max-exports-per-key N  exports one key may stream at once, 1 to 4, the server's most
                           (default 2, or AREA_MAX_EXPORTS_PER_KEY)
  --access-log all|errors|off
                           which answers get an access line: all, those of status 400 and above,
                           or none (default all, or AREA_ACCESS_LOG)
  --trusted-front ADDR[,ADDR...]
                           IP addresses of fronts on other hosts (nginx) whose X-Real-IP is
                           believed: requests without a key are limited per real client. A front
                           on loopback is always believed (or AREA_TRUSTED_FRONT)
  --redis URL              keys, plans, budgets and usage in Redis, shared with every host, instead of
                           the keys file: redis://host:port[/db] (or AREA_REDIS_FILE, a file of mode
                           0640 or 0600 holding it, or AREA_REDIS: a password only there); a snapshot of the keys
                           and a spool of usage Redis did not take are kept beside --keys, named by
                           AREA_INSTANCE (default: the address)

Signals: SIGTERM/SIGINT finish the requests in flight and exit 0; SIGHUP reloads the
database file (replacing the file by a rename is also noticed within a second).
A change to the keys file takes effect within a second.";

pub const KEYS_USAGE: &str = "usage: area-scoring keys create --plan PLAN [--label TEXT] [--format key|json] [--new-keys-file]
       area-scoring keys list [--format table|csv|json]
       area-scoring keys revoke ID
       area-scoring keys set ID [--plan PLAN] [--label TEXT]
       area-scoring keys usage [--month YYYY-MM] [--from DATE] [--to DATE] [--tz ZONE] [--by key|day]
                               [--key ID] [--format table|csv|json]
       area-scoring keys migrate [--new-keys-file] FILE...
       area-scoring keys migrate --redis URL [--keys FILE]
each also takes --db PATH and --keys PATH (the keys file the servers read: --keys, else AREA_KEYS,
else keys.db beside the database), and --redis URL (or AREA_REDIS_FILE or AREA_REDIS; a password
only there): keys, plans and usage in Redis, with no dataset nor keys file needed; migrate then
copies the keys file into Redis. Each names on stderr the keys file (or Redis) it used.
A keys file named by --keys or AREA_KEYS is made by create and migrate when missing; the default
beside the database only with --new-keys-file: without it, a command that finds no keys file
there fails, saying where it looked, and makes none

  create   prints the new key on stdout, and nothing else; with --format json, one JSON object:
           {\"key_id\": ..., \"key\": ..., \"plan\": ..., \"label\": ...}; the id is also said on stderr;
           plans: free, starter, growth, enterprise
  list     a header, then one line per key, tab-separated: key_id, plan, label, created_at,
           revoked_at, last_used, requests_30d (the last 30 days), - where there is none;
           --format csv (empty where there is none) or json (an array of objects, null where none)
  revoke   revokes the key with that id, on every server sharing the keys file within a second
  set      moves a key to another plan or gives it another label; the key itself stays the same
  usage    each key's requests over the days asked (an invoice): key_id, label, plans (the plan held
           when the period began, then each change: \"free, growth from 2026-11-15\"), revoked_at, ok (2xx, 3xx),
           client_errors (4xx but 429), rate_limited (429), server_errors (5xx, not to bill); every
           key that existed then is listed, with zeros where it has no usage, and an unknown --key
           is an error; --by day gives a row per key and day with usage instead; --month YYYY-MM
           is a whole month, --from and --to take a day YYYY-MM-DD or a month YYYY-MM (inclusive),
           by default the last 30 days; --tz ZONE cuts days in an IANA zone (Africa/Johannesburg;
           UTC by default), refused if it is not a whole number of hours from UTC then;
           json gives each plan with the time it began
  migrate  merges the keys of old dataset files or replica copies into the keys file: a key
           revoked in any of them stays revoked; with Redis, copies the keys file (keys,
           revocations, labels, plans, usage) into Redis, then renames it keys.db.migrated;
           running it again changes nothing";

pub const PLANS_USAGE: &str = "usage: area-scoring plans list
       area-scoring plans set PLAN --rpm N|unlimited [--new-keys-file]
each also takes --db PATH and --keys PATH, and --redis URL (or AREA_REDIS_FILE or AREA_REDIS; a
password only there): plans in Redis, shared by every host, with no dataset nor keys file needed.
The keys file is found as for keys (see: area-scoring keys --help): set makes the default one
beside the database only with --new-keys-file

  list  each plan with its requests a minute
  set   changes a plan's requests a minute (1 to 1000000, or unlimited), on every server
        sharing the keys file within a second";

pub const BACKUP_USAGE: &str = "usage: area-scoring backup [--db PATH] [--keys PATH] DIR

Writes consistent copies of the keys file, the usage file and the dataset into DIR
(created if missing), through SQLite's backup API, each with its source's mode.
Safe while servers run. Put them back with area-scoring restore DIR.
  --redis URL   with Redis (or AREA_REDIS_FILE or AREA_REDIS; a password only there): writes what Redis holds
                into a keys file and a usage file of the same kind, so either set-up restores";

pub const RESTORE_USAGE: &str = "usage: area-scoring restore [--db PATH] [--keys PATH] [--yes] DIR

Puts back the keys file, the usage file and the dataset that backup DIR wrote, each one DIR
holds, under the names --keys and --db give. Each is checked first (an SQLite file of its
kind, passing SQLite's quick_check): a refused one changes nothing. Refused while a server
uses the keys file, naming each one (pid, unit, command) to stop first. Lists what the
restore undoes (keys revoked, created or moved to another plan since the backup, usage
counted since) and then restores only with --yes. Each file is copied beside the live one
with its mode and owner, the live one's -wal, -shm and -journal removed, then renamed in;
the dataset it replaces is kept as for an import, so rollback undoes it.
  --yes         restore even when that undoes the changes listed
  --redis URL   with Redis (or AREA_REDIS_FILE or AREA_REDIS): only the dataset is restored;
                keys and usage stay as Redis holds them";
