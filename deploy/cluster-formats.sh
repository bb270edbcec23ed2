# deploy/cluster-formats.sh: sourced by deploy/cluster-test.sh (section 2b);
# uses its FRONT, KEY, WORK and `check`. The front passes Accept to the
# replicas and lets their Link, X-Total-Count and Content-Disposition headers
# through (docs/api.md, "Representations" and "Export Areas"; the export at its
# CSV path, the search by Accept at its JSON path), and serves the
# browser pages with their headers, `/` chosen by Accept (README, "In a browser");
# Accept-Encoding goes in too, and gzip answers come out as the replica made them.

auth="Authorization: Bearer $KEY"
code=$(curl -s -D "$WORK/csv.head" -o "$WORK/search.csv" -w '%{http_code}' --max-time 5 \
    -H "$auth" -H "Accept: text/csv" "$FRONT/v1/areas/search?q=cape&limit=5&offset=5" || true)
header=$(head -1 "$WORK/search.csv" | tr -d '\r')
rows=$(($(wc -l <"$WORK/search.csv") - 1))
total=$(sed -n 's/^X-Total-Count: \([0-9]*\).*/\1/ip' "$WORK/csv.head" | tr -d '\r')
verdict=1
[[ "$code" == 200 && "$header" == "id,name,province,province_slug,municipality,truth_score,updated_at,lat,lng" &&
    "$rows" -eq 5 && -n "$total" ]] &&
    grep -qi '^Content-Type: text/csv; charset=utf-8' "$WORK/csv.head" &&
    grep -qi '^Link: .*offset=10>; rel="next"' "$WORK/csv.head" && verdict=0
check "CSV search through the front" "$verdict" "Accept: text/csv: status=$code rows=$rows X-Total-Count=$total"

code=$(curl -s -D "$WORK/export.head" -o "$WORK/export.csv" -w '%{http_code}' --max-time 20 \
    -H "$auth" "$FRONT/v1/areas/export.csv" || true)
rows=$(($(wc -l <"$WORK/export.csv") - 1))
listed=$(curl -s --max-time 5 -H "$auth" "$FRONT/v1/areas?limit=1" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["total"])' || echo 0)
verdict=1
[[ "$code" == 200 && "$rows" -eq "$listed" ]] &&
    grep -qi '^Content-Disposition: attachment; filename="areas-[0-9-]*\.csv"' "$WORK/export.head" &&
    verdict=0
check "export through the front" "$verdict" "status=$code rows=$rows of $listed areas; $(grep -i '^Content-Disposition' "$WORK/export.head" | tr -d '\r')"

code=$(curl -s -D "$WORK/landing.head" -o "$WORK/landing.html" -w '%{http_code}' --max-time 5 \
    -H "Accept: text/html,application/xhtml+xml,*/*;q=0.8" "$FRONT/" || true)
index=$(curl -s --max-time 5 "$FRONT/" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["links"]["explore"])' || echo none)
verdict=1
[[ "$code" == 200 && "$index" == /explore ]] &&
    grep -qi '^Content-Type: text/html' "$WORK/landing.head" &&
    grep -qi "^Content-Security-Policy: default-src 'self'" "$WORK/landing.head" &&
    grep -q 'href="/explore"' "$WORK/landing.html" && verdict=0
check "pages through the front" "$verdict" "/ for a browser: status=$code; / for curl links explore to $index"

etag=$(sed -n 's/^ETag: //ip' "$WORK/landing.head" | tr -d '\r')
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H "If-None-Match: $etag" \
    -H "Accept: text/html" "$FRONT/" || true)
check "a page's ETag through the front" "$([[ "$code" == 304 ]] && echo 0 || echo 1)" "If-None-Match $etag: $code"

# Accept-Encoding goes in through its map, and the replica's gzip and its tag
# come out as they are (docs/deployment.md, "What the front is for").
code=$(curl -s -D "$WORK/gzip.head" -o "$WORK/export.csv.gz" -w '%{http_code}' --max-time 20 \
    -H "$auth" -H "Accept-Encoding: gzip" "$FRONT/v1/areas/export.csv" || true)
gzip_etag=$(sed -n 's/^ETag: //ip' "$WORK/gzip.head" | tr -d '\r')
again=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H "$auth" -H "Accept-Encoding: gzip" \
    -H "If-None-Match: $gzip_etag" "$FRONT/v1/areas/export.csv" || true)
verdict=1
[[ "$code" == 200 && "$again" == 304 && "$gzip_etag" == *-gzip\" ]] &&
    grep -qi '^Content-Encoding: gzip' "$WORK/gzip.head" &&
    gzip -dc "$WORK/export.csv.gz" | cmp -s - "$WORK/export.csv" && verdict=0
check "gzip through the front" "$verdict" "status=$code, $(wc -c <"$WORK/export.csv.gz") bytes for $(wc -c <"$WORK/export.csv"), ETag $gzip_etag, again $again"
