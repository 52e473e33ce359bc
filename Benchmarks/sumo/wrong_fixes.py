#!/usr/bin/env python3
"""Classes of EdgeNav's wrong-way fixes on the SUMO probe traces that bench_sumo.py left behind.

    python3 Benchmarks/sumo/wrong_fixes.py [--workroot .cache/bench-sumo] [--maps helsinki,baltimore] [--intervals 1,5]

For each map and interval, final answers (`match-<i>s.jsonl`) and the navigator's provisional ones
(`location/snapped` in `replay-<i>s.jsonl`), over fixes off junction interiors (as evaluate.py scores them):
- each wrong fix by whether the truth was standing (speed < 0.1 m/s) or moving, and where the output's way lies in
  the sequence of OSM ways SUMO drove: the way the truth just left ("previous way"), the one it enters next
  ("next way"), or elsewhere; and whether the output is within 10 m of the true position;
- the signed along-road error of moving fixes (output projected on the truth's own track, + = ahead of the
  vehicle), which shows a lag or lead near the way changes.
bench_sumo.py's failures.txt lists the wrong fixes by way; this says which side of a node they fall on, which is
what decides a fix for short ways at junctions. Reads only; runs in seconds.
"""
import argparse
import collections
import math
import os

from evaluate import iso_seconds, load_jsonl
from traces import haversine_meters

NEAR_METERS = 10.0
TRACK_WINDOW_SAMPLES = 30   # the truth's track searched this many 1 s samples either side of the fix
TRACK_MATCH_METERS = 15.0   # outputs farther than this from the truth's track get no along-road error


def provisional_answers(path, truth):
    snapped = {}
    for e in load_jsonl(path):
        if e["topic"] == "location/snapped" and e["payload"]:
            snapped[round(iso_seconds(e["payload"]["timestamp"]), 3)] = e["payload"]
    return [snapped.get(round(t["timestamp"], 3), {"matched": False}) for t in truth]


def answers(trace_dir, interval, kind, truth):
    """EdgeNav's answers for one probe's fixes at `interval` s: `match`'s final ones, or the navigator's provisional
    ones from its replay."""
    if kind == "final":
        return load_jsonl(os.path.join(trace_dir, "match-%ds.jsonl" % interval))
    return provisional_answers(os.path.join(trace_dir, "replay-%ds.jsonl" % interval), truth)


def along_error(truth_all, sample, out):
    """Odometer of the output's projection on the truth's track minus the truth's odometer, metres."""
    ky = 111195.0
    kx = ky * math.cos(math.radians(out["lat"]))
    best = None
    for j in range(max(0, sample - TRACK_WINDOW_SAMPLES), min(len(truth_all) - 1, sample + TRACK_WINDOW_SAMPLES + 1)):
        u, v = truth_all[j], truth_all[j + 1]
        ax, ay = (u["lon"] - out["lon"]) * kx, (u["lat"] - out["lat"]) * ky
        bx, by = (v["lon"] - out["lon"]) * kx, (v["lat"] - out["lat"]) * ky
        dx, dy = bx - ax, by - ay
        length2 = dx * dx + dy * dy
        f = 0.0 if length2 == 0 else max(0.0, min(1.0, -(ax * dx + ay * dy) / length2))
        d = math.hypot(ax + f * dx, ay + f * dy)
        if best is None or d < best[0] - 1e-9:
            best = (d, u["odometer"] + f * (v["odometer"] - u["odometer"]) - truth_all[sample]["odometer"])
    return best[1] if best and best[0] < TRACK_MATCH_METERS else None


def classify(trace_dir, probes, interval, kind):
    classes = collections.Counter()
    along = []
    fixes = 0
    for probe in probes:
        d = os.path.join(trace_dir, probe)
        truth_all = load_jsonl(os.path.join(d, "truth.jsonl"))
        truth = [t for t in truth_all if t["sampleIndex"] % interval == 0]
        outs = answers(d, interval, kind, truth)
        ways = []
        for t in truth_all:
            if not t["junction"] and (not ways or ways[-1] != t["osmWayId"]):
                ways.append(t["osmWayId"])
        for t, o in zip(truth, outs):
            matched = o.get("matched", True) and o.get("lat") is not None
            if matched and t["speed"] >= 0.1:
                e = along_error(truth_all, t["sampleIndex"], o)
                if e is not None:
                    along.append(e)
            if t["junction"]:
                continue
            fixes += 1
            way = o.get("osmWayId") if matched else None
            if way == t["osmWayId"]:
                continue
            where = "unmatched" if way is None else "elsewhere"
            for k, w in enumerate(ways):
                if w != t["osmWayId"]:
                    continue
                if k > 0 and ways[k - 1] == way:
                    where = "previous way"
                elif k + 1 < len(ways) and ways[k + 1] == way:
                    where = "next way"
            near = matched and haversine_meters(t["lat"], t["lon"], o["lat"], o["lon"]) <= NEAR_METERS
            classes[("standing" if t["speed"] < 0.1 else "moving", where,
                     "within %g m" % NEAR_METERS if near else "farther")] += 1
    return fixes, classes, sorted(along)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workroot", default=".cache/bench-sumo")
    ap.add_argument("--maps", default="helsinki,liechtenstein,baltimore")
    ap.add_argument("--intervals", default="1,5")
    args = ap.parse_args()
    for m in args.maps.split(","):
        trace_dir = os.path.join(args.workroot, m, "traces")
        if not os.path.isdir(trace_dir):
            print("%s: no traces in %s" % (m, trace_dir))
            continue
        probes = sorted(os.listdir(trace_dir))
        for interval in [int(i) for i in args.intervals.split(",")]:
            for kind in ("final", "provisional"):
                fixes, classes, along = classify(trace_dir, probes, interval, kind)
                wrong = sum(classes.values())
                print("== %s %d s %s: %d wrong of %d fixes off junctions (%.1f %% on the true way)"
                      % (m, interval, kind, wrong, fixes, 100.0 - 100.0 * wrong / max(1, fixes)))
                if along:
                    q = lambda p: along[int(p * (len(along) - 1))]
                    print("   along-road error of moving fixes, m (+ = ahead): p10 %.1f p25 %.1f p50 %.1f p75 %.1f p90 %.1f"
                          % (q(0.1), q(0.25), q(0.5), q(0.75), q(0.9)))
                for key, n in sorted(classes.items(), key=lambda kv: -kv[1]):
                    print("   %5d  %5.2f %%  %s" % (n, 100.0 * n / max(1, fixes), " / ".join(key)))


if __name__ == "__main__":
    main()
