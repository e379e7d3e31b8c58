# gen-big-baseline.awk -v PAIRS=400000: a fabricctl.sweep/2 document of
# PAIRS measured pairs among hosts h1..h1000 (about 100 MB at 400k), for
# the --baseline memory benchmark (tests/bench/baseline.sh); h1-h2, h1-h3
# and h2-h3 first, with DEN (default 900.5) as every average.
BEGIN {
	if (DEN == "") DEN = 900.5
	printf "{\n  \"schema\": \"fabricctl.sweep/2\",\n  \"started_unix\": 1796000000,\n  \"pairs\": [\n"
	n = 0
	for (a = 1; n < PAIRS; a++)
		for (b = a + 1; b <= 1000 && n < PAIRS; b++) {
			printf "%s    { \"a\": \"h%d\", \"b\": \"h%d\", \"status\": \"ok\", \"reason\": \"\", \"round\": %d, \"bw_ab\": { \"avg_mbps\": %s, \"min_mbps\": 850.25, \"bytes\": 1125000000, \"secs\": 10.0, \"intervals\": 10 }, \"bw_ba\": { \"avg_mbps\": %s, \"min_mbps\": 850.25, \"bytes\": 1125000000, \"secs\": 10.0, \"intervals\": 10 } }", n ? ",\n" : "", a, b, n % 999 + 1, DEN, DEN
			n++
		}
	printf "\n  ],\n  \"nodes\": [ { \"name\": \"h1\", \"address\": \"10.0.0.1\" } ]\n}\n"
}
