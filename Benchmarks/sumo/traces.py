#!/usr/bin/env python3
"""SUMO FCD of the probe vehicles -> noisy `location/raw` traces plus the truth per fix (seeded, reproducible).

Noise model (as BENCHMARKS.md "Map matching" / "Navigation", TraceSimulation.DriveSimulator's defaults):
position σ 8 m on each of east and north; 2 % of fixes are outliers, moved a further 50-150 m in a uniform
direction; speed σ 0.3 m/s (never below 0); course σ 5°, omitted below 1 m/s as receivers do. The 5 s trace is
every fifth fix of the 1 s trace (the same noise). The truth is SUMO's vehicle position (the front bumper, in its
lane, so metres off the OSM centre line), speed, and the OSM way of the lane's edge; fixes on SUMO's internal
junction edges (`:…`) are flagged `junction` and carry the ways before and after the junction.
"""
import json
import math
import os
import random
import xml.etree.ElementTree as ET

EARTH_RADIUS_METERS = 6371008.8
# Fix timestamps: simulation second 0 is this instant (a fixed daytime date, so lighting never matters).
EPOCH_SECONDS = 1796025000.0
MIN_TRIP_METERS = 1500.0
MAX_TRIP_METERS = 6000.0


def haversine_meters(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_METERS * math.asin(min(1.0, math.sqrt(a)))


def offset(lat, lon, east_meters, north_meters):
    dlat = math.degrees(north_meters / EARTH_RADIUS_METERS)
    dlon = math.degrees(east_meters / (EARTH_RADIUS_METERS * math.cos(math.radians(lat))))
    return lat + dlat, lon + dlon


def way_of_edge(edge_id):
    """OSM way id of a SUMO edge id `<way>#<k>` / `-<way>#<k>` / `<way>`; None for internal or synthetic ids."""
    if edge_id.startswith(":"):
        return None
    core = edge_id.lstrip("-").split("#")[0]
    return int(core) if core.isdigit() else None


def read_fcd(path):
    """{vehicle id: [sample dict]} in time order."""
    samples = {}
    for _, el in ET.iterparse(path):
        if el.tag != "timestep":
            continue
        t = float(el.get("time"))
        for v in el:
            lane = v.get("lane", "")
            edge = lane.rsplit("_", 1)[0]
            samples.setdefault(v.get("id"), []).append({
                "t": t, "lat": float(v.get("y")), "lon": float(v.get("x")), "speed": float(v.get("speed")),
                "angle": float(v.get("angle")), "edge": edge, "pos": float(v.get("pos", "nan"))})
        el.clear()
    return samples


def annotate(track):
    """Adds odometer (m), way id, junction flag and the neighbouring ways of junction samples."""
    odo = 0.0
    for i, s in enumerate(track):
        if i:
            p = track[i - 1]
            odo += haversine_meters(p["lat"], p["lon"], s["lat"], s["lon"])
        s["odometer"] = odo
        s["junction"] = s["edge"].startswith(":")
        s["way"] = way_of_edge(s["edge"])
    last = None
    for s in track:
        if s["junction"]:
            s["wayBefore"] = last
        elif s["way"] is not None:
            last = s["way"]
    nxt = None
    for s in reversed(track):
        if s["junction"]:
            s["wayAfter"] = nxt
        elif s["way"] is not None:
            nxt = s["way"]


def usable(track, arrived):
    """A probe is used when SUMO let it finish its trip without a teleport (no jump > speed allows)."""
    if not arrived or len(track) < 60:
        return False
    for p, s in zip(track, track[1:]):
        gap = haversine_meters(p["lat"], p["lon"], s["lat"], s["lon"])
        if gap > max(p["speed"], s["speed"]) * (s["t"] - p["t"]) + 15:
            return False
    return MIN_TRIP_METERS <= track[-1]["odometer"] <= MAX_TRIP_METERS


def at_midway_stop(sample, stop):
    """Standing with the front at the stop's end position (SUMO stops the front bumper there)."""
    return sample["edge"] == stop["midEdge"] and sample["speed"] < 0.1 and abs(sample["pos"] - stop["midPos"]) < 3


def position_at_odometer(track, meters):
    for s in track:
        if s["odometer"] >= meters:
            return s
    return track[-1]


def make_traces(fcd_path, tripinfo_path, out_dir, probes, seed):
    """Writes <out_dir>/<probe>/{truth.jsonl, raw-1s.jsonl, raw-5s.jsonl, destinations.json}; returns probe ids."""
    arrived = set()
    for _, el in ET.iterparse(tripinfo_path):
        if el.tag == "tripinfo" and float(el.get("arrival", "-1")) >= 0:
            arrived.add(el.get("id"))
        el.clear()
    tracks = read_fcd(fcd_path)
    stops_path = os.path.join(os.path.dirname(fcd_path), "probe_stops.json")
    stops = json.load(open(stops_path)) if os.path.exists(stops_path) else None
    ids = sorted((v for v in tracks if v.startswith("probe")), key=lambda v: int(v[5:]))
    chosen = []
    for vid in ids:
        track = tracks[vid]
        annotate(track)
        stopped_midway = stops is None or (vid in stops and any(at_midway_stop(x, stops[vid]) for x in track))
        if usable(track, vid in arrived) and stopped_midway:
            chosen.append(vid)
        if len(chosen) == probes:
            break
    for vid in chosen:
        # End both traces on the same sample (a multiple of 5 s), so the last waypoint is the last fix of each.
        track = tracks[vid]
        del track[(len(track) - 1) // 5 * 5 + 1:]
        rng = random.Random("%d/%s" % (seed, vid))
        d = os.path.join(out_dir, vid)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "truth.jsonl"), "w") as truth, open(os.path.join(d, "raw-1s.jsonl"), "w") as raw1, \
                open(os.path.join(d, "raw-5s.jsonl"), "w") as raw5:
            for i, s in enumerate(track):
                east, north = 8.0 * rng.gauss(0, 1), 8.0 * rng.gauss(0, 1)
                is_outlier = rng.random() < 0.02
                distance, direction = rng.uniform(50, 150), rng.uniform(0, 2 * math.pi)
                speed_noise, course_noise = rng.gauss(0, 1), rng.gauss(0, 1)
                if is_outlier:
                    east += distance * math.sin(direction)
                    north += distance * math.cos(direction)
                lat, lon = offset(s["lat"], s["lon"], east, north)
                fix = {"lat": round(lat, 7), "lon": round(lon, 7), "timestamp": EPOCH_SECONDS + s["t"],
                       "speed": round(max(0.0, s["speed"] + 0.3 * speed_noise), 2), "horizontalAccuracy": 10}
                if s["speed"] >= 1:
                    fix["course"] = round((s["angle"] + 5.0 * course_noise) % 360, 1)
                line = json.dumps(fix) + "\n"
                raw1.write(line)
                if i % 5 == 0:
                    raw5.write(line)
                truth.write(json.dumps({
                    "timestamp": fix["timestamp"], "lat": s["lat"], "lon": s["lon"], "speed": s["speed"],
                    "osmWayId": s["way"], "edge": s["edge"], "junction": s["junction"],
                    "wayBefore": s.get("wayBefore"), "wayAfter": s.get("wayAfter"),
                    "odometer": round(s["odometer"], 2), "outlier": is_outlier, "sampleIndex": i}) + "\n")
        mid = position_at_odometer(track, track[-1]["odometer"] / 2)
        if stops and vid in stops:  # where it stood at its midway stop
            mid = next(x for x in track if at_midway_stop(x, stops[vid]))
        end = track[-1]
        with open(os.path.join(d, "destinations.json"), "w") as f:
            json.dump({"assignmentId": vid, "waypoints": [
                {"lat": mid["lat"], "lon": mid["lon"], "title": "midpoint"},
                {"lat": end["lat"], "lon": end["lon"], "title": "end"}]}, f)
        with open(os.path.join(d, "waypoints.json"), "w") as f:
            json.dump([{"odometer": mid["odometer"], "t": mid["t"], "lat": mid["lat"], "lon": mid["lon"]},
                       {"odometer": end["odometer"], "t": end["t"], "lat": end["lat"], "lon": end["lon"]}], f)
    return chosen
