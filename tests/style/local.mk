# The style gate: clang-format and cppcheck over every C source.
TESTS += tests/style/style.sh
dist_check_SCRIPTS += tests/style/style.sh
