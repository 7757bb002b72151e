# The Python reader (python/statctr, docs/python.md): pytest against live
# writers (tests/python/py_writer, tests/fault/txn_writer), run by
# tests/python/pytest.sh over the source package and the built library.
TESTS += tests/python/pytest.sh
dist_check_SCRIPTS += tests/python/pytest.sh
check_PROGRAMS += tests/python/py_writer
tests_python_py_writer_SOURCES = tests/python/py_writer.c
tests_python_py_writer_LDADD = lib/libstatctr.la
EXTRA_DIST += tests/python/test_statctr.py tests/python/test_layout.py \
	python/statctr/__init__.py python/statctr/_clib.py python/statctr/py.typed

# make install puts the module where Debian's python3 finds it for prefix
# /usr (python3-statctr's path); another prefix adds it to PYTHONPATH
# (README.md, "Into another prefix").
statctrpydir = $(prefix)/lib/python3/dist-packages/statctr
statctrpy_DATA = python/statctr/__init__.py python/statctr/_clib.py python/statctr/py.typed
