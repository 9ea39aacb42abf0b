-- soak.lua — wrk script for soak.sh: a mixed load over the sessions listed
-- in $CUBED_SESSIONS (one "id token" per line). Every 40 requests of a
-- connection are, in this order of shares:
--   16  GET  /v1/sessions/{id}                 (40 %)
--   12  POST /v1/sessions/{id}/moves           (30 %, with the write token)
--    6  POST /v1/apply                         (15 %)
--    2  GET  /v1/sessions/{id}/history?limit=10 (5 %)
--    2  POST /v1/sessions                      (5 %, a scrambled 3×3)
--    1  POST /v1/sessions/{id}/solve           (2.5 %, two-phase)
--    1  GET  /v1/sessions/{id}?version=1       (2.5 %, time travel)
-- Every one of them answers 2xx when the server is right, so wrk's
-- "Non-2xx" count is the error count.
local ids, tokens, n = {}, {}, 0
local k, s = 0, 0
local kinds = {}

function setup(thread)
	start = (start or 0) + 1
	thread:set("first", start)
end

function init(args)
	local file = assert(os.getenv("CUBED_SESSIONS"), "CUBED_SESSIONS unset")
	for line in io.lines(file) do
		local id, token = line:match("^(%S+)%s+(%S+)")
		if id then
			n = n + 1
			ids[n], tokens[n] = id, token
		end
	end
	assert(n > 0, "no sessions in " .. file)
	s = math.floor((first or 1) - 1) * 7 % n
	local layout = {
		{16, "get"}, {12, "moves"}, {6, "apply"}, {2, "history"},
		{2, "create"}, {1, "solve"}, {1, "past"},
	}
	for _, e in ipairs(layout) do
		for _ = 1, e[1] do kinds[#kinds + 1] = e[2] end
	end
end

local moves = {"R U", "F' D2", "L B'", "U2 R'", "(R U R' U')", "[R, U]"}
local json = {["Content-Type"] = "application/json"}

function request()
	k = k % #kinds + 1
	s = s % n + 1
	local id, kind = ids[s], kinds[k]
	local p = "/v1/sessions/" .. id
	if kind == "get" then
		return wrk.format("GET", p)
	elseif kind == "moves" then
		return wrk.format("POST", p .. "/moves", {
			["Content-Type"] = "application/json",
			["Authorization"] = "Bearer " .. tokens[s],
		}, '{"moves": "' .. moves[k % #moves + 1] .. '"}')
	elseif kind == "apply" then
		return wrk.format("POST", "/v1/apply", json,
			'{"size": 3, "moves": "R U R\' U\' F2 (M E S)2"}')
	elseif kind == "history" then
		return wrk.format("GET", p .. "/history?limit=10")
	elseif kind == "create" then
		return wrk.format("POST", "/v1/sessions", json,
			'{"size": 3, "scramble": true}')
	elseif kind == "solve" then
		return wrk.format("POST", p .. "/solve", json, "{}")
	else
		return wrk.format("GET", p .. "?version=1")
	end
end

-- the status of every non-2xx answer goes to stderr (first 20)
local bad = 0
function response(status, headers, body)
	if status >= 300 and bad < 20 then
		bad = bad + 1
		io.stderr:write("soak.lua: " .. status .. " " .. body:sub(1, 200) .. "\n")
	end
end
