-- wrk script for bench/run.sh: owns the request rotation and the result line.
--
-- Usage: wrk ... -s bench/rotate.lua URL -- PATHS_FILE API_KEY [ACCEPT_ENCODING]
-- Each request takes the next path from PATHS_FILE (one request target per
-- line, made by bench/cases.py), so a run spreads over many ids, queries and
-- points instead of measuring one cached answer. Every request carries the
-- Authorization header, and Accept-Encoding when given (bench/gzip.sh).
-- done() prints one machine-readable RESULT line, then a BYTES line.

local paths = {}
local next_index = 1

function init(args)
  local file = assert(io.open(args[1], "r"), "cannot open " .. tostring(args[1]))
  for line in file:lines() do
    if #line > 0 then
      paths[#paths + 1] = line
    end
  end
  file:close()
  assert(#paths > 0, "no paths in " .. args[1])
  wrk.headers["Authorization"] = "Bearer " .. args[2]
  if args[3] and #args[3] > 0 then
    wrk.headers["Accept-Encoding"] = args[3]
  end
  -- Threads start at different points so that two threads never run in step.
  next_index = (math.floor(os.clock() * 1000003) % #paths) + 1
end

function request()
  local path = paths[next_index]
  next_index = next_index % #paths + 1
  return wrk.format("GET", path)
end

-- RESULT requests_per_s p50_ms p99_ms non_2xx socket_errors requests
function done(summary, latency, requests)
  local e = summary.errors
  local seconds = summary.duration / 1e6
  io.write(string.format("RESULT %.1f %.3f %.3f %d %d %d\n",
    summary.requests / seconds,
    latency:percentile(50) / 1000,
    latency:percentile(99) / 1000,
    e.status,
    e.connect + e.read + e.write + e.timeout,
    summary.requests))
  -- BYTES bytes_read_per_answer (head and body, as on the wire)
  io.write(string.format("BYTES %.0f\n", summary.bytes / math.max(summary.requests, 1)))
end
