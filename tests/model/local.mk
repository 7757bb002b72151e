# The read protocol model-checked with spin (model/statctr.pml).
MODEL_TESTS = tests/model/spin.sh
TESTS += $(MODEL_TESTS)
dist_check_SCRIPTS += $(MODEL_TESTS)
EXTRA_DIST += model/statctr.pml
