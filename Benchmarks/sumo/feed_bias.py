#!/usr/bin/env python3
"""How well a SUMO edgeData feed predicts the time a probe then takes on each edge (the question behind "traffic
known makes the ETA too long on free-flowing roads").

  python3 Benchmarks/sumo/feed_bias.py [--maps kouvola,baltimore,liechtenstein,helsinki] [--root .cache/bench-sumo]

For every probe's run along one SUMO edge (consecutive 1 s truth samples on it, junction interiors apart) it
compares the probe's time with what the feed said at the run's start (the newest interval that ended by then, up to
5 minutes old): per SUMO edge (one direction) and per OSM way as `traffic_feed.py` publishes it (both directions,
every piece), and with the free-flow time (the lane's speed limit). Prints, per map, the summed times and the
median per-run ratio feed ÷ probe, split by whether the probe stopped on the run and by whether the feed's
interval had vehicles departing or arriving on the edge (SUMO inserts them at 0 km/h).
"""
import argparse
import bisect
import json
import math
import os
import statistics
import xml.etree.ElementTree as ET

from evaluate import load_jsonl
from traces import EPOCH_SECONDS, way_of_edge


def read_edgedata(path):
    """[(end seconds, {edge: attributes})] in time order."""
    out = []
    for _, el in ET.iterparse(path):
        if el.tag != "interval":
            continue
        edges = {}
        for e in el.iter("edge"):
            if e.get("speed") is None:
                continue
            edges[e.get("id")] = {k: float(e.get(k, "0")) for k in
                                  ("speed", "sampledSeconds", "departed", "arrived", "waitingTime", "entered")}
        out.append((float(el.get("end")), edges))
        el.clear()
    return out


def read_lane_speeds(path):
    speeds = {}
    for _, el in ET.iterparse(path):
        if el.tag == "edge" and not el.get("id", ":").startswith(":"):
            lanes = [float(l.get("speed")) for l in el.iter("lane")]
            if lanes:
                speeds[el.get("id")] = max(lanes)
            el.clear()
    return speeds


def way_feed(intervals):
    """Per interval: {way: speed m/s} as traffic_feed.py aggregates (Σ distance ÷ Σ sampled seconds)."""
    out = []
    for _, edges in intervals:
        acc = {}
        for eid, a in edges.items():
            w = way_of_edge(eid)
            if w is None or a["sampledSeconds"] <= 0:
                continue
            s = acc.setdefault(w, [0.0, 0.0])
            s[0] += a["speed"] * a["sampledSeconds"]
            s[1] += a["sampledSeconds"]
        out.append({w: max(0.1 / 3.6, d / t) for w, (d, t) in acc.items()})
    return out


def runs(truth):
    """[(edge, t0, seconds, meters, min speed)] for consecutive samples on one non-internal edge."""
    out = []
    i = 0
    while i < len(truth):
        j = i
        while j + 1 < len(truth) and truth[j + 1]["edge"] == truth[i]["edge"]:
            j += 1
        if not truth[i]["edge"].startswith(":") and j + 1 < len(truth):
            meters = truth[j + 1]["odometer"] - truth[i]["odometer"]
            out.append((truth[i]["edge"], truth[i]["timestamp"] - EPOCH_SECONDS, j + 1 - i, meters,
                        min(s["speed"] for s in truth[i:j + 1])))
        i = j + 1
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--maps", default="kouvola,baltimore,liechtenstein,helsinki")
    ap.add_argument("--root", default=".cache/bench-sumo")
    args = ap.parse_args()
    for m in args.maps.split(","):
        work = os.path.join(args.root, m)
        if not os.path.exists(os.path.join(work, "edgedata.xml")):
            print("skipping %s: no edgedata.xml" % m)
            continue
        intervals = read_edgedata(os.path.join(work, "edgedata.xml"))
        ends = [e for e, _ in intervals]
        ways = way_feed(intervals)
        lane = read_lane_speeds(os.path.join(work, "net.net.xml"))
        tot = {"probe": 0.0, "free": 0.0, "edge": 0.0, "way": 0.0, "junction": 0.0, "uncovered": 0.0}
        ratios = {"moving, no dep/arr": [], "moving, dep/arr": [], "stopped": []}
        way_ratios = {"moving": [], "stopped": []}
        short = {"<50 m": [], "50-200 m": [], ">200 m": []}
        oracle = {"edge feed + true junction time": [], "way feed + true junction time": [],
                  "way feed, no junction time": [], "way feed 5-min avg + true junctions": [],
                  "free flow + true junction time": []}
        for p in sorted(os.listdir(os.path.join(work, "traces"))):
            truth = load_jsonl(os.path.join(work, "traces", p, "truth.jsonl"))
            with open(os.path.join(work, "traces", p, "waypoints.json")) as f:
                waypoints = json.load(f)
            start = truth[0]["timestamp"] - EPOCH_SECONDS
            all_runs = runs(truth)
            for wp in waypoints:
                mid = start + 0.5 * (wp["t"] - start)
                k = bisect.bisect_right(ends, mid) - 1
                actual = wp["t"] - mid
                if k < 0 or actual <= 0:
                    start = wp["t"]
                    continue
                junction = sum(1 for s in truth if s["edge"].startswith(":")
                               and mid <= s["timestamp"] - EPOCH_SECONDS < wp["t"])
                sums = dict.fromkeys(oracle, 0.0)
                for edge, t0, secs, meters, vmin in all_runs:
                    t1 = t0 + secs
                    if t1 <= mid or t0 >= wp["t"] or edge not in lane:
                        continue
                    share = (min(t1, wp["t"]) - max(t0, mid)) / secs
                    d = meters * share
                    w = way_of_edge(edge)
                    free = d / lane[edge]
                    a = next((intervals[b][1][edge] for b in range(k, max(-1, k - 5), -1)
                              if edge in intervals[b][1]), None)
                    wv = next((ways[b][w] for b in range(k, max(-1, k - 5), -1) if w in ways[b]), None)
                    paces = [(math.exp(-(ends[k] - ends[b]) / 300), 1 / ways[b][w])
                             for b in range(k, max(-1, k - 10), -1) if w in ways[b]]
                    avg = sum(x * y for x, y in paces) / sum(x for x, _ in paces) if paces else None
                    sums["edge feed + true junction time"] += d / max(a["speed"], 0.03) if a else free
                    sums["way feed + true junction time"] += d / wv if wv else free
                    sums["way feed, no junction time"] += d / wv if wv else free
                    sums["way feed 5-min avg + true junctions"] += d * avg if avg else free
                    sums["free flow + true junction time"] += free
                for name in oracle:
                    extra = 0 if "no junction" in name else junction
                    oracle[name].append((sums[name] + extra - actual) / actual)
                start = wp["t"]
            tot["junction"] += sum(1 for s in truth if s["edge"].startswith(":"))
            for edge, t0, secs, meters, vmin in runs(truth):
                if meters <= 1 or edge not in lane:
                    continue
                k = bisect.bisect_right(ends, t0) - 1
                a, wv = None, None
                for back in range(k, max(-1, k - 5), -1):
                    if a is None and edge in intervals[back][1]:
                        a = intervals[back][1][edge]
                    if wv is None and way_of_edge(edge) in ways[back]:
                        wv = ways[back][way_of_edge(edge)]
                free = meters / lane[edge]
                tot["probe"] += secs
                tot["free"] += free
                if a is None or wv is None:
                    tot["uncovered"] += secs
                    tot["edge"] += free
                    tot["way"] += free
                    continue
                fe = meters / max(a["speed"], 0.1 / 3.6)
                fw = meters / wv
                tot["edge"] += fe
                tot["way"] += fw
                stopped = vmin < 1
                key = "stopped" if stopped else (
                    "moving, dep/arr" if a["departed"] + a["arrived"] > 0 else "moving, no dep/arr")
                ratios[key].append(fe / secs)
                way_ratios["stopped" if stopped else "moving"].append(fw / secs)
                if not stopped:
                    short["<50 m" if meters < 50 else ("50-200 m" if meters < 200 else ">200 m")].append(fe / secs)
        print("%s: probe %.0f s on edges (+ %.0f s in junctions), free %.0f, feed per edge %.0f, per way %.0f, "
              "uncovered %.0f s" % (m, tot["probe"], tot["junction"], tot["free"], tot["edge"], tot["way"],
                                    tot["uncovered"]))
        print("   mid-leg remaining time from the feed alone (the probe's own remaining edges, feed at mid-leg), "
              "median |error| / signed:")
        for name, errs in oracle.items():
            if errs:
                print("     %-34s %5.1f %+6.1f %% (%d legs)" % (name, 100 * statistics.median([abs(e) for e in errs]),
                                                          100 * statistics.median(errs), len(errs)))
        for k, v in list(ratios.items()) + [("way " + k, v) for k, v in way_ratios.items()] + \
                [("moving " + k, v) for k, v in short.items()]:
            if v:
                q = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
                print("   %-22s n %4d  feed÷probe p25 %.2f  median %.2f  p75 %.2f" % (k, len(v), q[0], q[1], q[2]))


if __name__ == "__main__":
    main()
