# fabricctl — plain Makefile with pkg-config.
#   make               build ./fabricctl
#   make V=1           show commands
#   make SANITIZE=1    ASan + UBSan build (objects in build/san)
#   make WERROR=1      warnings are errors (CI)
#   make unit          build and run the cmocka unit tests (always sanitized)
#   make check         all test tiers (tests/run-all: unit, fuzz, integration, vm);
#                      root for the lab tiers, clang for fuzz
#   make layers        the layer rule and no two files calling each other
#                      (scripts/check-layers, scripts/check-calls; also in check)
#   make fuzz          build the libFuzzer targets (clang)
#   make bench         benchmarks, printing ratios against reference tools
#   make scale-sim     the scale harness alone (tests/scale; run by tests/bench/scale.sh)
#   make install       PREFIX=/usr/local DESTDIR= (binary, man pages, profiles and
#                      examples in $(PREFIX)/share/fabricctl, bash completion)

PREFIX  ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/fabricctl
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR ?=

CC      ?= cc
PKG_CONFIG ?= pkg-config
PKGS    := libmnl jansson yaml-0.1 lldpctl libibumad libibmad libibnetdisc libibverbs librdmacm

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)

WARN    := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
	   -Wmissing-prototypes -Wpointer-arith -Wundef -Wvla -Wcast-qual \
	   -Wno-unused-parameter
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c17 -D_GNU_SOURCE $(WARN) -Isrc -MMD -MP \
	   -DFAB_VERSION='"$(VERSION)"' $(shell $(PKG_CONFIG) --cflags $(PKGS))
LDLIBS  += $(shell $(PKG_CONFIG) --libs $(PKGS)) -lm

ifeq ($(WERROR),1)
CFLAGS  += -Werror
endif

ifeq ($(SANITIZE),1)
BUILD   := build/san
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
BUILD   := build/rel
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

SRCS     := $(sort $(wildcard src/*.c src/*/*.c))
LIB_SRCS := $(filter-out src/main.c,$(SRCS))
OBJS     := $(SRCS:%.c=$(BUILD)/%.o)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/san/tests/%)

.PHONY: all clean install unit check layers fuzz bench demo lib scale-sim

all: fabricctl

fabricctl: $(BUILD)/fabricctl
	$(Q)cp $< $@.tmp && mv -f $@.tmp $@

$(BUILD)/fabricctl: $(OBJS) $(BUILD)/gen/help_text.o
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# `fabricctl help CMD`: the OPTIONS sections of the man pages, as C (not committed).
$(BUILD)/gen/help_text.c: scripts/man2help $(wildcard man/fabricctl-*.8)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)scripts/man2help $(sort $(wildcard man/fabricctl-*.8)) >$@.tmp && mv -f $@.tmp $@

$(BUILD)/gen/help_text.o: $(BUILD)/gen/help_text.c
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/libfab.a: $(LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

lib: $(BUILD)/libfab.a

# Unit tests: always built with ASan/UBSan against the sanitized objects.
ifeq ($(SANITIZE),1)
build/san/tests/%: tests/unit/%.c build/san/libfab.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CFLAGS) -Itests/unit -o $@ $< build/san/libfab.a $(LDFLAGS) $(LDLIBS) $(shell $(PKG_CONFIG) --libs cmocka)

unit-bins: $(UNIT_BINS)
else
unit-bins:
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 unit-bins
endif

unit: unit-bins
	$(Q)tests/unit/run $(UNIT_BINS)

check: fabricctl unit-bins
	$(Q)tests/run-all

layers: $(BUILD)/fabricctl
	$(Q)scripts/check-layers
	$(Q)scripts/check-calls $(BUILD)

bench: fabricctl
	$(Q)tests/bench/run-all

# Scale harness: a simulated fabric driven through the model (docs/scale.md).
$(BUILD)/tests/scale_sim: tests/scale/scale_sim.c $(BUILD)/libfab.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libfab.a $(LDFLAGS) $(LDLIBS)

scale-sim: $(BUILD)/tests/scale_sim

fuzz:
	$(Q)$(MAKE) --no-print-directory -f tests/fuzz/Makefile

install: fabricctl
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 0755 fabricctl $(DESTDIR)$(SBINDIR)/fabricctl
	for m in man/*.8; do install -m 0644 $$m $(DESTDIR)$(MANDIR)/man8/; done
	for m in $(wildcard man/*.5); do install -m 0644 $$m $(DESTDIR)$(MANDIR)/man5/; done
	install -d $(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(DATADIR)/examples $(DESTDIR)$(BASHCOMPDIR)
	install -m 0644 profiles/*.yaml $(DESTDIR)$(DATADIR)/profiles/
	install -m 0644 $(filter-out examples/kubernetes,$(wildcard examples/*)) $(DESTDIR)$(DATADIR)/examples/
	install -d $(DESTDIR)$(DATADIR)/examples/kubernetes
	install -m 0644 examples/kubernetes/* $(DESTDIR)$(DATADIR)/examples/kubernetes/
	install -m 0644 completion/fabricctl.bash $(DESTDIR)$(BASHCOMPDIR)/fabricctl

clean:
	rm -rf build fabricctl

-include $(OBJS:.o=.d)
