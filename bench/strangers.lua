-- wrk script for bench/strangers.sh: a stranger's flood, a new random
-- bearer key on every request, on Get Area.
--
-- Usage: wrk ... -s bench/strangers.lua URL -- PATH
-- done() prints the RESULT line of bench/rotate.lua.

local path = "/"

function init(args)
  path = args[1] or "/"
  math.randomseed(os.time() + math.floor(os.clock() * 1000003))
end

function request()
  local key = string.format("ask_%08x%08x%08x%08x", math.random(0, 0x7fffffff),
    math.random(0, 0x7fffffff), math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
  return wrk.format("GET", path, { ["Authorization"] = "Bearer " .. key })
end

-- RESULT requests_per_s p50_ms p99_ms non_2xx socket_errors requests
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %.1f %.3f %.3f %d %d %d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.status, e.connect + e.read + e.write + e.timeout, summary.requests))
end
