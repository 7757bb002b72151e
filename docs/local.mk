# Documentation shipped in the tarball.
EXTRA_DIST += docs/design.md docs/config.md docs/agent.md docs/security.md docs/reliability.md \
	docs/python.md docs/epochs.md
# Installed too ($(docdir)): the byte layout a reader written without the
# library, or a debugger, needs (statctr(3) points to it).
dist_doc_DATA += docs/segment-format.md
