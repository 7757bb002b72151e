#!/usr/bin/env python3
"""Parsers for statctl's output formats, used by the tests.

Each mode reads a file and prints one "table.column.row value" line per
cell, sorted, so that the tests can compare statctl with examples/reader:

  formats.py reader FILE [SEGMENT]  reader -1 output; with SEGMENT, columns
                                    become Prometheus family names
  formats.py text FILE              statctl show (text)
  formats.py json FILE              statctl show --format json (exact ints)
  formats.py prom FILE              statctl show --format prometheus, after
                                    checking the exposition format strictly
                                    (a histogram's value is its _count)
  formats.py hist FILE              the histogram families of FILE, checked
                                    (le ascending, _bucket cumulative, +Inf ==
                                    _count): "table.column.row le=B N", "...
                                    sum N", "... count N" lines

Exit status 1 with a message on the first violation.
"""

import json
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL_NAME = r"[a-zA-Z_][a-zA-Z0-9_]*"
LABEL_VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
VALUE = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Inf|NaN"
SAMPLE_RE = re.compile(
    r"^(%s)(?:\{((?:%s=%s)(?:,%s=%s)*,?)?\})? (%s)(?: -?\d+)?$"
    % (NAME, LABEL_NAME, LABEL_VALUE, LABEL_NAME, LABEL_VALUE, VALUE))
LABEL_RE = re.compile(r"(%s)=(%s)" % (LABEL_NAME, LABEL_VALUE))
HELP_RE = re.compile(r"^# HELP (%s) ((?:[^\\\n]|\\[\\n])*)$" % NAME)
TYPE_RE = re.compile(r"^# TYPE (%s) (counter|gauge|histogram|summary|untyped)$" % NAME)


def die(msg):
    sys.stderr.write("formats.py: %s\n" % msg)
    sys.exit(1)


def snake(name):
    """statctl's metric name part: camelCase -> snake_case, [a-z0-9_] only."""
    out, after_word, pending = [], False, False
    for ch in name:
        if not (ch.isascii() and ch.isalnum()):
            pending, after_word = after_word, False
            continue
        if ch.isupper() and after_word:
            pending = True
        if pending:
            out.append("_")
        out.append(ch.lower())
        pending, after_word = False, not ch.isupper()
    return "".join(out)


def unescape_label(quoted):
    body = quoted[1:-1]
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), body)


def parse_reader(path, segment=None):
    lines = []
    for line in open(path, encoding="utf-8"):
        key, value = line.rstrip("\n").rsplit(" ", 1)
        table, column, row = key.split(".", 2)
        if segment is not None:
            column = "statctr_%s_%s_%s" % (snake(segment), snake(table), snake(column))
        lines.append("%s.%s.%s %s" % (table, column, row, value))
    return lines


def parse_text(path):
    lines, table, columns, prev = [], None, None, ""
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("row ") and prev:
            table, columns = prev.split(" - ", 1)[0], line.split()[1:]
        elif not line:
            table = None
        elif table is not None and not line.startswith("  "):
            fields = line.split()
            if len(fields) != len(columns) + 1:
                die("text: row %r has %d values for %d columns" %
                    (fields[0], len(fields) - 1, len(columns)))
            for col, value in zip(columns, fields[1:]):
                lines.append("%s.%s.%s %s" % (table, col, fields[0], int(value)))
        prev = line
    return lines


def check_json_schema(doc):
    if doc.get("schema") != "statctr-show" or doc.get("version") != 1:
        die("json: schema/version is %r/%r" % (doc.get("schema"), doc.get("version")))
    for seg in doc["segments"]:
        for key in ("name", "path", "status", "generation", "nslots", "tables"):
            if key not in seg:
                die("json: segment lacks %r" % key)


def parse_json(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)  # Python ints are exact at any size
    check_json_schema(doc)
    lines = []
    for seg in doc["segments"]:
        for table in seg["tables"]:
            kinds = {c["name"]: c["kind"] for c in table["columns"]}
            for row in table["rows"]:
                label = row["name"] if row["name"] is not None else str(row["index"])
                for col, value in row["values"].items():
                    if not isinstance(value, int):
                        die("json: %s.%s is not an integer" % (table["name"], col))
                    if kinds[col] == "counter" and not 0 <= value < 2**64:
                        die("json: counter %s out of range" % col)
                    lines.append("%s.%s.%s %d" % (table["name"], col, label, value))
    return lines


class Exposition:
    """Checks the text exposition format and collects the samples."""

    def __init__(self):
        self.help, self.type, self.done, self.series = {}, {}, set(), set()
        self.current = None
        self.samples = []

    def family_of(self, name):
        """The family a sample belongs to: a histogram's _bucket, _sum and
        _count samples belong to the family named without the suffix."""
        for suffix in ("_bucket", "_sum", "_count"):
            base = name[:-len(suffix)]
            if name.endswith(suffix) and self.type.get(base) == "histogram":
                return base
        if self.type.get(name) == "histogram":
            die("prom: histogram %s has a sample without a suffix" % name)
        if self.type.get(name) == "counter" and not name.endswith("_total"):
            die("prom: counter %s lacks the _total suffix" % name)
        return name

    def start_family(self, name):
        if name != self.current:
            if name in self.done:
                die("prom: family %s is split" % name)
            if self.current is not None:
                self.done.add(self.current)
            self.current = name

    def comment(self, line):
        m = HELP_RE.match(line)
        if m:
            if m.group(1) in self.help:
                die("prom: second HELP for %s" % m.group(1))
            self.start_family(m.group(1))
            self.help[m.group(1)] = m.group(2)
            return
        m = TYPE_RE.match(line)
        if m:
            if m.group(1) in self.type or (m.group(1) in self.done):
                die("prom: TYPE for %s repeated or after its samples" % m.group(1))
            self.start_family(m.group(1))
            self.type[m.group(1)] = m.group(2)
            return
        if line.startswith("# HELP") or line.startswith("# TYPE"):
            die("prom: malformed line %r" % line)

    def sample(self, line):
        m = SAMPLE_RE.match(line)
        if not m:
            die("prom: malformed sample %r" % line)
        name = m.group(1)
        family = self.family_of(name)
        self.start_family(family)
        if family not in self.type or family not in self.help:
            die("prom: %s has no TYPE or HELP before its samples" % name)
        labels = {k: unescape_label(v) for k, v in LABEL_RE.findall(m.group(2) or "")}
        if (name != family and name.endswith("_bucket")) != ("le" in labels):
            die("prom: %s: le on a sample that is not a _bucket, or a _bucket without" % name)
        key = (name, tuple(sorted(labels.items())))
        if key in self.series:
            die("prom: duplicate series %r" % (key,))
        self.series.add(key)
        self.samples.append((name, labels, m.group(3)))

    def parse(self, path):
        for line in open(path, encoding="utf-8"):
            line = line.rstrip("\n")
            if line.startswith("#"):
                self.comment(line)
            elif line.strip():
                self.sample(line)
        return self


def parse_prom(path):
    expo = Exposition().parse(path)
    lines = []
    for name, labels, value in expo.samples:
        if name == "statctr_segment_readable":  # per segment, not a cell
            if "segment" not in labels or "path" not in labels or value not in ("0", "1"):
                die("prom: malformed %s sample %r" % (name, labels))
            continue
        for key in ("segment", "table", "row"):
            if key not in labels:
                die("prom: %s lacks label %s" % (name, key))
        if "slot" in labels:
            continue
        if (name.endswith("_created") and expo.type.get(name) == "gauge" and
                expo.type.get(name[:-len("_created")] + "_total") == "counter"):
            # A counter's discontinuity time (OpenMetrics' _created), not a cell.
            if not re.fullmatch(r"[0-9]+\.[0-9]{9}", value):
                die("prom: malformed %s sample %r" % (name, value))
            continue
        family = expo.family_of(name)
        if family != name:
            if name == family + "_count":
                lines.append("%s.%s.%s %d" % (labels["table"], family, labels["row"],
                                              int(value)))
            continue
        base = name[:-len("_total")] if expo.type[name] == "counter" else name
        lines.append("%s.%s.%s %d" % (labels["table"], base, labels["row"], int(value)))
    return lines


def le_value(le):
    if le == "+Inf":
        return float("inf")
    if not re.fullmatch(r"\d+", le):
        die("hist: le=%r is not an integer or +Inf" % le)
    return float(le)


def check_series(key, buckets, sums, counts):
    """One histogram series: le ascending and ending in +Inf, the counts
    cumulative (never falling), +Inf equal to _count, a _sum."""
    les = [le_value(le) for le, _ in buckets]
    if les != sorted(les) or len(set(les)) != len(les) or les[-1] != float("inf"):
        die("hist: %s: le not strictly ascending to +Inf: %r" % (key, les))
    values = [int(v) for _, v in buckets]
    if any(b < a for a, b in zip(values, values[1:])):
        die("hist: %s: _bucket not cumulative: %r" % (key, values))
    if key not in counts or key not in sums:
        die("hist: %s lacks _count or _sum" % (key,))
    if values[-1] != counts[key]:
        die("hist: %s: +Inf %d != _count %d" % (key, values[-1], counts[key]))


def parse_hist(path):
    expo = Exposition().parse(path)
    buckets, sums, counts, lines = {}, {}, {}, []
    for name, labels, value in expo.samples:
        family = expo.family_of(name)
        if family == name:
            continue
        key = (labels["table"], family, labels["row"])
        if name.endswith("_bucket"):
            buckets.setdefault(key, []).append((labels["le"], value))
            lines.append("%s.%s.%s le=%s %s" % (key + (labels["le"], value)))
        elif name.endswith("_sum"):
            sums[key] = int(value)
            lines.append("%s.%s.%s sum %s" % (key + (value,)))
        else:
            counts[key] = int(value)
            lines.append("%s.%s.%s count %s" % (key + (value,)))
    for key, series in buckets.items():
        check_series(key, series, sums, counts)
    if not buckets:
        die("hist: no histogram in %s" % path)
    return lines


def main(argv):
    if len(argv) < 3:
        die(__doc__)
    mode, path = argv[1], argv[2]
    if mode == "reader":
        lines = parse_reader(path, argv[3] if len(argv) > 3 else None)
    elif mode == "text":
        lines = parse_text(path)
    elif mode == "json":
        lines = parse_json(path)
    elif mode == "prom":
        lines = parse_prom(path)
    elif mode == "hist":
        lines = parse_hist(path)
    else:
        die("unknown mode %r" % mode)
    sys.stdout.write("".join(line + "\n" for line in sorted(lines)))


if __name__ == "__main__":
    main(sys.argv)
