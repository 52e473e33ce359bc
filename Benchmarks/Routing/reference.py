#!/usr/bin/env python3.12
"""Reference side of scripts/bench-routing: OSRM (osrm-bindings) and Valhalla (pyvalhalla).

Subcommands
  prepare  MAP.pbf OUTDIR   build OSRM CH data with car.lua (default weight, 'routability'),
                            OSRM CH data with a copy of car.lua using weight_name='distance',
                            and Valhalla tiles; writes OUTDIR/prepare.json (seconds, bytes)
  pairs    OUTDIR N SEED PAIRS.jsonl
                            N random origin/destination pairs: uniform points in the map's
                            bounding box snapped with OSRM Nearest (car), kept when the road is
                            within 100 m, and kept when OSRM car finds a route between them (the
                            extracts are clipped, leaving islands); both the references and
                            our router answer these
  route    ENGINE DATA PAIRS.jsonl RESULTS.jsonl
                            ENGINE is osrm-car, osrm-distance, valhalla-auto or
                            valhalla-shortest; one JSON line per pair with status,
                            distanceMeters, durationSeconds, latencyMs; prints a JSON summary
                            (loadSeconds, rssMiB, p50Ms, p99Ms) on stdout

Pair lines: {"id": 0, "fromLat": .., "fromLon": .., "toLat": .., "toLon": ..} -- latitude and
longitude in degrees, named explicitly because OSRM takes (lon, lat) and EdgeNav (lat, lon).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import osrm

OSRM_PACKAGE = Path(osrm.__file__).parent
OSRM_PROFILES = OSRM_PACKAGE / "share" / "profiles"
OSRM_BIN = OSRM_PACKAGE / "bin"


def rss_mib() -> float:
    """Resident set size of this process now, MiB (from /proc/self/status VmRSS)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def directory_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run(cmd: list[str], cwd: Path | None = None) -> float:
    """Runs a tool, returns its wall time in seconds; output goes to a log beside the data."""
    started = time.perf_counter()
    log = (cwd or Path(".")) / "tool.log"
    with open(log, "a") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, check=True)
    return time.perf_counter() - started


def prepare_osrm(map_pbf: Path, out: Path, weight: str) -> dict:
    """osrm-extract + osrm-contract (CH) with car.lua; weight is 'routability' (shipped default) or 'distance'."""
    out.mkdir(parents=True, exist_ok=True)
    profiles = out / "profiles"
    if profiles.exists():
        shutil.rmtree(profiles)
    shutil.copytree(OSRM_PROFILES, profiles)
    car = (profiles / "car.lua").read_text()
    if weight != "routability":
        car, count = re.subn(r"weight_name\s*=\s*'routability'", f"weight_name = '{weight}'", car)
        assert count == 1, "car.lua no longer sets weight_name = 'routability'"
    (profiles / "car.lua").write_text(car)
    local_pbf = out / "map.osm.pbf"
    shutil.copyfile(map_pbf, local_pbf)
    for old in out.glob("map.osrm*"):
        old.unlink()
    extract = run([str(OSRM_BIN / "osrm-extract"), "-p", str(profiles / "car.lua"), str(local_pbf)], cwd=out)
    contract = run([str(OSRM_BIN / "osrm-contract"), str(out / "map.osrm")], cwd=out)
    local_pbf.unlink()
    size = sum(p.stat().st_size for p in out.glob("map.osrm*"))
    return {"extractSeconds": extract, "contractSeconds": contract, "dataBytes": size}


def valhalla_config(tiles: Path) -> dict:
    from valhalla import get_config

    tiles.mkdir(parents=True, exist_ok=True)
    config = get_config(tile_dir=str(tiles), tile_extract="")
    # No admin or timezone databases here: that only affects country-specific access rules.
    config["mjolnir"]["admin"] = ""
    config["mjolnir"]["timezone"] = ""
    config["mjolnir"]["concurrency"] = 2
    return config


def prepare_valhalla(map_pbf: Path, out: Path) -> dict:
    if out.exists():
        shutil.rmtree(out)
    tiles = out / "tiles"
    config = valhalla_config(tiles)
    config_path = out / "valhalla.json"
    config_path.write_text(json.dumps(config, indent=1))
    import valhalla

    builder = Path(valhalla.__file__).parent / "bin" / "valhalla_build_tiles"
    seconds = run([str(builder), "-c", str(config_path), str(map_pbf)], cwd=out)
    return {"buildSeconds": seconds, "dataBytes": directory_bytes(tiles)}


def cmd_prepare(map_pbf: Path, outdir: Path) -> None:
    outdir.mkdir(parents=True, exist_ok=True)
    report = {
        "map": str(map_pbf),
        "osrmCar": prepare_osrm(map_pbf, outdir / "osrm-car", "routability"),
        "osrmDistance": prepare_osrm(map_pbf, outdir / "osrm-distance", "distance"),
        "valhalla": prepare_valhalla(map_pbf, outdir / "valhalla"),
    }
    (outdir / "prepare.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report))


def open_osrm(data: Path) -> osrm.OSRM:
    return osrm.OSRM(storage_config=str(data / "map.osrm"), algorithm="CH", use_shared_memory=False)


def map_bbox(map_pbf: Path) -> tuple[float, float, float, float]:
    """(minLon, minLat, maxLon, maxLat) of the data, from osmium fileinfo."""
    text = subprocess.run(
        ["osmium", "fileinfo", "-e", "-g", "data.bbox", str(map_pbf)], capture_output=True, text=True, check=True
    ).stdout
    numbers = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", text)]
    return numbers[0], numbers[1], numbers[2], numbers[3]


def cmd_pairs(outdir: Path, count: int, seed: int, pairs_path: Path) -> None:
    engine = open_osrm(outdir / "osrm-car")
    report = json.loads((outdir / "prepare.json").read_text())
    min_lon, min_lat, max_lon, max_lat = map_bbox(Path(report["map"]))
    rng = random.Random(seed)

    def snapped_point() -> tuple[float, float]:
        while True:
            lon, lat = rng.uniform(min_lon, max_lon), rng.uniform(min_lat, max_lat)
            result = engine.Nearest(osrm.NearestParameters(coordinates=[(lon, lat)]))
            waypoint = result["waypoints"][0]
            if waypoint["distance"] <= 100.0:
                location = waypoint["location"]
                return float(location[1]), float(location[0])

    with open(pairs_path, "w") as out:
        for index in range(count):
            while True:
                a, b = snapped_point(), snapped_point()
                try:  # keep pairs OSRM car can route: the extracts are clipped and have islands
                    engine.Route(osrm.RouteParameters(coordinates=[(a[1], a[0]), (b[1], b[0])], overview="false"))
                    break
                except RuntimeError:
                    continue
            out.write(json.dumps({"id": index, "fromLat": a[0], "fromLon": a[1], "toLat": b[0], "toLon": b[1]}) + "\n")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, int(round(q * (len(ordered) - 1)))))
    return ordered[rank]


def read_pairs(path: Path) -> list[dict]:
    with open(path) as lines:
        return [json.loads(line) for line in lines if line.strip()]


def cmd_route(engine_name: str, data: Path, pairs_path: Path, results_path: Path) -> None:
    pairs = read_pairs(pairs_path)
    rss_before = rss_mib()
    started = time.perf_counter()
    if engine_name.startswith("osrm"):
        engine = open_osrm(data)

        def answer(p: dict) -> tuple[str, float, float, float]:
            params = osrm.RouteParameters(
                coordinates=[(p["fromLon"], p["fromLat"]), (p["toLon"], p["toLat"])],
                overview="false",
                generate_hints=False,
            )
            try:
                response = engine.Route(params)
            except RuntimeError as error:
                return ("noRouteFound" if "NoRoute" in str(error) else f"error:{error}", 0.0, 0.0, 0.0)
            route = response["routes"][0]
            # OSRM moves a waypoint on a small island (< 1000 nodes) to the nearest big component when the island
            # has no route: record how far the waypoints were moved.
            moved = max(float(w["distance"]) for w in response["waypoints"])
            return ("ok", float(route["distance"]), float(route["duration"]), moved)

    else:
        from valhalla import Actor

        engine = Actor(str(data / "valhalla.json"))
        options = {"shortest": True} if engine_name == "valhalla-shortest" else {}

        def answer(p: dict) -> tuple[str, float, float, float]:
            request = {
                "locations": [{"lat": p["fromLat"], "lon": p["fromLon"]}, {"lat": p["toLat"], "lon": p["toLon"]}],
                "costing": "auto",
                "costing_options": {"auto": options},
                "units": "kilometers",
                "directions_type": "none",
            }
            try:
                summary = engine.route(request)["trip"]["summary"]
            except RuntimeError as error:
                return ("noRouteFound" if "No path" in str(error) or "442" in str(error) else f"error:{error}", 0.0, 0.0,
                        0.0)
            return ("ok", float(summary["length"]) * 1000.0, float(summary["time"]), 0.0)

    load_seconds = time.perf_counter() - started
    rss_loaded = rss_mib()
    latencies: list[float] = []
    with open(results_path, "w") as out:
        for p in pairs:
            t0 = time.perf_counter()
            status, distance, duration, moved = answer(p)
            latency_ms = (time.perf_counter() - t0) * 1000.0
            if status == "ok":
                latencies.append(latency_ms)
            out.write(
                json.dumps(
                    {"id": p["id"], "status": status, "distanceMeters": distance, "durationSeconds": duration,
                     "latencyMs": latency_ms, "waypointMovedMeters": moved}
                )
                + "\n"
            )
    summary = {
        "engine": engine_name,
        "pairs": len(pairs),
        "ok": len(latencies),
        "loadSeconds": load_seconds,
        "rssLoadedMiB": rss_loaded - rss_before,
        "rssAfterQueriesMiB": rss_mib() - rss_before,
        "p50Ms": percentile(latencies, 0.50),
        "p99Ms": percentile(latencies, 0.99),
    }
    print(json.dumps(summary))


def main(argv: list[str]) -> None:
    if len(argv) >= 3 and argv[0] == "prepare":
        cmd_prepare(Path(argv[1]).resolve(), Path(argv[2]).resolve())
    elif len(argv) >= 5 and argv[0] == "pairs":
        cmd_pairs(Path(argv[1]).resolve(), int(argv[2]), int(argv[3]), Path(argv[4]))
    elif len(argv) >= 5 and argv[0] == "route":
        cmd_route(argv[1], Path(argv[2]).resolve(), Path(argv[3]), Path(argv[4]))
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
