#!/bin/bash
# contrib/grafana/statctr-dashboard.json, checked without Grafana (not in
# Debian): its structure as Grafana's dashboard schema requires it (uid,
# title, schemaVersion, templating variables, panels with unique ids, grid
# positions within 24 columns, targets with refId and expr, no overlapping
# panels), every PromQL expression valid (promtool check rules, the
# dashboard's variables given values), and every metric it names literally
# served by statctr-exporter for the example writer's segment.
. "$(dirname "$0")/lib.sh"
ex_need promtool python3

dash=$top_srcdir/contrib/grafana/statctr-dashboard.json
fx_config
fx_writer -t 1 -n 1000
fx_writer_settled
ex_start
ex_get /metrics >"$TMP/scrape.prom" || fail "GET /metrics failed"
counter=$(awk '/^# TYPE statctr_dataplane_.*_total counter$/ { print $3; exit }' "$TMP/scrape.prom")
histogram=$(awk '/^# TYPE statctr_.* histogram$/ { print $3 "_bucket"; exit }' "$TMP/scrape.prom")
[ -n "$counter" ] && [ -n "$histogram" ] || fail "no counter or histogram in the scrape"

python3 - "$dash" "$TMP/exprs.yml" "$TMP/names" "$counter" "$histogram" <<'PY' || fail_later "the dashboard's structure"
import json, re, sys
dash_path, rules_out, names_out, counter, histogram = sys.argv[1:]
d = json.load(open(dash_path))
errors = []
def need(cond, what):
    if not cond:
        errors.append(what)
for key, typ in [("uid", str), ("title", str), ("schemaVersion", int), ("panels", list),
                 ("templating", dict), ("time", dict), ("tags", list)]:
    need(isinstance(d.get(key), typ), f"top-level {key} must be a {typ.__name__}")
variables = {v["name"]: v for v in d["templating"]["list"]}
need(set(variables) == {"datasource", "instance", "segment", "counter", "histogram"},
     f"variables: {sorted(variables)}")
ids, cells = set(), set()
exprs = []
for p in d["panels"]:
    need(isinstance(p.get("id"), int) and p["id"] not in ids, f"panel id {p.get('id')} not unique")
    ids.add(p.get("id"))
    need(p.get("type") in ("stat", "timeseries", "gauge", "table", "heatmap"), f"panel type {p.get('type')}")
    need(p.get("datasource", {}).get("uid") == "${datasource}", f"panel {p['id']}: datasource")
    g = p.get("gridPos", {})
    need(all(isinstance(g.get(k), int) for k in "xywh") and g["x"] >= 0 and g["x"] + g["w"] <= 24,
         f"panel {p['id']}: gridPos {g}")
    for x in range(g["x"], g["x"] + g["w"]):
        for y in range(g["y"], g["y"] + g["h"]):
            need((x, y) not in cells, f"panel {p['id']} overlaps another at {x},{y}")
            cells.add((x, y))
    refs = [t.get("refId") for t in p.get("targets", [])]
    need(refs and len(set(refs)) == len(refs), f"panel {p['id']}: refIds {refs}")
    for t in p["targets"]:
        need(isinstance(t.get("expr"), str) and t["expr"], f"panel {p['id']}: expr")
        exprs.append(t["expr"])
for v in ("instance", "segment", "counter", "histogram"):
    q = variables[v]["query"]["query"]
    need(q.startswith("label_values(") or q.startswith("metrics("), f"variable {v}: {q}")
values = {"$instance": ".+", "$segment": ".+", "$counter": counter, "$histogram": histogram,
          "$__rate_interval": "1m", "$__range": "1h"}
with open(rules_out, "w") as f:
    f.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, e in enumerate(exprs):
        for k in sorted(values, key=len, reverse=True):
            e = e.replace(k, values[k])
        need("$" not in e, f"unresolved variable in {e}")
        f.write(f"      - record: dashboard:expr{i}\n        expr: {json.dumps(e)}\n")
names = set()
for e in exprs:
    names.update(n for n in re.findall(r"\b(statctr_[a-z0-9_]+)\b", e))
open(names_out, "w").write("\n".join(sorted(names)) + "\n")
for e in errors:
    print("dashboard:", e)
print(f"{len(d['panels'])} panels, {len(exprs)} expressions, {len(names)} metric names")
sys.exit(1 if errors else 0)
PY
out=$(promtool check rules "$TMP/exprs.yml" 2>&1) || fail_later "a dashboard expression is not PromQL: $out"
log "promtool: $(echo "$out" | grep -o 'SUCCESS.*')"
while read -r name; do
	grep -q "^$name[{ ]" "$TMP/scrape.prom" || fail_later "the dashboard names $name, which the exporter does not serve"
done <"$TMP/names"
log "names checked: $(tr '\n' ' ' <"$TMP/names")"
test_finish
