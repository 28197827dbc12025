#!/usr/bin/env python3
"""Draws the Grafana dashboard (k8s/components/monitoring/dashboards/turnstile.json) as a PNG,
panel by panel in its own grid layout, from samples recorded by record.py. No Grafana runs here,
so the dashboard's own PromQL is evaluated by the small evaluator below, which knows exactly the
forms the dashboard uses: sum/max/min [by (...)] over a selector or rate(selector[window]), and
one division. Rates use the samples inside the window (at most the recording's length).

  /usr/bin/python3 docs/dashboard/render.py /tmp/samples.jsonl docs/dashboard.png
(matplotlib from Debian: apt-get install python3-matplotlib)
"""
import collections, datetime, json, re, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import matplotlib.dates as mdates

DASHBOARD = "k8s/components/monitoring/dashboards/turnstile.json"
COLORS = ["#73BF69", "#F2CC0C", "#8AB8FF", "#FF780A", "#F2495C", "#5794F2", "#B877D9", "#FADE2A",
          "#37872D", "#C4162A"]


class Samples:
    def __init__(self, path):
        self.by_time = collections.defaultdict(list)
        for line in open(path):
            s = json.loads(line)
            self.by_time[s["t"]].append(s)
        self.times = sorted(self.by_time)

    def select(self, t, name, matchers):
        out = []
        for s in self.by_time[t]:
            if s["name"] == name and all(m(s["labels"]) for m in matchers):
                out.append((s["labels"], s["value"]))
        return out


def parse_matchers(text, variables):
    matchers = []
    for key, op, value in re.findall(r'(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"', text or ""):
        for var, val in variables.items():
            value = value.replace("$" + var, val)
        if op == "=":
            matchers.append(lambda l, k=key, v=value: l.get(k, "") == v)
        elif op == "!=":
            matchers.append(lambda l, k=key, v=value: l.get(k, "") != v)
        elif op == "!~":
            matchers.append(lambda l, k=key, v=re.compile("^(?:" + value + ")$"): not v.match(l.get(k, "")))
        else:
            matchers.append(lambda l, k=key, v=re.compile("^(?:" + value + ")$"): bool(v.match(l.get(k, ""))))
    return matchers


def duration(text):
    return int(text[:-1]) * {"s": 1, "m": 60, "h": 3600}[text[-1]]


def evaluate(expr, samples, t, variables):
    """Returns {label tuple: value} for one evaluation time."""
    expr = " ".join(expr.split())
    if " / " in expr and not expr.startswith(("sum by", "max by", "min by")):
        left, right = split_top(expr, "/")
        a, b = evaluate(left, samples, t, variables), evaluate(right, samples, t, variables)
        return {k: a[k] / b[k] for k in a if k in b and b[k] != 0}
    m = re.match(r"^(sum|max|min)(?: by \(([^)]*)\))? ?\((.*)\)$", expr)
    if m:
        op, by, inner = m.group(1), m.group(2), m.group(3)
        keys = [k.strip() for k in by.split(",")] if by else []
        groups = collections.defaultdict(list)
        for labels, value in series(inner, samples, t, variables):
            groups[tuple((k, labels.get(k, "")) for k in keys)].append(value)
        f = {"sum": sum, "max": max, "min": min}[op]
        return {k: f(v) for k, v in groups.items()}
    return {tuple(sorted(l.items())): v for l, v in series(expr, samples, t, variables)}


def split_top(expr, op):
    depth = 0
    for i, c in enumerate(expr):
        depth += c == "("
        depth -= c == ")"
        if depth == 0 and expr[i:i + 3] == f" {op} ":
            return expr[:i], expr[i + 3:]
    raise ValueError(expr)


def series(expr, samples, t, variables):
    m = re.match(r"^rate\((\w+)(?:\{(.*)\})?\[(\w+)\]\)$", expr)
    if m:
        name, matchers, window = m.group(1), parse_matchers(m.group(2), variables), duration(m.group(3))
        earlier = [s for s in samples.times if t - window <= s < t]
        if not earlier:
            return []
        t0 = earlier[0]
        before = {tuple(sorted(l.items())): v for l, v in samples.select(t0, name, matchers)}
        out = []
        for labels, value in samples.select(t, name, matchers):
            start = before.get(tuple(sorted(labels.items())), 0.0)
            out.append((labels, max(0.0, value - start) / (t - t0)))
        return out
    m = re.match(r"^(\w+)(?:\{(.*)\})?$", expr)
    if m:
        return samples.select(t, m.group(1), parse_matchers(m.group(2), variables))
    raise ValueError("not a form this evaluator knows: " + expr)


def legend(fmt, key):
    labels = dict(key)
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), fmt).strip() or "value"


def main(samples_path, out_path):
    dashboard = json.load(open(DASHBOARD))
    variables = {v["name"]: v.get("current", {}).get("value", "") for v in dashboard["templating"]["list"]}
    samples = Samples(samples_path)
    rows = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in dashboard["panels"])
    cell = 0.36
    fig = plt.figure(figsize=(24 * 0.75, rows * cell), facecolor="#111217")
    for panel in dashboard["panels"]:
        g = panel["gridPos"]
        left, width = g["x"] / 24, g["w"] / 24
        bottom, height = 1 - (g["y"] + g["h"]) / rows, g["h"] / rows
        if panel["type"] == "row":
            fig.text(left + 0.005, bottom + height / 2, panel["title"], color="#ccccdc",
                     fontsize=13, weight="bold", va="center")
            continue
        ax = fig.add_axes([left + 0.035, bottom + 0.035, width - 0.05, height - 0.075], facecolor="#181b1f")
        ax.set_title(panel["title"], color="#ccccdc", fontsize=11, loc="left")
        plotted = collections.OrderedDict()
        for target in panel["targets"]:
            for t in samples.times:
                for key, value in evaluate(target["expr"], samples, t, variables).items():
                    name = legend(target["legendFormat"], key)
                    plotted.setdefault(name, ([], []))
                    plotted[name][0].append(datetime.datetime.fromtimestamp(t))
                    plotted[name][1].append(value)
        custom = panel["fieldConfig"]["defaults"].get("custom", {})
        stacked = custom.get("stacking", {}).get("mode") == "normal"
        for i, (name, (xs, ys)) in enumerate(plotted.items()):
            color = COLORS[i % len(COLORS)]
            ax.plot(xs, ys, color=color, linewidth=1.4, label=name)
            if stacked:
                ax.fill_between(xs, ys, alpha=0.15, color=color)
        ax.set_xlim(datetime.datetime.fromtimestamp(samples.times[0]),
                    datetime.datetime.fromtimestamp(samples.times[-1]))
        if not plotted:
            ax.text(0.5, 0.5, "No data", color="#8e8e8e", ha="center", va="center", transform=ax.transAxes)
        ax.tick_params(colors="#8e8e8e", labelsize=8)
        ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M"))
        ax.grid(color="#2c3235", linewidth=0.6)
        for spine in ax.spines.values():
            spine.set_color("#2c3235")
        # A state timeline's values are names (value mappings): label the axis with them.
        names = {float(value): option["text"]
                 for mapping in panel["fieldConfig"]["defaults"].get("mappings", [])
                 for value, option in mapping.get("options", {}).items()}
        if names:
            ax.set_yticks(sorted(names))
            ax.set_yticklabels([names[v] for v in sorted(names)])
        unit = panel["fieldConfig"]["defaults"]["unit"]
        ax.set_ylabel({"reqps": "req/s", "ops": "per s", "s": "seconds"}.get(unit, ""), color="#8e8e8e", fontsize=8)
        if plotted:
            ax.legend(loc="upper left", fontsize=7, facecolor="#181b1f", edgecolor="#2c3235",
                      labelcolor="#ccccdc", ncol=2 if len(plotted) > 4 else 1)
    fig.text(0.995, 0.003, "Rendered by docs/dashboard/render.py from metrics recorded by record.py during a"
             " local run; not a Grafana screenshot", color="#8e8e8e", fontsize=8, ha="right")
    fig.savefig(out_path, dpi=80, facecolor=fig.get_facecolor())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
