#!/usr/bin/env python3
"""Causes of EdgeNav's wrong-way fixes on the SUMO probe traces that bench_sumo.py left behind.

    python3 Benchmarks/sumo/wrong_causes.py [--workroot .cache/bench-sumo] [--maps helsinki] [--intervals 1,5]
                                            [--kinds final,provisional] [--list N]

For every fix off junction interiors (as evaluate.py scores them) it finds where the truth's OSM way begins and ends
along SUMO's drive: the SUMO junctions (= OSM nodes, netconvert runs with --junctions.join false) at the start of
the first and the end of the last SUMO edge of the current run of that way, projected on the truth's own track.
Each wrong fix then gets one cause, the first that applies:
  start / end          within 10 s of the trace's first or last fix
  after outlier        the fix or one of the 3 fixes before it at this interval is an outlier
  boundary <3 m / 3-10 m   the truth lies that far (along its track) from the node where its way begins or ends, and
                       the output is on the way before or after that node in SUMO's sequence
  other way, parallel  the output is on a way SUMO did not drive at that point, in its direction ±30° (or the
                       opposite direction ±30°: the other carriageway) — a parallel road or a lane way
  other way, crossing  … at another angle (a cross street)
  rest                 e.g. the way before or after, but more than 10 m from the node
split by standing (true speed < 0.1 m/s) or moving. Also prints, over ALL fixes off junctions, how many lie within
3 / 10 m of a way boundary and what share of those were wrong, and lists the longest wrong stretches (--list N).
Reads only; needs the cached net.net.xml (its UTM projection parameters are read from <location>).
"""
import argparse
import collections
import math
import os
import re
import xml.etree.ElementTree as ET

from evaluate import load_jsonl
from wrong_fixes import answers

EDGE_WINDOW = 40  # 1 s samples searched for the projection of a node on the truth's track


def utm_to_lonlat(x, y, zone, north=True):
    """Inverse transverse Mercator on WGS84 (USGS / Snyder series), degrees; good to millimetres here."""
    a, f = 6378137.0, 1 / 298.257223563
    k0 = 0.9996
    e2 = f * (2 - f)
    ep2 = e2 / (1 - e2)
    x -= 500000.0
    if not north:
        y -= 10000000.0
    m = y / k0
    mu = m / (a * (1 - e2 / 4 - 3 * e2 ** 2 / 64 - 5 * e2 ** 3 / 256))
    e1 = (1 - math.sqrt(1 - e2)) / (1 + math.sqrt(1 - e2))
    phi1 = (mu + (3 * e1 / 2 - 27 * e1 ** 3 / 32) * math.sin(2 * mu)
            + (21 * e1 ** 2 / 16 - 55 * e1 ** 4 / 32) * math.sin(4 * mu)
            + (151 * e1 ** 3 / 96) * math.sin(6 * mu) + (1097 * e1 ** 4 / 512) * math.sin(8 * mu))
    n1 = a / math.sqrt(1 - e2 * math.sin(phi1) ** 2)
    t1 = math.tan(phi1) ** 2
    c1 = ep2 * math.cos(phi1) ** 2
    r1 = a * (1 - e2) / (1 - e2 * math.sin(phi1) ** 2) ** 1.5
    d = x / (n1 * k0)
    lat = phi1 - (n1 * math.tan(phi1) / r1) * (
        d ** 2 / 2 - (5 + 3 * t1 + 10 * c1 - 4 * c1 ** 2 - 9 * ep2) * d ** 4 / 24
        + (61 + 90 * t1 + 298 * c1 + 45 * t1 ** 2 - 252 * ep2 - 3 * c1 ** 2) * d ** 6 / 720)
    lon = (d - (1 + 2 * t1 + c1) * d ** 3 / 6
           + (5 - 2 * c1 + 28 * t1 - 3 * c1 ** 2 + 8 * ep2 + 24 * t1 ** 2) * d ** 5 / 120) / math.cos(phi1)
    return math.degrees(lon) + (zone - 1) * 6 - 180 + 3, math.degrees(lat)


def load_net(path):
    """Edge id -> (from junction, to junction); junction id -> (lat, lon)."""
    edges, nodes = {}, {}
    offset, zone, north = (0.0, 0.0), None, True
    for _, el in ET.iterparse(path, events=("end",)):
        if el.tag == "location":
            ox, oy = (float(v) for v in el.get("netOffset").split(","))
            offset = (ox, oy)
            m = re.search(r"\+zone=(\d+)", el.get("projParameter", ""))
            zone = int(m.group(1)) if m else None
            north = "+south" not in el.get("projParameter", "")
        elif el.tag == "edge" and el.get("function") != "internal":
            edges[el.get("id")] = (el.get("from"), el.get("to"))
            el.clear()
        elif el.tag == "junction" and el.get("type") != "internal":
            x, y = float(el.get("x")) - offset[0], float(el.get("y")) - offset[1]
            lon, lat = utm_to_lonlat(x, y, zone, north)
            nodes[el.get("id")] = (lat, lon)
            el.clear()
    return edges, nodes


def project_odometer(track, around, lat, lon):
    """Odometer of (lat, lon) projected on the truth's track near sample `around`, and its distance from it."""
    ky = 111195.0
    kx = ky * math.cos(math.radians(lat))
    best = None
    for j in range(max(0, around - EDGE_WINDOW), min(len(track) - 1, around + EDGE_WINDOW)):
        u, v = track[j], track[j + 1]
        ax, ay = (u["lon"] - lon) * kx, (u["lat"] - lat) * ky
        bx, by = (v["lon"] - lon) * kx, (v["lat"] - lat) * ky
        dx, dy = bx - ax, by - ay
        l2 = dx * dx + dy * dy
        f = 0.0 if l2 == 0 else max(0.0, min(1.0, -(ax * dx + ay * dy) / l2))
        d = math.hypot(ax + f * dx, ay + f * dy)
        if best is None or d < best[0] - 1e-9:
            best = (d, u["odometer"] + f * (v["odometer"] - u["odometer"]))
    return best[1], best[0]


def bearing(lat1, lon1, lat2, lon2):
    ky = 111195.0
    kx = ky * math.cos(math.radians(lat1))
    return math.degrees(math.atan2((lon2 - lon1) * kx, (lat2 - lat1) * ky)) % 360


def way_runs(track, edges, nodes):
    """Per sample index: (run index, odometer where the run's way begins, where it ends), runs of one way."""
    runs = []  # [way, first sample, last sample, first edge, last edge]
    for i, t in enumerate(track):
        if t["junction"]:
            continue
        if runs and runs[-1][0] == t["osmWayId"]:
            runs[-1][2] = i
            runs[-1][4] = t["edge"]
        else:
            runs.append([t["osmWayId"], i, i, t["edge"], t["edge"]])
    info = {}
    bounds = []
    for k, (way, first, last, e0, e1) in enumerate(runs):
        start = end = None
        if e0 in edges and edges[e0][0] in nodes:
            start = project_odometer(track, first, *nodes[edges[e0][0]])[0]
        if e1 in edges and edges[e1][1] in nodes:
            end = project_odometer(track, last, *nodes[edges[e1][1]])[0]
        bounds.append((start, end))
        for i in range(first, last + 1):
            info[i] = (k, start, end)
    return runs, bounds, info


def classify(workroot, m, interval, kind, edges, nodes, listing):
    trace_dir = os.path.join(workroot, m, "traces")
    causes = collections.Counter()
    near = collections.Counter()  # (band, right/wrong) over all fixes off junctions
    stretches = []
    fixes = 0
    for probe in sorted(os.listdir(trace_dir)):
        d = os.path.join(trace_dir, probe)
        track = load_jsonl(os.path.join(d, "truth.jsonl"))
        truth = [t for t in track if t["sampleIndex"] % interval == 0]
        outs = answers(d, interval, kind, truth)
        runs, bounds, info = way_runs(track, edges, nodes)
        t0, t1 = truth[0]["timestamp"], truth[-1]["timestamp"]
        run_of_wrong = None
        for n, (t, o) in enumerate(zip(truth, outs)):
            if t["junction"]:
                continue
            fixes += 1
            i = t["sampleIndex"]
            k, start, end = info[i]
            dists = [x for x in ((t["odometer"] - start) if start is not None else None,
                                 (end - t["odometer"]) if end is not None else None) if x is not None]
            boundary = min(dists) if dists else float("inf")
            band = "<3 m" if boundary < 3 else "3-10 m" if boundary < 10 else ">=10 m"
            matched = o.get("matched", True) and o.get("lat") is not None
            way = o.get("osmWayId") if matched else None
            ok = way == t["osmWayId"]
            near[(band, ok)] += 1
            if ok:
                if run_of_wrong:
                    stretches.append(run_of_wrong)
                run_of_wrong = None
                continue
            state = "standing" if t["speed"] < 0.1 else "moving"
            adjacent = (k > 0 and runs[k - 1][0] == way) or (k + 1 < len(runs) and runs[k + 1][0] == way)
            if way is None:
                cause = "unmatched"
            elif t["timestamp"] - t0 < 10 or t1 - t["timestamp"] < 10:
                cause = "start / end"
            elif any(truth[j]["outlier"] for j in range(max(0, n - 3), n + 1)):
                cause = "after outlier"
            elif adjacent and boundary < 3:
                cause = "boundary <3 m"
            elif adjacent and boundary < 10:
                cause = "boundary 3-10 m"
            elif not adjacent:
                j = min(len(track) - 1, i + 1)
                h = max(0, i - 1)
                heading = bearing(track[h]["lat"], track[h]["lon"], track[j]["lat"], track[j]["lon"])
                diff = abs((o.get("course", heading) - heading + 180) % 360 - 180)
                cause = "other way, parallel" if diff < 30 or diff > 150 else "other way, crossing"
            else:
                cause = "rest (adjacent way, >=10 m from node)"
            causes[(state, cause)] += 1
            if run_of_wrong is None:
                run_of_wrong = [probe, t["timestamp"] - t0, 0, t["osmWayId"], way, cause, state]
            run_of_wrong[2] += 1
        if run_of_wrong:
            stretches.append(run_of_wrong)
    wrong = sum(causes.values())
    print("== %s %d s %s: %d wrong of %d fixes off junctions (%.2f %% on the true way)"
          % (m, interval, kind, wrong, fixes, 100.0 - 100.0 * wrong / max(1, fixes)))
    for band in ("<3 m", "3-10 m", ">=10 m"):
        a, w = near[(band, True)], near[(band, False)]
        print("   truth %-6s from a way boundary: %5d fixes, %4d wrong (%.1f %%)" % (band, a + w, w, 100.0 * w / max(1, a + w)))
    by_cause = collections.Counter()
    for (state, cause), n in causes.items():
        by_cause[cause] += n
    for cause, n in by_cause.most_common():
        print("   %5d  %5.2f %% of fixes  %-38s (standing %d, moving %d)"
              % (n, 100.0 * n / max(1, fixes), cause, causes[("standing", cause)], causes[("moving", cause)]))
    if listing:
        stretches.sort(key=lambda s: -s[2])
        for s in stretches[:listing]:
            print("     %s t+%ds: %d fixes, truth way %s, output %s, %s, %s" % tuple(s))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workroot", default=".cache/bench-sumo")
    ap.add_argument("--maps", default="helsinki")
    ap.add_argument("--intervals", default="1,5")
    ap.add_argument("--kinds", default="final,provisional")
    ap.add_argument("--list", type=int, default=0)
    args = ap.parse_args()
    for m in args.maps.split(","):
        edges, nodes = load_net(os.path.join(args.workroot, m, "net.net.xml"))
        for interval in [int(i) for i in args.intervals.split(",")]:
            for kind in args.kinds.split(","):
                classify(args.workroot, m, interval, kind, edges, nodes, args.list)


if __name__ == "__main__":
    main()
