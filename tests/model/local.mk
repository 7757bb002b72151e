# The read protocol model-checked with spin (model/statctr.pml).
MODEL_TESTS = tests/model/spin.sh
# The model checks the protocol, not the compiled library: a sanitizer
# build would run the same search again and find nothing new.
if !SANITIZERS
TESTS += $(MODEL_TESTS)
endif
dist_check_SCRIPTS += $(MODEL_TESTS)
EXTRA_DIST += model/statctr.pml
