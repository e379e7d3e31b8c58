# gen-big-plan.awk -v N=100000: a YAML cabling plan of N links and about
# N nodes for the loading benchmark (tests/bench/load.sh): hosts h1..h4 on
# two leaves under one spine (the sweep's hosts), and N - 6 more hosts
# x1, x2, ... each cabled to one of N/48 switches s1, s2, ... (48 ports each).
BEGIN {
	print "version: 1"
	print "nodes:"
	print "  - { name: leaf1, type: switch }"
	print "  - { name: leaf2, type: switch }"
	print "  - { name: spine1, type: switch }"
	nsw = int((N - 6) / 48) + 1
	for (s = 1; s <= nsw; s++)
		printf "  - { name: s%d, type: switch }\n", s
	print "links:"
	print "  - [ \"h1:eth0\", \"leaf1:swp1\" ]"
	print "  - [ \"h2:eth0\", \"leaf1:swp2\" ]"
	print "  - [ \"h3:eth0\", \"leaf2:swp1\" ]"
	print "  - [ \"h4:eth0\", \"leaf2:swp2\" ]"
	print "  - [ \"leaf1:swp49\", \"spine1:swp1\" ]"
	print "  - [ \"leaf2:swp49\", \"spine1:swp2\" ]"
	for (i = 1; i <= N - 6; i++)
		printf "  - [ \"x%d:eth0\", \"s%d:swp%d\" ]\n", i, int((i - 1) / 48) + 1, (i - 1) % 48 + 1
}
