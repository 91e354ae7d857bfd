# exwiw: PGXS build.
#
#   make && make install          build and install the extension and the exwiw
#                                 client (client/) against pg_config
#   make installcheck             run the pg_regress suite, the isolation
#                                 specs and the TAP tests against a server
#   test/run                      everything, in a throwaway cluster (see README)

MODULE_big = exwiw
# src/ by subsystem (src/exwiw.h maps it); every .c of every directory
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c src/*/*.c src/*/*/*.c src/*/*/*/*.c)))

EXTENSION = exwiw
DATA = $(wildcard exwiw--*.sql)
PGFILEDESC = "exwiw - export what I want"

# One pg_regress file per feature, run in name order.
REGRESS = $(sort $(basename $(notdir $(wildcard sql/*.sql))))
REGRESS_OPTS = --inputdir=. --load-extension=exwiw

# our headers by their directory: #include "subset/subset.h"
PG_CPPFLAGS = -I$(srcdir)/src

# Two or more sessions (locks, snapshots, concurrent writes): isolation
# specs, specs/<area>_<topic>.spec with expected/<area>_<topic>.out, run by
# pg_isolation_regress after pg_regress (output in output_iso/).
ISOLATION = $(sort $(basename $(notdir $(wildcard specs/*.spec))))
# Several nodes, or the client against them: TAP tests on
# PostgreSQL::Test::Cluster, t/0NN_<area>_<topic>.pl, run by
# prove_installcheck after the isolation specs (needs Perl's IPC::Run).
TAP_TESTS = 1

PG_CFLAGS = -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# every object depends on every header: PGXS tracks no header dependencies
$(OBJS): $(wildcard src/*.h src/*/*.h src/*/*/*.h src/*/*/*/*.h)

# The file sinks compress with the zlib the server links, and with libzstd
# when the server was built with it (pg_config.h: USE_ZSTD).
SHLIB_LINK += $(filter -lz -lzstd, $(LIBS))

# PostgreSQL's pgindent over our C code (test/pgindent: the tool is built
# from Debian's postgresql-18 source package and cached); CI checks it.
.PHONY: pgindent
pgindent:
	test/pgindent

# The command-line client (client/, its own PGXS makefile with PROGRAM),
# built and installed with the extension.
all: client
install: install-client
clean: clean-client

client:
	$(MAKE) -C client PG_CONFIG=$(PG_CONFIG)

# Debian puts PostgreSQL's bindir on no one's PATH (its pg_wrapper links
# only PostgreSQL's own tools): say how to reach the client.
install-client: client
	$(MAKE) -C client install PG_CONFIG=$(PG_CONFIG)
	@echo "exwiw: installed $(bindir)/exwiw; \"make install-bin\" links it and its manual into $(BIN_PREFIX) (on PATH and MANPATH: exwiw, man exwiw); completion: source client/exwiw.bash"

# install-bin: the client and its manual where the default PATH and man
# find them, as links into $(BIN_PREFIX) (/usr/local by default) to what
# "make install" put beside PostgreSQL; uninstall-bin removes the links.
BIN_PREFIX ?= /usr/local
install-bin:
	$(MKDIR_P) '$(DESTDIR)$(BIN_PREFIX)/bin' '$(DESTDIR)$(BIN_PREFIX)/share/man/man1'
	ln -sf '$(bindir)/exwiw' '$(DESTDIR)$(BIN_PREFIX)/bin/exwiw'
	ln -sf '$(mandir)/man1/exwiw.1' '$(DESTDIR)$(BIN_PREFIX)/share/man/man1/exwiw.1'
uninstall-bin:
	rm -f '$(DESTDIR)$(BIN_PREFIX)/bin/exwiw' '$(DESTDIR)$(BIN_PREFIX)/share/man/man1/exwiw.1'

clean-client:
	$(MAKE) -C client clean PG_CONFIG=$(PG_CONFIG)

.PHONY: client install-client clean-client install-bin uninstall-bin
