#!/usr/bin/env python3
"""Remaining-time (ETA) study on the SUMO probe drives already simulated by scripts/bench-sumo: replays every trace
through `edgenav replay` only (no matching, no SUMO run: seconds per map), and scores `nav/eta` remainingSeconds
against the time the SUMO vehicle really took, at several points of each leg (by time: 25, 50 = the benchmark's
"mid-leg", 75 % of the leg's driven time). Also splits each leg's plan against SUMO's moving and standing time.

  python3 Benchmarks/sumo/eta_study.py --edgenav BIN [--maps helsinki,liechtenstein,baltimore] [--intervals 1,5]
                                       [--root .cache/bench-sumo] [--traffic none|known|both] [--verbose]

--traffic known replays with `--traffic <map>/traffic.jsonl` (the per-way feeds Benchmarks/sumo/traffic_feed.py
makes from the same SUMO run: "traffic is known"); both (the default) prints the rows without and with it.

Figures are signed medians and median |error| of (predicted - actual) / actual, per leg and interval, and the
pooled median over all legs. Why a separate script: bench-sumo's evaluate.py also re-runs the matcher (minutes per
map); this isolates the ETA and adds the 25 / 75 % points, so a model change can be checked on all maps and both
intervals in one go.
"""
import argparse
import bisect
import json
import os
import statistics
import subprocess
from concurrent.futures import ThreadPoolExecutor

from evaluate import arrival_times, iso_seconds, load_jsonl
from traces import EPOCH_SECONDS


def replay(edgenav, graph, d, interval, traffic=None):
    with open(os.path.join(d, "raw-%ds.jsonl" % interval)) as f:
        raw = f.read()
    cmd = [edgenav, "replay", "--map", graph, "--destinations", os.path.join(d, "destinations.json")]
    if traffic:
        cmd += ["--traffic", traffic]
    out = subprocess.run(cmd, input=raw, capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def study_trip(edgenav, graph, d, interval, epoch, points, traffic=None):
    fixes = load_jsonl(os.path.join(d, "raw-%ds.jsonl" % interval))
    truth = load_jsonl(os.path.join(d, "truth.jsonl"))
    with open(os.path.join(d, "waypoints.json")) as f:
        waypoints = json.load(f)
    events = replay(edgenav, graph, d, interval, traffic)
    etas = [e["payload"] for e in events if e["topic"] == "nav/eta" and e["payload"]]
    routes = [e["payload"] for e in events if e["topic"] == "nav/route" and e["payload"]]
    eta_times = [iso_seconds(e["timestamp"]) for e in etas]
    fix_times = [f["timestamp"] for f in fixes]
    first = next((r for r in routes if r["reason"] == "destinationsSet"), None)
    out = []
    leg_start = fix_times[0]
    for k, t_arrive in enumerate(arrival_times(truth, waypoints, epoch)):
        legs = first["legs"] if first and first.get("legs") else []
        on_leg = [s for s in truth if leg_start <= s["timestamp"] < t_arrive]
        standing = sum(1 for s in on_leg if s["speed"] < 0.5)  # 1 s samples
        entry = {"leg": k, "actual": t_arrive - leg_start, "standing": standing,
                 "planned": legs[k]["durationSeconds"] if k < len(legs) else None, "errors": {}}
        for frac in points:
            t = leg_start + frac * (t_arrive - leg_start)
            i = bisect.bisect_right(fix_times, t) - 1
            if i < 0:
                continue
            t_fix = fix_times[i]
            j = bisect.bisect_right(eta_times, t_fix + 1e-6) - 1
            actual = t_arrive - t_fix
            if j >= 0 and etas[j]["waypointIndex"] == k and actual > 0:
                entry["errors"][frac] = (etas[j]["remainingSeconds"] - actual) / actual
        out.append(entry)
        leg_start = t_arrive
    return out


def med(v):
    return statistics.median(v) if v else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--edgenav", required=True)
    ap.add_argument("--maps", default="helsinki,liechtenstein,baltimore")
    ap.add_argument("--intervals", default="1,5")
    ap.add_argument("--root", default=".cache/bench-sumo")
    ap.add_argument("--points", default="0.25,0.5,0.75")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--traffic", default="both", choices=["none", "known", "both"])
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--json", help="write every trip's figures here")
    args = ap.parse_args()
    points = [float(p) for p in args.points.split(",")]
    allrows = {}
    cases = {"none": [None], "known": ["known"], "both": [None, "known"]}[args.traffic]
    pooled = {(p, c): [] for p in points for c in cases}
    print("%-14s %3s %7s %4s  %s" % ("map", "int", "traffic", "leg", "  ".join("%d%%: med|e| signed" % (100 * p) for p in points))
          + "   plan÷SUMO  standing share")
    for m in args.maps.split(","):
        work = os.path.join(args.root, m)
        if not os.path.isdir(work):
            print("skipping %s: %s absent" % (m, work))
            continue
        epoch = EPOCH_SECONDS
        probes = sorted(p for p in os.listdir(os.path.join(work, "traces")))
        graph = os.path.join(work, "map.graph")
        feed = os.path.join(work, "traffic.jsonl")
        for interval, case in [(int(i), c) for i in args.intervals.split(",") for c in cases]:
            if case and not os.path.exists(feed):
                print("skipping %s with traffic: %s absent (Benchmarks/sumo/traffic_feed.py)" % (m, feed))
                continue
            with ThreadPoolExecutor(args.jobs) as pool:
                trips = list(pool.map(lambda p: study_trip(args.edgenav, graph, os.path.join(work, "traces", p),
                                                           interval, epoch, points, feed if case else None), probes))
            allrows["%s/%ds%s" % (m, interval, "/traffic" if case else "")] = dict(zip(probes, trips))
            for k in (0, 1):
                legs = [t[k] for t in trips if len(t) > k]
                cells = []
                for p in points:
                    e = [l["errors"][p] for l in legs if p in l["errors"]]
                    pooled[(p, case)] += e
                    cells.append("%5.1f %+6.1f (%2d)" % (100 * med([abs(x) for x in e]), 100 * med(e), len(e)))
                ratio = med([l["planned"] / l["actual"] for l in legs if l["planned"]])
                stand = med([l["standing"] / l["actual"] for l in legs])
                print("%-14s %2ds %7s %4d  %s   %5.2f     %4.2f" % (m, interval, case or "-", k, "  ".join(cells),
                                                                  ratio, stand))
                if args.verbose:
                    for p, t in zip(probes, trips):
                        if len(t) > k:
                            l = t[k]
                            print("    %-8s planned %6s actual %5.0f standing %4d  %s" % (
                                p, "%.0f" % l["planned"] if l["planned"] else "-", l["actual"], l["standing"],
                                " ".join("%+.2f" % l["errors"][q] if q in l["errors"] else "  -  " for q in points)))
    for c in cases:
        print("pooled %-7s " % (c or "-") + "  ".join(
            "%d%%: %5.1f %+6.1f (%d)" % (100 * p, 100 * med([abs(x) for x in pooled[(p, c)]]),
                                         100 * med(pooled[(p, c)]), len(pooled[(p, c)])) for p in points))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(allrows, f)


if __name__ == "__main__":
    main()
