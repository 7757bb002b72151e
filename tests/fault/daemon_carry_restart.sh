#!/bin/bash
# carry_restart.sh with the agent as a daemon (no -f): the carry file is
# read before the fork and written by the daemon's thread after it.
export FX_DAEMON=1
exec bash "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/carry_restart.sh"
