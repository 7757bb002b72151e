# The style gate: clang-format and cppcheck over every C source.
TESTS += tests/style/style.sh
dist_check_SCRIPTS += tests/style/style.sh
EXTRA_DIST += tests/style/lib.sh

# The installed libraries export only statctr_* (lib/local.mk).
TESTS += tests/style/exports.sh
dist_check_SCRIPTS += tests/style/exports.sh

# README.md's API snippet compiles as a writer and a reader and works.
TESTS += tests/style/readme_api.sh
dist_check_SCRIPTS += tests/style/readme_api.sh

# statctr_hist_record() in compiled code: no locked instruction, and a
# log2 bucket search (7 compares for 64 buckets), counted under callgrind.
TESTS += tests/style/hist_nolock.sh
dist_check_SCRIPTS += tests/style/hist_nolock.sh

# statctr_cpu_add() with collapse 1 in compiled code: no locked instruction,
# a restartable sequence (descriptors, RSEQ_SIG before each abort handler).
TESTS += tests/style/cpu_nolock.sh
dist_check_SCRIPTS += tests/style/cpu_nolock.sh
EXTRA_DIST += tests/style/disasm.sh

# docs/design.md and docs/agent.md have a module-table row for every source file.
TESTS += tests/style/modules.sh
dist_check_SCRIPTS += tests/style/modules.sh

# libstatctr.so exports exactly lib/libstatctr.map's symbols, in its nodes.
TESTS += tests/style/symver.sh
dist_check_SCRIPTS += tests/style/symver.sh

# Includes across folders follow the layers: lib <- mib <- {agent, tools}, common below both.
TESTS += tests/style/layers.sh
dist_check_SCRIPTS += tests/style/layers.sh

# The snapshot loops in compiled code load each cell once (issue 35).
TESTS += tests/style/once_loads.sh
dist_check_SCRIPTS += tests/style/once_loads.sh

# No include circle in lib/ (#include and link graphs); agent/'s printed.
TESTS += tests/style/includes.sh
dist_check_SCRIPTS += tests/style/includes.sh

# One shell vocabulary: skip, fail, fail_later and start_writer defined in
# tests/common.sh alone, and doing what tests/README.md says.
TESTS += tests/style/vocabulary.sh
dist_check_SCRIPTS += tests/style/vocabulary.sh

# One unit suite per lib module: lib/x.c has tests/unit/test_x.c (or an exception).
TESTS += tests/style/suites.sh
dist_check_SCRIPTS += tests/style/suites.sh
