#!/usr/bin/env python3
"""Prints the markdown tables of scripts/bench-routing from the JSON it left in WORKDIR.

  report.py WORKDIR MAP...
"""

import json
import sys
from pathlib import Path


def lines(path):
    p = Path(path)
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()] if p.exists() else []


def one(path):
    p = Path(path)
    return json.loads(p.read_text()) if p.exists() else {}


def mib(n):
    return f"{n / 1048576:.1f} MiB"


def ms(x):
    return f"{x:.3f}" if x == x else "–"


def main(work, maps):
    work = Path(work)
    print("| map | engine | import / preprocessing | data on disk | load | RSS after load |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in maps:
        d = work / name
        prep = one(d / "prepare.summary.json")
        refs = {r["engine"]: r for r in lines(d / "reference.summary.jsonl")}
        imp = one(d / "import.summary.json")
        ours = lines(d / "edgenav.summary.jsonl")
        graph = ours[0] if ours else {}
        if imp:
            print(f"| {name} | EdgeNav ({imp['nodes']} nodes, {imp['edges']} edges) | {imp['importSeconds']:.2f} s import"
                  f" (peak RSS {imp['peakRssMiB']:.0f} MiB) + {graph.get('landmarkSeconds', 0):.2f} s landmarks"
                  f" | {mib(imp['fileBytes'])} + {mib(graph.get('landmarkBytes', 0))} landmarks (in memory)"
                  f" | {graph.get('loadSeconds', 0) * 1000:.1f} ms (mmap)"
                  f" | {graph.get('rssAfterLoadMiB', 0):.1f} MiB; {graph.get('rssWithRouterMiB', 0):.1f} MiB with router |")
        for key, label in (("osrmCar", "OSRM CH car.lua"), ("osrmDistance", "OSRM CH car.lua distance")):
            p = prep.get(key)
            r = refs.get("osrm-car" if key == "osrmCar" else "osrm-distance", {})
            if p:
                print(f"| {name} | {label} | {p['extractSeconds']:.2f} s extract + {p['contractSeconds']:.2f} s contract"
                      f" | {mib(p['dataBytes'])} | {r.get('loadSeconds', float('nan')) * 1000:.1f} ms"
                      f" | {r.get('rssLoadedMiB', float('nan')):.1f} MiB |")
        p = prep.get("valhalla")
        r = refs.get("valhalla-auto", {})
        if p:
            print(f"| {name} | Valhalla | {p['buildSeconds']:.2f} s build tiles | {mib(p['dataBytes'])}"
                  f" | {r.get('loadSeconds', float('nan')) * 1000:.1f} ms | {r.get('rssLoadedMiB', float('nan')):.1f} MiB |")
    print()
    print("| map | engine / method | strategy | routed | p50 ms | p99 ms | p50 ÷ OSRM CH p50 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in maps:
        d = work / name
        refs = {r["engine"]: r for r in lines(d / "reference.summary.jsonl")}
        osrm_p50 = refs.get("osrm-car", {}).get("p50Ms", float("nan"))
        for engine, strategy in (("osrm-car", "best"), ("osrm-distance", "shorter"), ("valhalla-auto", "best"),
                                 ("valhalla-shortest", "shorter")):
            r = refs.get(engine)
            if r:
                print(f"| {name} | {engine} (Python bindings) | {strategy} | {r['ok']}/{r['pairs']} | {ms(r['p50Ms'])}"
                      f" | {ms(r['p99Ms'])} | {r['p50Ms'] / osrm_p50:.2f} |")
        for r in lines(d / "edgenav.summary.jsonl")[1:]:
            print(f"| {name} | EdgeNav {r['algorithm']} | {r['strategy']} | {r['ok']}/{r['pairs']} | {ms(r['p50Ms'])}"
                  f" | {ms(r['p99Ms'])} | {r['p50Ms'] / osrm_p50:.2f} |")
    print()
    print("| map | shorter: within ±2% of OSRM distance weight | within ±2% of Valhalla shortest"
          " | (context: Valhalla shortest within ±2% of OSRM distance)"
          " | best: median length ÷ OSRM | median duration ÷ OSRM | median length ÷ Valhalla | median duration ÷ Valhalla |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in maps:
        d = work / name
        so, sv = one(d / "shorter-vs-osrm.json"), one(d / "shorter-vs-valhalla.json")
        bo, bv = one(d / "best-vs-osrm.json"), one(d / "best-vs-valhalla.json")
        if so:
            print(f"| {name} | {so['share']:.1%} ({so['agree']}/{so['compared']}; {so['shorterThanReference']} shorter,"
                  f" {so['longerThanReference']} longer; {so.get('referenceMovedWaypoint', 0)} pairs left out where OSRM"
                  f" moved a waypoint off its island) | {sv.get('share', float('nan')):.1%}"
                  f" | {one(d / 'valhalla-vs-osrm.json').get('share', float('nan')):.1%}"
                  f" | {bo.get('medianDistanceRatio', float('nan')):.3f} | {bo.get('medianDurationRatio', float('nan')):.3f}"
                  f" | {bv.get('medianDistanceRatio', float('nan')):.3f} | {bv.get('medianDurationRatio', float('nan')):.3f} |")
    grid = lines(work / "grid.summary.jsonl")
    if grid:
        print()
        print("| grid city | nodes | edges | build | graph bytes | RSS after build | landmarks (8) | ALT best p50 / p99 ms"
              " | ALT shorter p50 / p99 ms | bidir. Dijkstra best p50 / p99 ms (first 50 pairs) |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        rows = {}
        for r in grid:
            rows.setdefault(r["grid"], []).append(r)
        for size, rs in rows.items():
            info = next((r for r in rs if "nodes" in r), {})
            def q(strategy, algorithm):
                r = next((r for r in rs if r.get("strategy") == strategy and r.get("algorithm") == algorithm), None)
                return f"{ms(r['p50Ms'])} / {ms(r['p99Ms'])}" if r else "–"
            print(f"| {size} | {info.get('nodes')} | {info.get('edges')} | {info.get('buildSeconds', 0):.2f} s"
                  f" | {mib(info.get('graphBytes', 0))} | {info.get('rssAfterBuildMiB', 0):.0f} MiB"
                  f" | {info.get('landmarkSeconds', 0):.2f} s, {mib(info.get('landmarkBytes', 0))}"
                  f" | {q('best', 'alt')} | {q('shorter', 'alt')} | {q('best', 'bidirectionalDijkstra')} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
