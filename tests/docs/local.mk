# The docs run as written (tests/docs/run_docs.sh): every ```sh block of
# README.md and docs/*.md run, every ```c block compiled, in a private
# mount and network namespace set up the way the docs say; a block marked
# "<!-- doc-test: skip REASON -->" is listed instead; statctl(1)'s EXAMPLES
# run too, and collectd runs each "<!-- doc-test: collectd -->" fragment
# (tests/docs/collectd_block.sh).  Needs root.
TESTS += tests/docs/run_docs.sh
dist_check_SCRIPTS += tests/docs/run_docs.sh
# A collectd.conf fragment of the docs, run by run_docs.sh.
EXTRA_DIST += tests/docs/collectd_block.sh

# README.md's "Install from source" into a DESTDIR: the files where it says,
# and a writer built with pkg-config against the installed tree.
TESTS += tests/docs/install.sh
dist_check_SCRIPTS += tests/docs/install.sh

# README.md's "Into another prefix", run as written with P in a temporary
# directory (a configure and build of its own: scripts/test.sh runs it once,
# outside make check).
EXTRA_DIST += tests/docs/prefix.sh
EXTRA_DIST += tests/docs/writer.sh
