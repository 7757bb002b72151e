# Example configuration, installed as documentation.
examplesdir = $(docdir)/examples
dist_examples_DATA = conf/statctr.conf conf/snmpd.conf
