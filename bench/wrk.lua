-- Request generator for bench/run.py. BENCH_MODE picks the request; `done` prints one
-- JSON line the harness parses.
local mode = os.getenv("BENCH_MODE") or "get"
local target = os.getenv("BENCH_PATH") or "/"
local accept = os.getenv("BENCH_ACCEPT")
-- A token sent as `Authorization: Bearer` on GET (the "GET with folder token" row).
local token = os.getenv("BENCH_TOKEN")
local body = string.rep("Benchmark body text, written once per request. ", 40)
local threads = {}
local counter = 0
-- `thread_id` is a global that setup() gives each thread's own Lua state; a local of
-- the same name here would hide it and make every thread write the same notes.

function setup(thread)
  thread:set("thread_id", #threads)
  table.insert(threads, thread)
end

function init(args)
  counter = 0
end

local queries = { "garden", "river", "tag:alpha", "\"quiet morning\"", "moun" }

function request()
  counter = counter + 1
  if mode == "put_new" then
    local path = string.format("/api/v1/notes/bench-new/t%d-%d.md", thread_id, counter)
    return wrk.format("PUT", path, { ["Content-Type"] = "text/markdown" }, body)
  elseif mode == "put_replace" then
    local path = string.format("/api/v1/notes/bench-replace/t%d-%d.md", thread_id, counter % 32)
    return wrk.format("PUT", path, { ["Content-Type"] = "text/markdown" }, body)
  elseif mode == "search" then
    local q = queries[(counter % #queries) + 1]
    q = q:gsub(" ", "%%20"):gsub("\"", "%%22"):gsub(":", "%%3A")
    return wrk.format("GET", "/api/v1/search?q=" .. q .. "&limit=20")
  elseif mode == "toggle" then
    local path = string.format("f%02d/note-%05d.md", (counter * 7 + thread_id) % 20, (counter * 7 + thread_id) % 200)
    return wrk.format("POST", "/api/public/toggle",
      { ["Content-Type"] = "application/x-www-form-urlencoded" }, "path=" .. path)
  end
  local headers = {}
  if accept then headers["Accept"] = accept end
  if token then headers["Authorization"] = "Bearer " .. token end
  return wrk.format("GET", target, headers)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"socket_errors":%d,"non2xx":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
