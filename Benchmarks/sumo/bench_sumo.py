#!/usr/bin/env python3
"""Judge-like drives from a real traffic simulator: SUMO probes -> noisy traces -> EdgeNav match / replay -> figures.

Run through scripts/bench-sumo, which fetches SUMO and the maps and builds edgenav. Writes, per map, under
--workroot/<map>/: the SUMO run, traces/<probe>/ (truth, raw traces, EdgeNav's outputs), summary.json and
failures.txt; prints Markdown table rows for BENCHMARKS.md.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate  # noqa: E402
import realistic  # noqa: E402
import traces  # noqa: E402

REROUTE_WITHIN_FIXES = 3


def simulate(args, osm, work):
    key = {"osm": os.path.realpath(osm), "probes": args.probes, "seed": args.seed, "density": args.density, "tls": args.tls_type}
    if args.stop_seconds:
        key["stopSeconds"] = args.stop_seconds
    key_path = os.path.join(work, "simulation.key.json")
    if os.path.exists(key_path) and os.path.exists(os.path.join(work, "fcd.xml")):
        with open(key_path) as f:
            if json.load(f) == key:
                print("  SUMO run cached in %s" % work, file=sys.stderr)
                return
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "simulate.py"), "--osm-pbf", osm,
                    "--workdir", work, "--sumo-home", args.sumo_home, "--probes", str(args.probes),
                    "--seed", str(args.seed), "--density", str(args.density), "--tls-type", args.tls_type,
                    "--stop-seconds", str(args.stop_seconds)], check=True, stdout=sys.stderr)
    with open(key_path, "w") as f:
        json.dump(key, f)


def run_references(args, work, probes, intervals, results):
    """OSRM `match` and Valhalla Meili on the same traces (positions and times only, whole trace at once), through
    Benchmarks/matching/reference.py in the python3.12 venv scripts/bench-matching makes. Adds MatchTally rows
    "valhalla" and "osrm" (OSRM answers positions only: its way-id figures are left out)."""
    reference = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "matching", "reference.py")
    data = os.path.join(work, "reference-data")
    subprocess.run([args.reference_python, reference, "prepare", args.osm_pbf, data], check=True, stdout=sys.stderr)
    for interval in intervals:
        step = int(interval)
        ref_dir = os.path.join(work, "reference-%ds" % step)
        os.makedirs(ref_dir, exist_ok=True)
        truths = []
        with open(os.path.join(ref_dir, "fixes.jsonl"), "w") as f:
            for probe in probes:
                d = os.path.join(work, "traces", probe)
                fixes = evaluate.load_jsonl(os.path.join(d, "raw-%ds.jsonl" % step))
                f.write(json.dumps([{"lat": x["lat"], "lon": x["lon"], "timestamp": x["timestamp"]} for x in fixes]) + "\n")
                truths.append([t for t in evaluate.load_jsonl(os.path.join(d, "truth.jsonl")) if t["sampleIndex"] % step == 0])
        for engine in ("osrm", "valhalla"):
            subprocess.run([args.reference_python, reference, engine, data, ref_dir], check=True, stdout=sys.stderr)
        tallies = {"osrm": evaluate.MatchTally(), "valhalla": evaluate.MatchTally()}
        for engine, name in (("osrm", "osrm-points.jsonl"), ("valhalla", "valhalla.jsonl")):
            for probe, truth, points in zip(probes, truths, evaluate.load_jsonl(os.path.join(ref_dir, name))):
                for t, p in zip(truth, points + [None] * (len(truth) - len(points))):
                    out = {"matched": False} if p is None else {"lat": p[0], "lon": p[1],
                                                              "osmWayId": p[2] if len(p) > 2 else None}
                    tallies[engine].add(probe, t, out)
        results["%ds" % step]["valhalla"] = tallies["valhalla"]
        results["%ds" % step]["osrm"] = tallies["osrm"]


def med(values):
    return statistics.median(values) if values else float("nan")


def navigation_summary(trips, interval):
    s = {"trips": len(trips), "routed": sum(t["routeStatus"] == "ok" for t in trips)}
    waypoints = [a for t in trips for a in t["arrivals"]]
    s["waypoints"] = len(waypoints)
    s["arrivedOnce"] = sum(a["count"] == 1 for a in waypoints)
    s["missed"] = sum(a["count"] == 0 for a in waypoints)
    s["missedMidpoint"] = sum(t["arrivals"][0]["count"] == 0 for t in trips)
    s["missedEnd"] = sum(t["arrivals"][-1]["count"] == 0 for t in trips)
    s["duplicate"] = sum(a["count"] > 1 for a in waypoints)
    detected = [a for a in waypoints if "trueDistance" in a]
    s["within30"] = sum(a["trueDistance"] <= 30 for a in detected)
    # Announced beyond 30 m although a fix had been taken within 30 m of the waypoint: the ones the navigator could
    # have had (the rest had no fix within 30 m: at 5 s fixes at speed the nearest fixes lie 35-110 m either side).
    s["beyond30WithFixWithin"] = sum(a["trueDistance"] > 30 and a.get("fixWithin30", True) for a in detected)
    s["early"] = sum(a["early"] for a in detected)
    s["passedEarlier"] = sum(a["passedEarlier"] for a in detected)
    s["late"] = sum(a["odometerToGo"] < -30 for a in detected)
    s["arrivalDistanceP50"] = med([a["trueDistance"] for a in detected])
    same = [t for t in trips if t["routeStatus"] == "ok" and t["leftRoute"] is None]
    other = [t for t in trips if t["routeStatus"] == "ok" and t["leftRoute"] is not None
             and not t["leftRoute"].get("nearEnd")]
    # Left within 30 m of the plan's end (`evaluate.find_leave`): neither a false reroute nor one owed.
    near_end = [t for t in trips if t["routeStatus"] == "ok" and t["leftRoute"] is not None
                and t["leftRoute"].get("nearEnd")]
    s["nearEndTrips"] = len(near_end)
    s["nearEndReroutes"] = sum(len(t["reroutes"]) for t in near_end)
    s["sameRouteTrips"] = len(same)
    s["sameRouteReroutes"] = sum(len(t["reroutes"]) for t in same)
    s["sameRouteTripsWithReroute"] = sum(bool(t["reroutes"]) for t in same)
    s["otherRouteTrips"] = len(other)
    latencies, meters, early_false, in_time, never = [], [], 0, 0, 0
    started_off = [t for t in other if t["leftRoute"].get("startedOff")]
    s["otherRouteStartedOff"] = len(started_off)
    for t in other:
        if t["leftRoute"].get("startedOff"):
            continue
        leave = t["leftRoute"]["t"]
        before = [r for r in t["reroutes"] if r["t"] < leave - 2 * interval]
        early_false += len(before)
        after = sorted((r for r in t["reroutes"] + t.get("replanned", []) if r["t"] >= leave - 2 * interval),
                       key=lambda r: r["t"])
        rejoined = t["leftRoute"].get("rejoinedT")
        if after and rejoined is not None and after[0]["t"] > rejoined:
            after = []  # back on the plan before any reroute: a later reroute answers something else
        if after:
            fixes = (after[0]["t"] - leave) / interval
            latencies.append(fixes)
            if after[0]["odometer"] is not None:
                meters.append(after[0]["odometer"] - t["leftRoute"]["odometer"])
            in_time += fixes <= REROUTE_WITHIN_FIXES
        else:
            never += 1
    s["otherRouteReroutedWithin3"] = in_time
    s["otherRouteNeverRerouted"] = never
    s["otherRouteRerouteLatencyFixesP50"] = med(latencies)
    s["otherRouteFalseBeforeLeaving"] = early_false
    s["otherRouteRerouteLatencyMetersP50"] = med(meters)
    s["otherRouteRerouteLatencyFixes"] = sorted(latencies)
    s["otherRouteRerouteLatencyMeters"] = sorted(round(m) for m in meters)
    ratios = [lt["plannedSeconds"] / lt["actualSeconds"] for t in trips for lt in t.get("legTimes", [])[:1]
              if lt["actualSeconds"] > 0]
    s["plannedOverActualLeg0Median"] = med(ratios)
    for k in (0, 1):
        errors = [t["eta"][k]["error"] for t in trips if len(t["eta"]) > k and t["eta"][k]]
        s["etaLeg%dCount" % k] = len(errors)
        s["etaLeg%dMedianAbs" % k] = med([abs(e) for e in errors])
        s["etaLeg%dSignedMedian" % k] = med(errors)
    return s


def wrong_fix_breakdown(trace_dir, probes, interval):
    """Final answers off the true way (off junctions), by kind: near a change of way with the output close to the
    true position (SUMO's edges end at the junction's stop line, OSM ways at the node; many OSM ways are a few
    metres long), or really elsewhere."""
    kinds, total = {}, 0
    for probe in probes:
        d = os.path.join(trace_dir, probe)
        truth = evaluate.load_jsonl(os.path.join(d, "truth.jsonl"))
        changes, previous = [], None
        for x in truth:
            if x["junction"]:
                changes.append(x["odometer"])
                continue
            if previous is not None and x["osmWayId"] != previous:
                changes.append(x["odometer"])
            previous = x["osmWayId"]
        step = int(interval[:-1])
        sub = [x for x in truth if x["sampleIndex"] % step == 0 and not x.get("dropped")]
        for x, o in zip(sub, evaluate.load_jsonl(os.path.join(d, "match-%s.jsonl" % interval))):
            if x["junction"]:
                continue
            total += 1
            if o.get("osmWayId") == x["osmWayId"]:
                continue
            state = "stopped" if x["speed"] < 0.1 else "moving"
            if not o.get("matched", True) or o.get("lat") is None:
                kind = "unmatched"
            else:
                err = traces.haversine_meters(x["lat"], x["lon"], o["lat"], o["lon"])
                near = min([abs(c - x["odometer"]) for c in changes] or [float("inf")])
                if err <= 10 and near <= 10:
                    kind = "within 10 m of a change of way, output within 10 m of the truth (%s)" % state
                elif err <= 10:
                    kind = "mid-way, output within 10 m of the truth (%s)" % state
                else:
                    kind = "output more than 10 m from the truth (%s)" % state
            kinds[kind] = kinds.get(kind, 0) + 1
    return total, kinds


def failure_notes(name, interval, tally, trips, out):
    """Where the wrong fixes and the navigation failures are, for the analysis in BENCHMARKS.md / the findings."""
    out.write("== %s %s ==\n" % (name, interval))
    wrong = tally["final"].wrong
    out.write("final-answer wrong fixes off junctions: %d\n" % len(wrong))
    by_edge = {}
    for probe, t, o in wrong:
        by_edge.setdefault((t["edge"], o.get("osmWayId"), o.get("roadName")), []).append(probe)
    for (edge, way, road), probes in sorted(by_edge.items(), key=lambda kv: -len(kv[1]))[:25]:
        out.write("  %4d fixes  true edge %-22s -> output way %s (%s)  probes %s\n"
                  % (len(probes), edge, way, road, ",".join(sorted(set(probes)))))
    stopped_wrong = sum(1 for _, t, _ in wrong if t["speed"] < 0.1)
    out.write("  of them stopped (true speed < 0.1 m/s): %d\n" % stopped_wrong)
    for t in trips:
        notes = []
        for k, a in enumerate(t["arrivals"]):
            if a["count"] != 1 or a.get("early") or a.get("passedEarlier") or a.get("trueDistance", 0) > 30:
                notes.append("waypoint %d: %d arrivals, true distance %.1f m, %.1f m of drive to go"
                             % (k, a["count"], a.get("trueDistance", float("nan")), a.get("odometerToGo", float("nan"))))
        if t["reroutes"]:
            notes.append("reroutes at %s; left the planned route at %s (%s)"
                         % (", ".join("%s +%.0f s" % (r["reason"], r["t"] - traces.EPOCH_SECONDS) for r in t["reroutes"]),
                            "+%.0f s" % (t["leftRoute"]["t"] - traces.EPOCH_SECONDS) if t["leftRoute"] else "never",
                            t["leftRoute"]["edge"] if t["leftRoute"] else "-"))
        elif t["leftRoute"]:
            notes.append("left the planned route at +%.0f s (%s) and was never rerouted"
                         % (t["leftRoute"]["t"] - traces.EPOCH_SECONDS, t["leftRoute"]["edge"]))
        for k, lt in enumerate(t.get("legTimes", [])):
            notes.append("leg %d planned %.0f m %.0f s, SUMO drove %.0f m in %.0f s"
                         % (k, lt["plannedMeters"], lt["plannedSeconds"], lt["actualMeters"], lt["actualSeconds"]))
        for k, e in enumerate(t["eta"]):
            if e and abs(e["error"]) > 0.3:
                notes.append("leg %d ETA: predicted %.0f s, actual %.0f s (%+.0f %%)"
                             % (k, e["predicted"], e["actual"], 100 * e["error"]))
        if notes:
            out.write("  %s: %s\n" % (t["probe"], "; ".join(notes)))


def write_summary(summary, results, work, trace_dir, probes):
    """Fills summary["intervals"] from evaluate.evaluate's results; writes <work>/failures.txt and summary.json."""
    with open(os.path.join(work, "failures.txt"), "w") as notes:
        for interval, r in results.items():
            summary["intervals"][interval] = {"final": r["final"].row(), "provisional": r["provisional"].row(),
                                              **{k: r[k].row() for k in ("valhalla", "osrm") if k in r},
                                              "navigation": navigation_summary(r["trips"], int(interval[:-1])),
                                              "trips": r["trips"]}
            if "tripsTraffic" in r:
                summary["intervals"][interval]["navigationTraffic"] = navigation_summary(r["tripsTraffic"],
                                                                                         int(interval[:-1]))
                summary["intervals"][interval]["tripsTraffic"] = r["tripsTraffic"]
            failure_notes(summary["map"], interval, r, r["trips"], notes)
            total, kinds = wrong_fix_breakdown(trace_dir, probes, interval)
            summary["intervals"][interval]["wrongFinalKinds"] = kinds
            notes.write("final-answer wrong fixes by kind, of %d off-junction fixes:\n" % total)
            for kind, count in sorted(kinds.items(), key=lambda kv: -kv[1]):
                notes.write("  %5d  %4.1f %%  %s\n" % (count, 100.0 * count / total, kind))
    with open(os.path.join(work, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--map", required=True, help="name used in paths and tables")
    ap.add_argument("--label", help="directory and table name (default: the map, plus -actuated)")
    ap.add_argument("--osm-pbf", required=True)
    ap.add_argument("--probes", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--density", type=float, default=60.0)
    ap.add_argument("--intervals", default="1,5")
    ap.add_argument("--tls-type", default="static", choices=["static", "actuated"])
    ap.add_argument("--stop-seconds", type=int, default=0,
                    help="probes stop this long halfway and at the end (default 0: drive through, vanish moving)")
    ap.add_argument("--no-traffic", action="store_true",
                    help="no traffic-known replay (default: SUMO edge data -> traffic.jsonl, replayed a second time)")
    ap.add_argument("--reference-python", help="python of a venv with osrm-bindings and pyvalhalla: also run them")
    ap.add_argument("--noise", default="white", choices=["white"] + sorted(realistic.PRESETS),
                    help="white: traces.py's noise (the SUMO run's own traces); otherwise realistic.py's preset on the "
                         "truth of the white run in <workroot>/<label>/ (run that first), written to "
                         "<workroot>/<label>-<noise>/, no SUMO run and no traffic replay of its own")
    ap.add_argument("--edgenav", required=True)
    ap.add_argument("--sumo-home", required=True)
    ap.add_argument("--workroot", required=True)
    args = ap.parse_args()

    if args.label:
        args.map = args.label
    else:
        if args.tls_type != "static":
            args.map += "-" + args.tls_type
        if args.stop_seconds:
            args.map += "-stops"
    if args.noise != "white":
        return main_noise(args)
    work = os.path.join(args.workroot, args.map)
    os.makedirs(work, exist_ok=True)
    print("%s: SUMO" % args.map, file=sys.stderr)
    simulate(args, args.osm_pbf, work)
    if not args.no_traffic:
        print("%s: traffic feed (SUMO edge data)" % args.map, file=sys.stderr)
        feed_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "traffic_feed.py")
        subprocess.run([sys.executable, feed_script, "record", "--workdir", work, "--sumo-home", args.sumo_home],
                       check=True, stdout=sys.stderr)
        subprocess.run([sys.executable, feed_script, "feed", "--workdir", work], check=True, stdout=sys.stderr)
    traffic = None if args.no_traffic else os.path.join(work, "traffic.jsonl")
    graph = os.path.join(work, "map.graph")
    subprocess.run([args.edgenav, "map", "import", "-o", graph, args.osm_pbf], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print("%s: traces" % args.map, file=sys.stderr)
    trace_dir = os.path.join(work, "traces")
    probes = traces.make_traces(os.path.join(work, "fcd.xml"), os.path.join(work, "tripinfo.xml"), trace_dir,
                                args.probes, args.seed)
    if len(probes) < args.probes:
        print("  only %d probes of 1.5-6 km finished without a teleport" % len(probes), file=sys.stderr)
    print("%s: EdgeNav on %d probes" % (args.map, len(probes)), file=sys.stderr)
    intervals = [int(x) for x in args.intervals.split(",")]
    results = evaluate.evaluate(args.edgenav, graph, trace_dir, probes, intervals, traces.EPOCH_SECONDS, traffic)
    if args.reference_python:
        print("%s: OSRM and Valhalla" % args.map, file=sys.stderr)
        run_references(args, work, probes, intervals, results)
    with open(os.path.join(work, "simulation.json")) as f:
        sim = json.load(f)
    summary = {"map": args.map, "probes": len(probes), "simulation": sim, "intervals": {}}
    write_summary(summary, results, work, trace_dir, probes)
    print_tables(summary)
    if any("navigationTraffic" in r for r in summary["intervals"].values()):
        print()
        print_traffic_table(summary)


def main_noise(args):
    """Realistic noise (realistic.py) on the probes of an existing white run: the same truth, the same graph."""
    source = os.path.join(args.workroot, args.map)
    with open(os.path.join(source, "summary.json")) as f:
        white = json.load(f)
    probes = [t["probe"] for t in next(iter(white["intervals"].values()))["trips"]]
    args.map = "%s-%s" % (args.map, args.noise)
    work = os.path.join(args.workroot, args.map)
    trace_dir = os.path.join(work, "traces")
    os.makedirs(trace_dir, exist_ok=True)
    params = realistic.parameters(args.noise, {})
    print("%s: %s noise on %d probes" % (args.map, args.noise, len(probes)), file=sys.stderr)
    realistic.perturb(os.path.join(source, "traces"), trace_dir, probes, args.seed, params)
    intervals = [int(x) for x in args.intervals.split(",")]
    results = evaluate.evaluate(args.edgenav, os.path.join(source, "map.graph"), trace_dir, probes, intervals,
                                traces.EPOCH_SECONDS, None, keep_accuracy=True)
    summary = {"map": args.map, "probes": len(probes), "simulation": white["simulation"], "noise": params,
               "intervals": {}}
    write_summary(summary, results, work, trace_dir, probes)
    print_tables(summary)


MATCHING_HEADER = ("| map | interval | answers | fixes | on true way (off junctions) | all fixes, junction fixes "
                   "right on either neighbour | stopped fixes within 10 m | error p50 | error p95 |\n"
                   "| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
NAVIGATION_HEADER = ("| map | interval | routed | arrivals once | within 30 m (true position) | early | "
                     "trips on EdgeNav's route: reroutes | trips SUMO drove another way: reroute | ETA error leg 1 "
                     "median abs (signed) | ETA error leg 2 | planned ÷ SUMO leg-1 time |\n"
                     "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")


TRAFFIC_HEADER = ("| map | interval | ETA leg 1 median abs (signed): no feed | traffic known | ETA leg 2: no feed | "
                  "traffic known | with traffic: arrivals once | reroutes on trips on EdgeNav's route (of them fasterRoute) |\n"
                  "| --- | --- | --- | --- | --- | --- | --- | --- |")


def print_traffic_table(summary, header=True):
    """Mid-leg remaining time without and with the per-way feed from the same SUMO run ("traffic is known")."""
    if header:
        print(TRAFFIC_HEADER)
    for interval, r in summary["intervals"].items():
        if "navigationTraffic" not in r:
            continue
        n, t = r["navigation"], r["navigationTraffic"]
        faster = sum(1 for trip in r["tripsTraffic"] if trip["routeStatus"] == "ok" and trip["leftRoute"] is None
                     for x in trip["reroutes"] if x["reason"] == "fasterRoute")
        cell = lambda s, k: "%.0f %% (%+.0f %%)" % (100 * s["etaLeg%dMedianAbs" % k], 100 * s["etaLeg%dSignedMedian" % k])
        print("| %s | %s | %s | %s | %s | %s | %d/%d | %d (%d) |"
              % (summary["map"], interval, cell(n, 0), cell(t, 0), cell(n, 1), cell(t, 1), t["arrivedOnce"],
                 t["waypoints"], t["sameRouteReroutes"], faster))


def print_tables(summary, header=True, matching=True, navigation=True):
    name = summary["map"]
    if header and matching:
        print(MATCHING_HEADER)
    for interval, r in (summary["intervals"].items() if matching else ()):
        for kind, label in (("final", "EdgeNav `match` (final, lag)"), ("provisional", "navigator (provisional)"),
                            ("valhalla", "Valhalla Meili (offline)"), ("osrm", "OSRM match (offline)")):
            if kind not in r:
                continue
            m = r[kind]
            if kind == "osrm":  # positions only: no way ids
                print("| %s | %s | %s | %d | n/a | n/a | %.1f %% of %d | %.1f m | %.1f m |"
                      % (name, interval, label, m["fixes"], m["stoppedWithin10"], m["stoppedFixes"],
                         m["errorP50"], m["errorP95"]))
                continue
            print("| %s | %s | %s | %d | %.1f %% | %.1f %% (junction fixes %.0f %% of %d) | %.1f %% of %d | %.1f m | %.1f m |"
                  % (name, interval, label, m["fixes"], m["onTrueWay"], m["withJunctions"], m["junctionRight"],
                     m["junctionFixes"], m["stoppedWithin10"], m["stoppedFixes"], m["errorP50"], m["errorP95"]))
    if header and matching and navigation:
        print()
    if header and navigation:
        print(NAVIGATION_HEADER)
    for interval, r in (summary["intervals"].items() if navigation else ()):
        n = r["navigation"]
        print("| %s | %s | %d/%d | %d/%d once (missed: %d midpoints, %d ends; %d twice) | %d/%d%s | %d (+%d passed earlier) | %d trips: %d reroutes (%d trips)%s | "
              "%d trips: %d within 3 fixes (p50 %.1f fixes, %.0f m driven), %d never, %d false before%s | %.0f %% (%+.0f %%), n=%d | %.0f %% (%+.0f %%), n=%d | %.2f |"
              % (name, interval, n["routed"], n["trips"], n["arrivedOnce"], n["waypoints"], n["missedMidpoint"],
                 n["missedEnd"], n["duplicate"], n["within30"], n["arrivedOnce"] + n["duplicate"],
                 ("" if n["within30"] == n["arrivedOnce"] + n["duplicate"] or "beyond30WithFixWithin" not in n
                  else " (beyond 30 m with a fix within: %d)" % n["beyond30WithFixWithin"]), n["early"],
                 n["passedEarlier"], n["sameRouteTrips"], n["sameRouteReroutes"],
                 n["sameRouteTripsWithReroute"],
                 ("; %d left within 30 m of the end: %d reroutes" % (n["nearEndTrips"], n["nearEndReroutes"]))
                 if n.get("nearEndTrips") else "",
                 n["otherRouteTrips"], n["otherRouteReroutedWithin3"],
                 n["otherRouteRerouteLatencyFixesP50"], n["otherRouteRerouteLatencyMetersP50"], n["otherRouteNeverRerouted"], n["otherRouteFalseBeforeLeaving"],
                 (", %d started off the plan" % n["otherRouteStartedOff"]) if n.get("otherRouteStartedOff") else "",
                 100 * n["etaLeg0MedianAbs"], 100 * n["etaLeg0SignedMedian"], n["etaLeg0Count"],
                 100 * n["etaLeg1MedianAbs"], 100 * n["etaLeg1SignedMedian"], n["etaLeg1Count"],
                 n["plannedOverActualLeg0Median"]))


if __name__ == "__main__":
    main()
