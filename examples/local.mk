# Examples: minimal (30 lines), stages (a receive -> classify -> transmit
# pipeline, used by the demo), pipeline and reader (fixtures of the tests).
noinst_PROGRAMS += examples/minimal examples/stages examples/pipeline examples/reader
examples_minimal_SOURCES = examples/minimal.c
examples_minimal_LDADD = lib/libstatctr.la
examples_stages_SOURCES = examples/stages.c
examples_stages_LDADD = lib/libstatctr.la
examples_pipeline_SOURCES = examples/pipeline.c
examples_pipeline_LDADD = lib/libstatctr.la
examples_reader_SOURCES = examples/reader.c
examples_reader_LDADD = lib/libstatctr.la
