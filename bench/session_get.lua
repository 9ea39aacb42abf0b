-- session_get.lua — wrk script for sessions.sh: GET /v1/sessions/{id},
-- cycling through the sessions listed in the file $CUBED_SESSIONS (one
-- "id token" per line; 1 line = every connection on one session), with
-- $CUBED_GET_QUERY after the path if set ("?version=20": an old version).
-- Each wrk thread starts at a different line, so -c32 over 32 sessions
-- keeps all of them busy at once.
local reqs, n, i = {}, 0, 0
local query = os.getenv("CUBED_GET_QUERY") or ""

function setup(thread)
	start = (start or 0) + 1
	thread:set("first", start)
end

function init(args)
	local file = assert(os.getenv("CUBED_SESSIONS"), "CUBED_SESSIONS unset")
	for line in io.lines(file) do
		local id = line:match("^(%S+)")
		if id then
			n = n + 1
			reqs[n] = wrk.format("GET", "/v1/sessions/" .. id .. query)
		end
	end
	assert(n > 0, "no sessions in " .. file)
	-- spread the threads' starting points over the list
	i = math.floor((first or 1) - 1) * math.max(1, math.floor(n / 2)) % n
end

function request()
	i = i % n + 1
	return reqs[i]
end
