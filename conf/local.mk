# Example configuration, installed as documentation.
examplesdir = $(docdir)/examples
dist_examples_DATA = conf/statctr.conf conf/snmpd.conf

# The service user and group of statctr-agentx.service (sysusers.d(5)).
# Under $(prefix) like the unit, so that `make distcheck` stays inside its
# prefix; systemd-sysusers reads /usr/lib and /usr/local/lib/sysusers.d.
sysusersdir = $(prefix)/lib/sysusers.d
dist_sysusers_DATA = dist/sysusers.d/statctr.conf
