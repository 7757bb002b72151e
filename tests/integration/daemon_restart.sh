#!/bin/bash
# restart.sh with the agent as a daemon (no -f): FX_DAEMON=1 makes fixture.sh's
# fx_agent start it so, logging to the same file (docs/agent.md, "Start-up").
export FX_DAEMON=1
exec bash "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/restart.sh"
