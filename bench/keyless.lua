-- wrk script for bench/strangers.sh: requests without a key from COUNT
-- client addresses, named in X-Real-IP (the server believes a loopback front).
--
-- Usage: wrk ... -s bench/keyless.lua URL -- PATH COUNT
-- Half the addresses are IPv4, half IPv6, each in a /64 of its own (the
-- interface bits vary too, so only the /64 makes them one client). Requests
-- go round the addresses in turn; every request is built the same way
-- whatever COUNT, so only the number of clients differs.
-- done() prints the RESULT line of bench/rotate.lua.

local requests_built = {}
local next_index = 1

function init(args)
  local path = args[1]
  local count = tonumber(args[2])
  for i = 0, count - 1 do
    local ip
    local n = math.floor(i / 2)
    if i % 2 == 0 then
      ip = string.format("10.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
    else
      ip = string.format("2001:db8:%x:%x:%x::1", math.floor(n / 65536) % 65536, n % 65536, i % 65536)
    end
    requests_built[#requests_built + 1] = wrk.format("GET", path, { ["X-Real-IP"] = ip })
  end
  next_index = (math.floor(os.clock() * 1000003) % #requests_built) + 1
end

function request()
  local r = requests_built[next_index]
  next_index = next_index % #requests_built + 1
  return r
end

-- RESULT requests_per_s p50_ms p99_ms non_2xx socket_errors requests
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %.1f %.3f %.3f %d %d %d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.status, e.connect + e.read + e.write + e.timeout, summary.requests))
end
