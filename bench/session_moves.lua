-- session_moves.lua — wrk script for sessions.sh: POST
-- /v1/sessions/{id}/moves {"moves": "R U"} with the session's write token
-- (Authorization: Bearer …), cycling through the sessions listed in the
-- file $CUBED_SESSIONS (one "id token" per line; 1 line = every connection
-- writes to one session). Each wrk thread starts at a different line.
local reqs, n, i = {}, 0, 0
local body = os.getenv("CUBED_MOVES_BODY") or '{"moves": "R U"}'

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
			reqs[n] = wrk.format("POST", "/v1/sessions/" .. id .. "/moves", {
				["Authorization"] = "Bearer " .. token,
				["Content-Type"] = "application/json",
			}, body)
		end
	end
	assert(n > 0, "no sessions in " .. file)
	i = math.floor((first or 1) - 1) * math.max(1, math.floor(n / 2)) % n
end

function request()
	i = i % n + 1
	return reqs[i]
end
