#!/usr/bin/env python3
"""Prints the Markdown tables of BENCHMARKS.md "Traffic-simulator drives (SUMO)" from bench_sumo.py's summaries.
   report.py .cache/bench-sumo/helsinki/summary.json .cache/bench-sumo/baltimore/summary.json …"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_sumo  # noqa: E402

summaries = [json.load(open(path)) for path in sys.argv[1:]]
print("| map | SUMO network | background traffic | teleports | probes | probe fixes standing |")
print("| --- | --- | --- | --- | --- | --- |")
for s in summaries:
    sim = s["simulation"]
    stats = sim.get("vehicleTripStatistics", {})
    standing = s["intervals"].get("1s", {}).get("final", {})
    print("| %s | %d edges, %d signal controllers (%s) | %s vehicles (%.0f veh/h/km), mean speed %.1f km/h, "
          "%.0f s waiting per trip | %s | %d | %s |"
          % (s["map"], sim["edges"], sim["trafficLights"], sim.get("tlsType", "static"), sim["vehicles"]["loaded"],
             sim["densityPerHourPerKm"], 3.6 * float(stats.get("speed", "nan")), float(stats.get("waitingTime", "nan")),
             sim["teleports"]["total"], s["probes"],
             "%.0f %%" % (100.0 * standing["stoppedFixes"] / standing["fixes"]) if standing else "-"))
print()
print(bench_sumo.MATCHING_HEADER)
for s in summaries:
    bench_sumo.print_tables({**s, "intervals": s["intervals"]}, header=False, navigation=False)
print()
print(bench_sumo.NAVIGATION_HEADER)
for s in summaries:
    bench_sumo.print_tables(s, header=False, matching=False)
if any("navigationTraffic" in r for s in summaries for r in s["intervals"].values()):
    print()
    print(bench_sumo.TRAFFIC_HEADER)
    for s in summaries:
        bench_sumo.print_traffic_table(s, header=False)
