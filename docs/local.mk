# Documentation shipped in the tarball.
EXTRA_DIST += docs/design.md docs/segment-format.md docs/config.md docs/agent.md docs/security.md docs/reliability.md
