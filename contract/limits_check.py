#!/usr/bin/env python3
"""Spends the budgets that schemathesis never reaches, and reads the 429s.

contract/run.sh runs this last, after schemathesis (a spent keyless budget
would turn the 401s schemathesis expects into 429s for a minute):

    python limits_check.py BASE_URL CLIENT_DIR GROWTH_KEY STARTER_KEY

with CLIENT_DIR holding the package `area_client` that openapi-python-client
generated from the served document. It spends the starter key's budget
(429 rate_limited), asks GET /v1/key what is left as often as it likes (it
spends nothing), then spends its client's keyless budget with a wrong key
(401s, then 429 too_many_unknown_keys, on GET /v1/key too). Each answer is
parsed into the generated models, and its RateLimit-Policy and RateLimit
fields are matched against the served document's patterns.
"""

import re
import sys

BASE, CLIENT_DIR, KEY, STARTER_KEY = sys.argv[1:5]
sys.path.insert(0, CLIENT_DIR)

from area_client import AuthenticatedClient  # noqa: E402
from area_client import models as m  # noqa: E402
from area_client.api.keys import get_key  # noqa: E402

CHECKS = 0
# Far more than any budget: a server that never refuses fails, not loops.
MAX_REQUESTS = 5000


def check(condition, what):
    global CHECKS
    CHECKS += 1
    if not condition:
        raise SystemExit(f"limits check FAILED: {what}")


def client(key):
    return AuthenticatedClient(base_url=BASE, token=key, raise_on_unexpected_status=True)


document = client(KEY).get_httpx_client().get("/v1/openapi.json").json()
PATTERNS = {name: document["components"]["headers"][name]["schema"]["pattern"] for name in ("RateLimit-Policy", "RateLimit")}


def rate_fields(r, policy, limit):
    """RateLimit-Policy and RateLimit as the document writes them, for `policy`."""
    for name, pattern in PATTERNS.items():
        value = r.headers.get(name, "")
        check(re.search(pattern, value), f"{r.status_code}: {name}: {value!r} matches {pattern}")
    check(r.headers["RateLimit-Policy"] == f'"{policy}";q={limit};w=60', f"RateLimit-Policy: {r.headers['RateLimit-Policy']}")
    check(r.headers["RateLimit"].startswith(f'"{policy}";r='), f"RateLimit: {r.headers['RateLimit']}")


def until_429(http, path):
    """Sends GET path until it is refused: every answer, the 429 last."""
    answers = []
    for _ in range(MAX_REQUESTS):
        r = http.get(path)
        answers.append(r)
        if r.status_code == 429:
            return answers
    raise SystemExit(f"limits check FAILED: {path}: no 429 in {MAX_REQUESTS} requests")


# ---- A key's budget --------------------------------------------------------
starter = client(STARTER_KEY)
limit = get_key.sync_detailed(client=starter).parsed.rate_limit.requests_per_minute
answers = until_429(starter.get_httpx_client(), "/v1/areas?limit=1")
check(all(r.status_code == 200 for r in answers[:-1]), "the starter key's requests are answered until its budget is spent")
refused = answers[-1]
error = m.ErrorRateLimited.from_dict(refused.json()).error
check(error.code.value == "rate_limited", f"a spent plan's budget: {error.to_dict()}")
check(refused.headers["Retry-After"].isdigit(), f"Retry-After: {refused.headers.get('Retry-After')}")
rate_fields(refused, "starter", limit)
check(refused.headers["RateLimit"].startswith('"starter";r=0;'), f"nothing left: {refused.headers['RateLimit']}")
check(refused.headers["X-RateLimit-Remaining"] == "0", "X-RateLimit-Remaining: 0")
check("WWW-Authenticate" not in refused.headers, "a valid key is not challenged")

# GET /v1/key spends nothing: asked again and again at once, it answers.
for _ in range(20):
    response = get_key.sync_detailed(client=starter)
    check(response.status_code == 200, f"GET /v1/key with the budget spent: {response.status_code}")
    rate_fields(response, "starter", limit)
    check(
        response.parsed.rate_limit.remaining == int(response.headers["X-RateLimit-Remaining"]),
        "the body and the headers say the same",
    )

# ---- The keyless budget ----------------------------------------------------
stranger = client("not-a-key-" + "0" * 30)
answers = until_429(stranger.get_httpx_client(), "/v1/areas")
# Those of schemathesis's requests without a key that were answered 401 in
# the last minute have spent part of it already.
for r in answers[:-1]:
    check(r.status_code == 401 and r.headers.get("WWW-Authenticate") == "Bearer", f"401 with the challenge: {r.status_code}")
    rate_fields(r, "keyless", 60)
    check("X-RateLimit-Limit" not in r.headers, "no X-RateLimit headers without a valid key")
refused = answers[-1]
error = m.ErrorRateLimited.from_dict(refused.json()).error
check(error.code.value == "too_many_unknown_keys", f"a spent keyless budget: {error.to_dict()}")
check("plan" not in error.message, f"the message names no plan: {error.message}")
check(refused.headers.get("WWW-Authenticate") == "Bearer", "too_many_unknown_keys challenges for a Bearer key")
check(refused.headers["Retry-After"].isdigit(), f"Retry-After: {refused.headers.get('Retry-After')}")
rate_fields(refused, "keyless", 60)
check("X-RateLimit-Limit" not in refused.headers, "no X-RateLimit headers without a valid key")

# GET /v1/key answers a spent keyless budget as its document says.
response = get_key.sync_detailed(client=stranger)
check(response.status_code == 429 and isinstance(response.parsed, m.ErrorRateLimited), f"GET /v1/key: {response.status_code}")
check(response.parsed.error.code.value == "too_many_unknown_keys", f"GET /v1/key: {response.parsed.error.to_dict()}")

# A valid key never spends the keyless budget.
response = get_key.sync_detailed(client=client(KEY))
check(response.status_code == 200, f"the growth key after the keyless budget is spent: {response.status_code}")
print(f"limits check: PASS: {CHECKS} checks")
