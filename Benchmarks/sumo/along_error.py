#!/usr/bin/env python3
"""Signed along-track error of EdgeNav's final answers on the SUMO probe traces, by class of fix.

    python3 Benchmarks/sumo/along_error.py <map dir, e.g. .cache/bench-sumo/helsinki> <interval 1|5> [answers dir]

Each answer (match-<i>s.jsonl of every probe, from the map dir's traces/ or from <answers dir>/<probe>/) is projected
on SUMO's own 1 s track within ±40 samples of its fix; its odometer there minus the truth's is the along-track error
(negative: behind the vehicle). Classes: standing (true speed < 0.1 m/s) or moving, by true speed, accelerating /
braking (true speed change over ±3 s beyond ±0.5 m/s²), steady, and by the turn of SUMO's track within ±12 m
(> 30°, < 10°); the wrong-way answers (off junctions) apart. Passing the raw fixes as answers gives the noise itself.
Reads only.
"""
import json
import math
import os
import statistics
import sys

from evaluate import load_jsonl

R = 6371000.0


def xy(lat, lon, lat0):
    return math.radians(lon) * R * math.cos(math.radians(lat0)), math.radians(lat) * R


def rows_of(src, step, answers):
    with open(os.path.join(src, "summary.json")) as f:
        probes = [t["probe"] for t in json.load(f)["intervals"]["1s"]["trips"]]
    rows = []
    for p in probes:
        tr = load_jsonl(os.path.join(src, "traces", p, "truth.jsonl"))
        lat0 = tr[0]["lat"]
        pts = [xy(t["lat"], t["lon"], lat0) for t in tr]
        odo = [t["odometer"] for t in tr]
        truth = [t for t in tr if t["sampleIndex"] % step == 0 and not t.get("dropped")]
        out = load_jsonl(os.path.join(answers or os.path.join(src, "traces"), p, "match-%ds.jsonl" % step))

        def segment_at(od):
            k = next((j for j in range(len(odo) - 1) if odo[j + 1] >= od), len(odo) - 2)
            return pts[max(0, k)], pts[max(0, k) + 1]

        def heading(a, b):
            return math.degrees(math.atan2(b[0] - a[0], b[1] - a[1]))

        for t, o in zip(truth, out):
            i = t["sampleIndex"]
            if o.get("lat") is None:
                continue
            q = xy(o["lat"], o["lon"], lat0)
            best = None
            for k in range(max(0, i - 40), min(len(pts) - 1, i + 40)):
                (ax, ay), (bx, by) = pts[k], pts[k + 1]
                dx, dy = bx - ax, by - ay
                l2 = dx * dx + dy * dy
                u = 0 if l2 == 0 else max(0, min(1, ((q[0] - ax) * dx + (q[1] - ay) * dy) / l2))
                dist = math.hypot(q[0] - ax - u * dx, q[1] - ay - u * dy)
                od = odo[k] + u * (odo[k + 1] - odo[k])
                if best is None or dist < best[0] - 1e-9 or (
                        abs(dist - best[0]) < 1e-9 and abs(od - odo[i]) < abs(best[1] - odo[i])):
                    best = (dist, od)
            a1, _ = segment_at(odo[i] - 12)
            _, b2 = segment_at(odo[i] + 12)
            pm = segment_at(odo[i])[0]
            turn = None
            if math.hypot(pm[0] - a1[0], pm[1] - a1[1]) > 3 and math.hypot(b2[0] - pm[0], b2[1] - pm[1]) > 3:
                turn = abs((heading(a1, pm) - heading(pm, b2) + 180) % 360 - 180)
            acc = (tr[i + 3]["speed"] - tr[i - 3]["speed"]) / 6 if 3 <= i < len(tr) - 3 else None
            wrong = not t["junction"] and o.get("osmWayId") != t["osmWayId"]
            rows.append({"e": best[1] - odo[i], "v": t["speed"], "a": acc, "turn": turn, "wrong": wrong})
    return rows


def summary(name, es):
    if not es:
        print("%-24s n=0" % name)
        return
    a = sorted(abs(x) for x in es)
    print("%-24s n=%5d  median %+.2f m  |e| p50 %.2f  p90 %.2f m" % (
        name, len(es), statistics.median(es), a[len(a) // 2], a[int(0.9 * len(a))]))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    rows = rows_of(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) == 4 else None)
    moving = [r for r in rows if r["v"] >= 0.1]
    summary("standing", [r["e"] for r in rows if r["v"] < 0.1])
    summary("moving", [r["e"] for r in moving])
    for lo, hi in ((0.1, 3), (3, 8), (8, 14), (14, 60)):
        summary("moving %g-%g m/s" % (lo, hi), [r["e"] for r in moving if lo <= r["v"] < hi])
    summary("accelerating", [r["e"] for r in moving if r["a"] is not None and r["a"] > 0.5])
    summary("braking", [r["e"] for r in moving if r["a"] is not None and r["a"] < -0.5])
    summary("steady", [r["e"] for r in moving if r["a"] is not None and abs(r["a"]) < 0.2 and r["v"] > 1])
    summary("turn > 30 deg", [r["e"] for r in moving if r["turn"] is not None and r["turn"] > 30])
    summary("turn < 10 deg", [r["e"] for r in moving if r["turn"] is not None and r["turn"] < 10])
    summary("wrong way, standing", [r["e"] for r in rows if r["wrong"] and r["v"] < 0.1])
    summary("wrong way, moving", [r["e"] for r in moving if r["wrong"]])


if __name__ == "__main__":
    main()
