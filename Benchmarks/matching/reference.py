#!/usr/bin/env python3
"""Reference side of scripts/bench-matching: OSRM `match` (osrm-bindings) and Valhalla Meili
(`trace_attributes` through pyvalhalla) on the traces MatchingBenchmark simulated, and the report.

Subcommands
  prepare MAP.pbf OUTDIR    OSRM data (osrm-extract + osrm-contract with the shipped car.lua) and Valhalla tiles
  osrm DATA TRACEDIR        match every drive of TRACEDIR/fixes.jsonl with OSRM; writes TRACEDIR/osrm-points.jsonl
                            (per drive: [lat, lon] or null per fix) and TRACEDIR/osrm-timing.json
  valhalla DATA TRACEDIR    trace_attributes with shape_match=map_snap; writes TRACEDIR/valhalla.jsonl (per drive:
                            [lat, lon, wayId] or null per fix) and TRACEDIR/valhalla-timing.json
  report TRACEDIR...        metrics for edgenav.jsonl, osrm.jsonl, valhalla.jsonl against truth.jsonl; prints a
                            Markdown table

Both references see each whole trace at once (offline); EdgeNav's matcher runs online, fix by fix. They get
positions and timestamps only; EdgeNav is run twice: with the fixes' speed and course, and with positions only. Each engine
is told the simulated GPS noise: OSRM radiuses and Valhalla gps_accuracy of 10 m (σ = 8 m per axis gives a radial
standard deviation of about 11 m). Per-fix cost = CPU time: for EdgeNav the matcher thread's CPU time per update (p50, p99, mean); for a reference
the process CPU time of its whole-trace call divided by the trace's fixes (its wall time is in *-timing.json).
CPU time rather than wall time because the benchmark machine is shared: a preempted call would otherwise count
other processes' time slices.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path


def run(cmd: list[str], cwd: Path) -> None:
    with open(cwd / "tool.log", "a") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        log.flush()
        subprocess.run(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, check=True)


def prepare(map_pbf: Path, out: Path) -> None:
    import osrm
    import valhalla
    from valhalla import get_config

    map_pbf, out = map_pbf.resolve(), out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    osrm_dir = out / "osrm"
    if not (osrm_dir / "map.osrm.hsgr").exists():
        osrm_dir.mkdir(parents=True, exist_ok=True)
        package = Path(osrm.__file__).parent
        profiles = osrm_dir / "profiles"
        if profiles.exists():
            shutil.rmtree(profiles)
        shutil.copytree(package / "share" / "profiles", profiles)
        local = osrm_dir / "map.osm.pbf"
        shutil.copyfile(map_pbf, local)
        run([str(package / "bin" / "osrm-extract"), "-p", str(profiles / "car.lua"), str(local)], osrm_dir)
        run([str(package / "bin" / "osrm-contract"), str(osrm_dir / "map.osrm")], osrm_dir)
        local.unlink()
    valhalla_dir = out / "valhalla"
    if not (valhalla_dir / "valhalla.json").exists():
        tiles = valhalla_dir / "tiles"
        tiles.mkdir(parents=True, exist_ok=True)
        config = get_config(tile_dir=str(tiles), tile_extract="")
        config["mjolnir"]["admin"] = ""
        config["mjolnir"]["timezone"] = ""
        config["mjolnir"]["concurrency"] = 2
        (valhalla_dir / "valhalla.json.tmp").write_text(json.dumps(config, indent=1))
        builder = Path(valhalla.__file__).parent / "bin" / "valhalla_build_tiles"
        run([str(builder), "-c", str(valhalla_dir / "valhalla.json.tmp"), str(map_pbf)], valhalla_dir)
        (valhalla_dir / "valhalla.json.tmp").rename(valhalla_dir / "valhalla.json")


def read_drives(path: Path) -> list:
    with open(path) as lines:
        return [json.loads(line) for line in lines if line.strip()]


def match_osrm(data: Path, trace_dir: Path) -> None:
    import osrm

    data = data.resolve()
    engine = osrm.OSRM(storage_config=str(data / "osrm" / "map.osrm"), algorithm="CH", use_shared_memory=False,
                       max_locations_map_matching=-1)
    drives = read_drives(trace_dir / "fixes.jsonl")
    total_seconds, total_cpu, total_fixes = 0.0, 0.0, 0
    with open(trace_dir / "osrm-points.jsonl", "w") as out:
        for fixes in drives:
            params = osrm.MatchParameters(
                coordinates=[(f["lon"], f["lat"]) for f in fixes],
                timestamps=[int(round(f["timestamp"])) for f in fixes],
                radiuses=[10.0] * len(fixes),
                gaps="ignore",
                tidy=False,
                overview="false",
                generate_hints=False,
            )
            started, cpu_started = time.perf_counter(), time.process_time()
            try:
                result = engine.Match(params)
                tracepoints = result["tracepoints"]
            except RuntimeError:
                tracepoints = [None] * len(fixes)
            total_seconds += time.perf_counter() - started
            total_cpu += time.process_time() - cpu_started
            total_fixes += len(fixes)
            points = [None if t is None else [float(t["location"][1]), float(t["location"][0])] for t in tracepoints]
            out.write(json.dumps(points) + "\n")
    timing = {"fixes": total_fixes, "meanMicrosecondsPerFix": total_cpu * 1e6 / max(1, total_fixes),
              "meanWallMicrosecondsPerFix": total_seconds * 1e6 / max(1, total_fixes)}
    (trace_dir / "osrm-timing.json").write_text(json.dumps(timing))
    print(json.dumps({"engine": "osrm", **timing}))


def match_valhalla(data: Path, trace_dir: Path) -> None:
    from valhalla import Actor

    data = data.resolve()
    actor = Actor(str(data / "valhalla" / "valhalla.json"))
    drives = read_drives(trace_dir / "fixes.jsonl")
    total_seconds, total_cpu, total_fixes = 0.0, 0.0, 0
    with open(trace_dir / "valhalla.jsonl", "w") as out:
        for fixes in drives:
            request = {
                "shape": [{"lat": f["lat"], "lon": f["lon"], "time": f["timestamp"]} for f in fixes],
                "costing": "auto",
                "shape_match": "map_snap",
                "use_timestamps": True,
                "trace_options": {"gps_accuracy": 10.0},
                "filters": {
                    "attributes": ["edge.way_id", "matched.point", "matched.type", "matched.edge_index"],
                    "action": "include",
                },
            }
            started, cpu_started = time.perf_counter(), time.process_time()
            try:
                result = actor.trace_attributes(request)
                if isinstance(result, str):
                    result = json.loads(result)
            except RuntimeError:
                result = None
            total_seconds += time.perf_counter() - started
            total_cpu += time.process_time() - cpu_started
            total_fixes += len(fixes)
            points = []
            if result is None:
                points = [None] * len(fixes)
            else:
                edges = result.get("edges", [])
                for m in result.get("matched_points", []):
                    if m.get("type") == "unmatched" or "edge_index" not in m or m["edge_index"] >= len(edges):
                        points.append(None)
                    else:
                        points.append([m["lat"], m["lon"], int(edges[m["edge_index"]].get("way_id", 0))])
            out.write(json.dumps(points) + "\n")
    timing = {"fixes": total_fixes, "meanMicrosecondsPerFix": total_cpu * 1e6 / max(1, total_fixes),
              "meanWallMicrosecondsPerFix": total_seconds * 1e6 / max(1, total_fixes)}
    (trace_dir / "valhalla-timing.json").write_text(json.dumps(timing))
    print(json.dumps({"engine": "valhalla", **timing}))


def haversine(a_lat: float, a_lon: float, b_lat: float, b_lon: float) -> float:
    r = 6_371_008.8
    p1, p2 = math.radians(a_lat), math.radians(b_lat)
    dp, dl = p2 - p1, math.radians(b_lon - a_lon)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(min(1.0, math.sqrt(h)))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(q * (len(ordered) - 1)))))]


def metrics(trace_dir: Path, name: str) -> dict | None:
    path = trace_dir / f"{name}.jsonl"
    if not path.exists():
        return None
    truth = read_drives(trace_dir / "truth.jsonl")
    fixes = read_drives(trace_dir / "fixes.jsonl")
    results = read_drives(path)
    right = total = 0
    stopped = stopped_near = 0
    errors = []
    for drive_truth, drive_fixes, drive_out in zip(truth, fixes, results):
        for i, t in enumerate(drive_truth):
            total += 1
            out = drive_out[i] if i < len(drive_out) else None
            if out is not None and len(out) >= 3 and int(out[2]) == int(t["wayId"]):
                right += 1
            # An unplaced fix counts with its raw position.
            lat, lon = (out[0], out[1]) if out is not None else (drive_fixes[i]["lat"], drive_fixes[i]["lon"])
            error = haversine(lat, lon, t["lat"], t["lon"])
            errors.append(error)
            if t["stopped"]:
                stopped += 1
                if error <= 10:
                    stopped_near += 1
    return {
        "fixes": total,
        "onTrueWay": right / max(1, total),
        "stoppedWithin10m": stopped_near / max(1, stopped),
        "stoppedFixes": stopped,
        "errorP50": percentile(errors, 0.5),
        "errorP95": percentile(errors, 0.95),
    }


def describe_lag(timing: dict) -> str:
    """The lag the EdgeNav run used, as MatchingBenchmark wrote it to timing.json."""
    seconds = timing.get("lagSeconds")
    fixes = timing.get("lagFixes", 4)
    if seconds:
        return f"{seconds:g} s, {fixes}–{timing.get('maximumLagFixes', fixes)} fixes"
    return f"{fixes} fixes"


def report(trace_dirs: list[Path]) -> None:
    print("| interval | engine | fixes | on true way | stopped fixes within 10 m | error p50 | error p95 | "
          "per-fix cost |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    summary = {}
    for trace_dir in trace_dirs:
        ours = json.loads((trace_dir / "timing.json").read_text())
        costs = {"edgenav": ours["meanMicroseconds"]}
        for engine in ("osrm", "valhalla"):
            t = trace_dir / f"{engine}-timing.json"
            if t.exists():
                costs[engine] = json.loads(t.read_text())["meanMicrosecondsPerFix"]
        position_only = trace_dir / "timing-position-only.json"
        if position_only.exists():
            costs["edgenav-position-only"] = json.loads(position_only.read_text())["meanMicroseconds"]
        lag = describe_lag(ours)
        for engine, label in (("edgenav", f"EdgeNav (online, final after {lag})"),
                              ("edgenav-provisional", "EdgeNav provisional (online, at once: lag 0)"),
                              ("edgenav-position-only", f"EdgeNav, positions only (online, final after {lag})"),
                              ("osrm", "OSRM match (offline)"), ("valhalla", "Valhalla Meili (offline)")):
            m = metrics(trace_dir, engine)
            if m is None:
                continue
            summary[f"{trace_dir.name}/{engine}"] = {**m, "meanMicrosecondsPerFix": costs.get(engine)}
            if engine == "edgenav-provisional":
                cost = "the same updates as the row above"
            elif engine.startswith("edgenav"):
                t = ours if engine == "edgenav" else json.loads(position_only.read_text())
                cost = (f"p50 {t['p50Microseconds']:.1f} µs, p99 {t['p99Microseconds']:.1f} µs, "
                        f"mean {t['meanMicroseconds']:.1f} µs")
            else:
                ratio = costs.get(engine, float("nan")) / costs["edgenav"]
                cost = f"mean {costs.get(engine, float('nan')):.1f} µs ({ratio:.0f}× EdgeNav's mean)"
            print(f"| {trace_dir.name} | {label} | {m['fixes']} | {100 * m['onTrueWay']:.1f} % | "
                  f"{100 * m['stoppedWithin10m']:.1f} % of {m['stoppedFixes']} | {m['errorP50']:.1f} m | "
                  f"{m['errorP95']:.1f} m | {cost} |")
    print()
    print(json.dumps(summary, indent=1, sort_keys=True), file=sys.stderr)


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "prepare":
        prepare(Path(sys.argv[2]), Path(sys.argv[3]))
    elif command == "osrm":
        match_osrm(Path(sys.argv[2]), Path(sys.argv[3]))
    elif command == "valhalla":
        match_valhalla(Path(sys.argv[2]), Path(sys.argv[3]))
    elif command == "report":
        report([Path(p) for p in sys.argv[2:]])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
