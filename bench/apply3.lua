-- apply3.lua — wrk script for run.sh: POST /v1/apply with a small 3×3 body
-- (the request a browser sends for every move it shows). CUBED_APPLY_BODY
-- overrides the body.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = os.getenv("CUBED_APPLY_BODY")
	or [[{"size": 3, "moves": "R U R' U' F2 D' L B2"}]]
