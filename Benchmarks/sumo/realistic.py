#!/usr/bin/env python3
"""SUMO truth -> raw traces that look like recorded GPS drives (time-correlated error), seeded and reproducible.

traces.py's noise (the "white" model of bench-sumo) draws every fix's error independently: σ 8 m per axis, 2 %
outliers, Doppler speed and course on every moving fix, horizontalAccuracy 10 on every fix, timestamps on whole
seconds. Recorded drives differ, and a matcher or navigator tuned on independent noise can fail on them:

* The position error wanders slowly. Receiver errors (ionosphere, multipath, the receiver's own Kalman filter) are
  strongly correlated over tens of seconds; the usual model is a first-order Gauss-Markov process per axis,
  b[k] = e^(-Δt/τ)·b[k-1] + σ_b·sqrt(1 - e^(-2Δt/τ))·w, stationary σ_b, time constant τ (literature on phone and
  automotive GNSS: τ 10-60 s). Default σ_b 4 m, τ 30 s, plus white σ 2 m: a phone or a car receiver in a town
  (radial error p50 about 5-6 m). A bias of 4-8 m held for half a minute is exactly what pulls a fix sequence
  onto a parallel road, which independent noise averages away in a few fixes.
* Urban-canyon episodes: reflections off buildings shift the fix 15-30 m to one side of the street for 10-30 s
  (here: across the direction of travel, to a random side, ramped in and out over 3 s; on average one episode per
  `--canyon-every` seconds of the drive, default 240). The reported horizontalAccuracy rises only partly (by
  `--canyon-accuracy-share` of the shift, default 0.3): receivers do not see their own multipath.
* The reported accuracy varies fix to fix: 1.5·sqrt(σ_b² + σ_w²) (a 68 % radius of the modelled error) times a
  log-normal factor (σ 0.3), plus the canyon share, rounded to 0.1 m, at least 2 m.
* Outliers: `--outlier-rate` (default 1 %) of fixes moved a further 30-100 m in a uniform direction, accuracy not
  raised (a multipath jump the receiver does not flag).
* Speed (Doppler, σ 0.3 m/s) and course are absent at times: speed missing in runs of 5-20 s (default 5 % of the
  fixes); course omitted below `--course-min-speed` (default 2 m/s: phones drop the bearing when slow) and with the
  speed; course σ 3° + 15°/v (noisier when slow). `--positions-only`: no speed and no course on any fix.
* Timestamps: each fix taken at whole second + uniform jitter of ±`--time-jitter` s (default 0.2; kept below half
  the interval so the order holds; in 10 ms steps), the truth interpolated to that instant.
* An occasional duplicated fix (`--duplicate-rate`, default 0.5 %: the same line twice, as a logger that re-sends
  the last fix) and short outages (`--gap-every`, default one per 300 s, of 3-10 s without any fix).

Presets (`--preset`): `realistic` the defaults above; `realistic8` σ_b 7 m and σ_w 4 m (8.1 m per axis in all, as
the white model's 8 m, so the two compare at the same error size); `positions` the defaults without speed and
course. The 5 s trace is every fifth fix of the 1 s trace (the same noise), as traces.py does.

Output per probe, beside a copy of destinations.json and waypoints.json: truth.jsonl (one row per raw-1s line,
as traces.py writes it, with `timestamp` the fix's jittered time and the position interpolated to it,
`sampleTimestamp` the whole second it stands for: latencies in fixes are counted on those; a duplicated
fix repeats its row with "duplicate": true, a fix lost in an outage keeps its row with "dropped": true — evaluate.py
skips those rows in the fix-by-fix figures and the duplicates in the path), raw-1s.jsonl, raw-5s.jsonl.

  realistic.py SRC_TRACE_DIR DEST_TRACE_DIR [--probes p0,p1,…] [--preset realistic] [--seed 1] [--bias-sigma …] …
"""
import argparse
import json
import math
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from traces import offset  # noqa: E402

PRESETS = {
    "realistic": {},
    "realistic8": {"bias_sigma": 7.0, "white_sigma": 4.0},
    "positions": {"positions_only": True},
}

DEFAULTS = {"bias_sigma": 4.0, "bias_tau": 30.0, "white_sigma": 2.0, "canyon_every": 240.0, "canyon_min_shift": 15.0,
            "canyon_max_shift": 30.0, "canyon_min_seconds": 10.0, "canyon_max_seconds": 30.0,
            "canyon_accuracy_share": 0.3, "outlier_rate": 0.01, "speed_missing": 0.05, "course_min_speed": 2.0,
            "time_jitter": 0.2, "duplicate_rate": 0.005, "gap_every": 300.0, "positions_only": False}


def load_jsonl(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def episodes(rng, n, every, min_len, max_len):
    """Index ranges [start, end) of Poisson-spaced episodes over n one-second samples (mean spacing `every` s)."""
    out, i = [], 0
    if every <= 0:
        return out
    while True:
        i += int(rng.expovariate(1.0 / every))
        length = int(rng.uniform(min_len, max_len))
        if i >= n:
            return out
        out.append((i, min(n, i + length)))
        i += length


def interpolate(a, b, f):
    """Truth row between two consecutive 1 s rows a, b at fraction f of the way (f may be < 0 with b = a's predecessor
    swapped in by the caller); way, edge and junction flags from the nearer row."""
    near = a if f < 0.5 else b
    row = dict(near)
    for k in ("lat", "lon", "speed", "odometer"):
        row[k] = a[k] + (b[k] - a[k]) * f
    row["odometer"] = round(row["odometer"], 2)
    row["sampleIndex"] = a["sampleIndex"]
    return row


def heading_degrees(a, b):
    """Direction of travel from row a to row b, degrees from north (local flat frame)."""
    dx = (b["lon"] - a["lon"]) * math.cos(math.radians(a["lat"]))
    dy = b["lat"] - a["lat"]
    if dx == 0 and dy == 0:
        return None
    return math.degrees(math.atan2(dx, dy)) % 360


def perturb_probe(src, dest, seed, p):
    truth = load_jsonl(os.path.join(src, "truth.jsonl"))
    rng = random.Random("realistic/%d/%s" % (seed, os.path.basename(src)))
    n = len(truth)
    # Headings of the true path (SUMO's angle is not in truth.jsonl): from the neighbouring samples, carried over
    # standing stretches.
    headings, last = [], None
    for i in range(n):
        h = heading_degrees(truth[max(0, i - 1)], truth[min(n - 1, i + 1)])
        if h is None or truth[i]["speed"] < 0.5:
            h = last
        headings.append(h)
        last = h if h is not None else last
    first = next((h for h in headings if h is not None), 0.0)
    headings = [first if h is None else h for h in headings]

    canyons = episodes(rng, n, p["canyon_every"], p["canyon_min_seconds"], p["canyon_max_seconds"])
    canyon_shift = [0.0] * n      # metres to the right (+) or left (-) of the direction of travel
    for start, end in canyons:
        shift = rng.uniform(p["canyon_min_shift"], p["canyon_max_shift"]) * rng.choice((-1, 1))
        for i in range(start, end):
            ramp = min(1.0, (i - start + 1) / 3.0, (end - i) / 3.0)
            canyon_shift[i] = shift * ramp
    gaps = episodes(rng, n, p["gap_every"], 3, 11)
    dropped = [False] * n
    for start, end in gaps:
        for i in range(max(1, start), end):  # never the first fix: the route is planned from it
            dropped[i] = True
    dropped[-1] = False  # the last fix is the last waypoint's
    no_speed = [False] * n
    if p["speed_missing"] > 0:
        for start, end in episodes(rng, n, 12.5 / p["speed_missing"], 5, 21):
            for i in range(start, end):
                no_speed[i] = True

    decay = math.exp(-1.0 / p["bias_tau"]) if p["bias_tau"] > 0 else 0.0
    drive = p["bias_sigma"] * math.sqrt(1 - decay * decay)
    bias_e, bias_n = p["bias_sigma"] * rng.gauss(0, 1), p["bias_sigma"] * rng.gauss(0, 1)
    modelled = math.hypot(p["bias_sigma"], p["white_sigma"])
    rows_out, raw1, raw5 = [], [], []
    for i, s in enumerate(truth):
        if i:
            bias_e = decay * bias_e + drive * rng.gauss(0, 1)
            bias_n = decay * bias_n + drive * rng.gauss(0, 1)
        jitter = round(rng.uniform(-p["time_jitter"], p["time_jitter"]), 2) if p["time_jitter"] > 0 else 0.0
        if i == 0 or i == n - 1:
            jitter = max(0.0, jitter) if i == 0 else min(0.0, jitter)  # stay within the drive
        if jitter >= 0:
            row = interpolate(s, truth[min(n - 1, i + 1)], jitter)
        else:
            row = interpolate(s, truth[max(0, i - 1)], -jitter)
        row["timestamp"] = round(s["timestamp"] + jitter, 2)
        row["sampleTimestamp"] = s["timestamp"]  # the whole second it stands for (fix counts in evaluate.py)
        east = bias_e + p["white_sigma"] * rng.gauss(0, 1)
        north = bias_n + p["white_sigma"] * rng.gauss(0, 1)
        right = math.radians(headings[i] + 90)
        east += canyon_shift[i] * math.sin(right)
        north += canyon_shift[i] * math.cos(right)
        outlier = rng.random() < p["outlier_rate"]
        distance, direction = rng.uniform(30, 100), rng.uniform(0, 2 * math.pi)
        if outlier:
            east += distance * math.sin(direction)
            north += distance * math.cos(direction)
        accuracy = max(2.0, 1.5 * modelled * math.exp(0.3 * rng.gauss(0, 1))
                       + p["canyon_accuracy_share"] * abs(canyon_shift[i]))
        speed_noise, course_noise = rng.gauss(0, 1), rng.gauss(0, 1)
        duplicate = rng.random() < p["duplicate_rate"]
        lat, lon = offset(row["lat"], row["lon"], east, north)
        fix = {"lat": round(lat, 7), "lon": round(lon, 7), "timestamp": row["timestamp"],
               "horizontalAccuracy": round(accuracy, 1)}
        if not p["positions_only"] and not no_speed[i]:
            fix["speed"] = round(max(0.0, row["speed"] + 0.3 * speed_noise), 2)
            if row["speed"] >= p["course_min_speed"]:
                sigma = 3.0 + 15.0 / max(row["speed"], 1.0)
                fix["course"] = round((headings[i] + sigma * course_noise) % 360, 1)
        row["outlier"] = outlier
        row["canyonShift"] = round(canyon_shift[i], 1)
        row["errorEast"], row["errorNorth"] = round(east, 2), round(north, 2)
        if dropped[i]:
            rows_out.append(dict(row, dropped=True))
            continue
        copies = 2 if duplicate and 0 < i < n - 1 else 1
        for c in range(copies):
            rows_out.append(dict(row, duplicate=True) if c else row)
            line = json.dumps(fix) + "\n"
            raw1.append(line)
            if s["sampleIndex"] % 5 == 0:
                raw5.append(line)
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, "truth.jsonl"), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows_out)
    with open(os.path.join(dest, "raw-1s.jsonl"), "w") as f:
        f.writelines(raw1)
    with open(os.path.join(dest, "raw-5s.jsonl"), "w") as f:
        f.writelines(raw5)
    for name in ("destinations.json", "waypoints.json"):
        shutil.copyfile(os.path.join(src, name), os.path.join(dest, name))
    return {"fixes": len(raw1), "canyonSeconds": sum(e - s for s, e in canyons), "dropped": sum(dropped),
            "duplicates": len(raw1) - (n - sum(dropped))}


def parameters(preset, overrides):
    p = dict(DEFAULTS)
    p.update(PRESETS[preset])
    p.update({k: v for k, v in overrides.items() if v is not None})
    return p


def perturb(src_dir, dest_dir, probes, seed, p):
    stats = {}
    for probe in probes:
        stats[probe] = perturb_probe(os.path.join(src_dir, probe), os.path.join(dest_dir, probe), seed, p)
    with open(os.path.join(dest_dir, "noise.json"), "w") as f:
        json.dump({"seed": seed, "parameters": p, "probes": stats}, f, indent=1)
    return stats


def add_arguments(ap):
    ap.add_argument("--preset", default="realistic", choices=sorted(PRESETS))
    for k, v in DEFAULTS.items():
        if isinstance(v, bool):
            ap.add_argument("--" + k.replace("_", "-"), action="store_const", const=True, default=None)
        else:
            ap.add_argument("--" + k.replace("_", "-"), type=float, default=None, help="default %s" % v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", help="traces/ of a bench-sumo run (truth.jsonl, destinations.json, waypoints.json)")
    ap.add_argument("dest")
    ap.add_argument("--probes", help="comma-separated probe ids (default: every directory in src)")
    ap.add_argument("--seed", type=int, default=1)
    add_arguments(ap)
    args = ap.parse_args()
    probes = args.probes.split(",") if args.probes else sorted(
        (d for d in os.listdir(args.src) if os.path.exists(os.path.join(args.src, d, "truth.jsonl"))),
        key=lambda d: int(d[5:]) if d[5:].isdigit() else d)
    p = parameters(args.preset, {k: getattr(args, k) for k in DEFAULTS})
    for probe, s in perturb(args.src, args.dest, probes, args.seed, p).items():
        print(probe, s)


if __name__ == "__main__":
    main()
