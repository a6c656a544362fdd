"""bench/report.py: docs/benchmarks.md and docs/benchmarks.png from the rows the bench
scripts recorded (bench/benchutil.py: build/bench-results/*.json).

The table lists every row: augpy's figure, the peer's, the ratio (> 1: augpy ahead)
and the target ratio of semantics §18; the chart draws the ratios with each row's
target. Needs matplotlib (`make bench` installs it into .venv).

    python bench/report.py [--results DIR] [--out docs] [--note TEXT]
"""
import argparse
import glob
import json
import os

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)

ORDER = ["bench_core", "bench_python_elementwise", "bench_python_overhead", "bench_filters", "bench_warp",
         "bench_decode", "bench_pipeline", "bench_random", "pipelines"]


def load(results_dir):
    docs = []
    for path in glob.glob(os.path.join(results_dir, "*.json")):
        with open(path) as f:
            docs.append(json.load(f))
    docs.sort(key=lambda d: (ORDER.index(d["script"]) if d["script"] in ORDER else len(ORDER), d["script"]))
    return docs


def fmt(v, unit):
    return f"{v:.1f} {unit}" if unit.endswith("/s") or v >= 100 else f"{v:.3g} {unit}"


def status(row):
    if row["target"] is None:
        return "-"
    return "meets" if row["ratio"] >= row["target"] else "**below**"


def write_md(docs, out_dir, note, png_name):
    first = docs[0]
    dates = sorted({d["date"] for d in docs})
    versions = {}
    for d in docs:
        versions.update(d["versions"])
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (bench/bench_*.py record their rows through bench/benchutil.py;",
        "bench/report.py writes this page and the chart). Each ratio is the peer's time over augpy's",
        "(for rates in images/s: augpy's rate over the peer's), measured in the same run: above 1 augpy",
        "is ahead. Targets are those of [semantics §18](semantics.md#18-performance); rows without a",
        "target are for scale. Times are the best of several runs.",
        "",
        f"- machine: {first['cpu']}, {first['cores']} cores available",
        f"- date: {dates[0]}" + (f" to {dates[-1]}" if len(dates) > 1 else ""),
        f"- Python {first['python']}; " + ", ".join(f"{k} {v}" for k, v in sorted(versions.items())),
        f"- AUG_SIMD={first['simd']}; \"threads\" is augpy.set_num_threads / cv2.setNumThreads (or the",
        "  number of decoder threads) for that row",
    ]
    if note:
        lines += ["", note]
    lines += ["", f"![ratios against the peers]({png_name})", ""]
    below = [r for d in docs for r in d["rows"] if r["target"] is not None and r["ratio"] < r["target"]]
    n_target = sum(1 for d in docs for r in d["rows"] if r["target"] is not None)
    lines += [f"{n_target - len(below)} of {n_target} rows with a target meet it.", ""]
    for d in docs:
        lines += [f"## {d['script']}", "",
                  "| benchmark | threads | augpy | peer | peer figure | ratio | target | |",
                  "| --- | ---: | ---: | --- | ---: | ---: | ---: | --- |"]
        for r in d["rows"]:
            target = "-" if r["target"] is None else f"≥ {r['target']:.2f}×"
            lines.append(f"| {r['name']} | {r['threads']} | {fmt(r['augpy'], r['unit'])} | {r['peer']} | "
                         f"{fmt(r['peer_value'], r['unit'])} | {r['ratio']:.2f}× | {target} | {status(r)} |")
        lines.append("")
    with open(os.path.join(out_dir, "benchmarks.md"), "w") as f:
        f.write("\n".join(lines))


def write_png(docs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for d in docs for r in d["rows"]]
    short = lambda t: t if len(t) <= 26 else t[:25] + "…"  # noqa: E731
    labels = [f"{r['name']} ({r['threads']}T) vs {short(r['peer'])}" for r in rows]
    ratios = [r["ratio"] for r in rows]
    colors = ["0.6" if r["target"] is None else ("tab:green" if r["ratio"] >= r["target"] else "tab:red")
              for r in rows]
    fig, ax = plt.subplots(figsize=(13, 0.3 * len(rows) + 1.6))
    y = list(range(len(rows)))[::-1]
    ax.barh(y, ratios, color=colors, height=0.7)
    for yi, r in zip(y, rows):
        if r["target"] is not None:
            ax.plot([r["target"]] * 2, [yi - 0.45, yi + 0.45], color="k", lw=1.5)
        ax.text(r["ratio"], yi, f" {r['ratio']:.2f}", va="center", fontsize=7)
    ax.axvline(1.0, color="0.3", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xlabel("ratio, peer time / augpy time (> 1: augpy ahead; log scale)\n"
                  "black tick: target; green: meets it, red: below it, grey: no target", fontsize=8)
    ax.set_title(f"augpy vs peers, {docs[0]['cpu']}, {docs[0]['cores']} cores", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=benchutil.RESULTS_DIR)
    ap.add_argument("--out", default=os.path.join(benchutil.ROOT, "docs"))
    ap.add_argument("--note", default="", help="a paragraph for the page (e.g. how loaded the machine was)")
    args = ap.parse_args()
    docs = load(args.results)
    if not docs:
        raise SystemExit(f"report.py: no results in {args.results}; run the bench scripts first")
    write_md(docs, args.out, args.note, "benchmarks.png")
    write_png(docs, os.path.join(args.out, "benchmarks.png"))
    print(f"wrote {os.path.join(args.out, 'benchmarks.md')} and benchmarks.png")


if __name__ == "__main__":
    main()
