# Example writer and reader; the demo and the integration tests run them.
noinst_PROGRAMS += examples/pipeline examples/reader
examples_pipeline_SOURCES = examples/pipeline.c
examples_pipeline_LDADD = lib/libstatctr.la
examples_reader_SOURCES = examples/reader.c
examples_reader_LDADD = lib/libstatctr.la
