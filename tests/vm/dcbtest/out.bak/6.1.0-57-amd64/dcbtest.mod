/work/main/tests/vm/dcbtest/out/6.1.0-57-amd64/dcbtest.o
