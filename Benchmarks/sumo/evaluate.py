#!/usr/bin/env python3
"""Scores EdgeNav on the SUMO probe traces: `edgenav match` (final answers) and `edgenav replay` (navigator).

Matching, per fix (comparable with BENCHMARKS.md "Map matching"):
  on true way        output osmWayId == the OSM way of the lane SUMO drove, over fixes off junction interiors
  … with junctions   all fixes; a fix inside a junction counts as right on either neighbouring way
  stopped ≤ 10 m     fixes whose true speed < 0.1 m/s with the output within 10 m of the true position
  error p50/p95      output position to the true (lane) position, metres
The same figures for the navigator's provisional answers (replay's location/snapped, route-aware, lag 0).

Navigation, per trip (comparable with BENCHMARKS.md "Navigation"): arrivals at the two waypoints (the probe's
true position halfway along its drive, and its end) — count, distance of the TRUE position at the arrival fix,
early = the vehicle still more than 30 m of its own drive short of the waypoint; reroutes (offRoute,
fasterRoute) split by whether SUMO's path stays within 10 m of the route EdgeNav planned at the start; the
remaining-time error halfway in time through each leg (against the time the vehicle first reached the waypoint
when the arrival was announced at an earlier passage of it).
"""
import bisect
import datetime
import json
import math
import os
import statistics
import subprocess

from traces import haversine_meters

# SUMO's path this far from the planned polyline for 3 s running, off junction interiors, = it drove another way.
# Lanes lie at most ~8 m off the OSM centre line (3 lanes each way on a two-way way); at 25 m a short stretch on a
# parallel OSM way (a split carriageway, a turn-lane way) went unseen, and EdgeNav rightly reported it off route.
OFF_ROUTE_METERS = 10.0
ON_ROUTE_METERS = 6.0        # the last sample this close before that is where it left
ARRIVAL_RADIUS_METERS = 30.0
STANDING_METERS_PER_SECOND = 0.5


def load_jsonl(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def arrival_times(truth, waypoints, epoch):
    """When the vehicle reached each waypoint, epoch seconds. A waypoint's `t` is when the truth passes it, except
    that the last one is the trace's end: a probe that stops at its destination (bench-sumo `--stops`) stands there
    until the end, and that stand comes after the arrival. So the last waypoint's arrival is the first sample of the
    trace's closing run of standing samples (none on drive-through runs, whose last sample moves)."""
    times = [epoch + wp["t"] for wp in waypoints]
    if times and truth and truth[-1]["speed"] < STANDING_METERS_PER_SECOND:
        i = len(truth) - 1
        while i > 0 and truth[i - 1]["speed"] < STANDING_METERS_PER_SECOND:
            i -= 1
        times[-1] = min(times[-1], truth[i]["timestamp"])
    return times


def tkey(seconds):
    """A fix time as a lookup key: 10 ms steps (realistic.py's jittered times are in 10 ms steps, and EdgeNav prints
    times truncated to the millisecond, so x.12 may come back as x.119)."""
    return round(seconds, 2)


def iso_seconds(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def decode_polyline6(encoded):
    points, index, lat, lon = [], 0, 0, 0
    while index < len(encoded):
        for coord in (0, 1):
            shift, result = 0, 0
            while True:
                b = ord(encoded[index]) - 63
                index += 1
                result |= (b & 0x1F) << shift
                shift += 5
                if b < 0x20:
                    break
            delta = ~(result >> 1) if result & 1 else result >> 1
            if coord == 0:
                lat += delta
            else:
                lon += delta
        points.append((lat / 1e6, lon / 1e6))
    return points


def distance_to_polyline_meters(lat, lon, polyline):
    """Shortest distance from a point to a polyline, in a local equirectangular frame (fine at these scales)."""
    return project_onto_polyline(lat, lon, polyline)[0]


def project_onto_polyline(lat, lon, polyline):
    """(distance to the polyline, metres along it to the closest point), in the same local frame."""
    kx = math.cos(math.radians(lat)) * 111319.49
    ky = 111319.49
    best, best_along, along = float("inf"), 0.0, 0.0
    for (a_lat, a_lon), (b_lat, b_lon) in zip(polyline, polyline[1:]):
        ax, ay = (a_lon - lon) * kx, (a_lat - lat) * ky
        bx, by = (b_lon - lon) * kx, (b_lat - lat) * ky
        dx, dy = bx - ax, by - ay
        ll = dx * dx + dy * dy
        t = 0.0 if ll == 0 else max(0.0, min(1.0, -(ax * dx + ay * dy) / ll))
        px, py = ax + t * dx, ay + t * dy
        if px * px + py * py < best:
            best, best_along = px * px + py * py, along + t * math.sqrt(ll)
        along += math.sqrt(ll)
    return math.sqrt(best), best_along, along


def heading_degrees(a, b):
    """Initial bearing from sample a to sample b ((lat, lon) pairs), degrees clockwise from north, local frame."""
    kx = math.cos(math.radians(a[0])) * 111319.49
    return math.degrees(math.atan2((b[1] - a[1]) * kx, (b[0] - a[0]) * 111319.49)) % 360


def plan_distances_meters(track1s, polyline):
    """Each truth sample's distance from the plan, over the plan's stretches that run the vehicle's way (within 90° of
    its heading from the samples either side, while it moves at 1 m/s or more): a vehicle that turned back along its
    plan has left it, though it stays within metres of it (Kouvola seed 6 probe17 at 1 s: a U-turn at the end of a
    street, back along the plan's first metres, counted as following the plan and its reroute as false). Standing or
    without a heading, the plain distance; so also until the vehicle has once been within ON_ROUTE_METERS of a
    stretch running its way (a trip start whose first route began the other way keeps counting as leaving the
    plan at its first fix, as before, not as having started off it)."""
    segments = []
    for (a_lat, a_lon), (b_lat, b_lon) in zip(polyline, polyline[1:]):
        if (a_lat, a_lon) != (b_lat, b_lon):
            segments.append(((a_lat, a_lon), (b_lat, b_lon), heading_degrees((a_lat, a_lon), (b_lat, b_lon))))
    dists = []
    followed = False
    for i, s in enumerate(track1s):
        plain = distance_to_polyline_meters(s["lat"], s["lon"], polyline)
        before, after = track1s[max(0, i - 1)], track1s[min(len(track1s) - 1, i + 1)]
        moving = s["speed"] >= 1.0 and haversine_meters(before["lat"], before["lon"], after["lat"], after["lon"]) >= 1.0
        if not moving:
            dists.append(plain)
            continue
        heading = heading_degrees((before["lat"], before["lon"]), (after["lat"], after["lon"]))
        best = float("inf")
        for a, b, bearing in segments:
            if abs((heading - bearing + 180) % 360 - 180) <= 90:
                best = min(best, distance_to_polyline_meters(s["lat"], s["lon"], [a, b]))
        followed = followed or best <= ON_ROUTE_METERS
        dists.append(best if followed else plain)
    return dists


def find_leave(track1s, polyline, dists):
    """Where SUMO's vehicle left the planned polyline: the first 3 s running (off junction interiors, where SUMO cuts
    corners) more than OFF_ROUTE_METERS from it, back to the last sample within ON_ROUTE_METERS — or to the last
    sample the vehicle STOOD within OFF_ROUTE_METERS (a lane beside the centre line: standing there it has not left
    yet; walking back through a queue in that lane counted the queue's fixes as fixes after leaving). None when the
    vehicle never leaves. `nearEnd`: it left within ARRIVAL_RADIUS_METERS of the plan's end (drove past the
    destination and came back, or turned off just short of it and looped round: Kouvola d18 seed 7 probe10, 15 m
    short): a reroute there is neither false nor owed, and such trips are counted apart. With the sample where it is back within ON_ROUTE_METERS
    3 s running farther along the plan (`rejoinedT`), if it rejoins. `startedOff`: the vehicle was never on the
    plan (the first route began on another road, Helsinki probe0 stands 2 minutes 15 m from it): no moment of
    leaving to count fixes from."""
    plain = [i for i, s in enumerate(track1s) if not s["junction"]]
    for n in range(len(plain) - 2):
        if min(dists[i] for i in plain[n:n + 3]) <= OFF_ROUTE_METERS:
            continue
        j = plain[n]
        while j > 0 and dists[j] > ON_ROUTE_METERS and not (
                track1s[j]["speed"] < STANDING_METERS_PER_SECOND and dists[j] <= OFF_ROUTE_METERS):
            j -= 1
        _, along, length = project_onto_polyline(track1s[j]["lat"], track1s[j]["lon"], polyline)
        leave = {"t": nominal_time(track1s[j]), "odometer": track1s[j]["odometer"], "lat": track1s[j]["lat"],
                 "lon": track1s[j]["lon"], "edge": track1s[j]["edge"], "rejoinedT": None,
                 "startedOff": j == 0 and dists[0] > ON_ROUTE_METERS,
                 "nearEnd": length - along <= ARRIVAL_RADIUS_METERS}
        back = [i for i in plain if i > plain[n + 2] and dists[i] <= ON_ROUTE_METERS]
        for i in back:
            run = [k for k in plain if i <= k < i + 3]
            if len(run) == 3 and all(dists[k] <= ON_ROUTE_METERS for k in run) \
                    and project_onto_polyline(track1s[i]["lat"], track1s[i]["lon"], polyline)[1] > along:
                leave["rejoinedT"] = nominal_time(track1s[i])
                break
        return leave
    return None


def nominal_time(row):
    """A truth row's time for counting fixes: realistic.py's jittered fixes count at the whole second they stand for
    (a reroute 3 fixes after leaving is 2.6-3.4 s after it with jitter); traces.py's rows are on whole seconds."""
    return row.get("sampleTimestamp", row["timestamp"])


def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    k = (len(s) - 1) * p / 100.0
    f = math.floor(k)
    c = min(f + 1, len(s) - 1)
    return s[f] + (s[c] - s[f]) * (k - f)


def strip_accuracy(lines):
    out = []
    for l in lines:
        d = json.loads(l)
        d.pop("horizontalAccuracy", None)
        out.append(json.dumps(d))
    return out


class MatchTally:
    def __init__(self):
        self.fixes = self.matched = 0
        self.plain = self.plain_right = 0
        self.all_right = 0
        self.junction = self.junction_right = 0
        self.stopped = self.stopped_near = 0
        self.errors = []
        self.wrong = []  # (probe, truth, output) for the failure analysis

    def add(self, probe, truth, out):
        self.fixes += 1
        matched = bool(out.get("matched", True)) and out.get("lat") is not None
        self.matched += matched
        way = out.get("osmWayId") if matched else None
        if truth["junction"]:
            self.junction += 1
            ok = way is not None and way in (truth["wayBefore"], truth["wayAfter"])
            self.junction_right += ok
            self.all_right += ok
        else:
            self.plain += 1
            ok = way is not None and way == truth["osmWayId"]
            self.plain_right += ok
            self.all_right += ok
            if not ok:
                self.wrong.append((probe, truth, out))
        if matched:
            err = haversine_meters(truth["lat"], truth["lon"], out["lat"], out["lon"])
            self.errors.append(err)
        else:
            err = float("inf")
        if truth["speed"] < 0.1:
            self.stopped += 1
            self.stopped_near += err <= 10

    def row(self):
        pct = lambda a, b: 100.0 * a / b if b else float("nan")
        return {"fixes": self.fixes, "matched": self.matched,
                "onTrueWay": pct(self.plain_right, self.plain), "offJunctionFixes": self.plain,
                "withJunctions": pct(self.all_right, self.fixes), "junctionFixes": self.junction,
                "junctionRight": pct(self.junction_right, self.junction),
                "stoppedWithin10": pct(self.stopped_near, self.stopped), "stoppedFixes": self.stopped,
                "errorP50": percentile(self.errors, 50), "errorP95": percentile(self.errors, 95)}


def run_edgenav(edgenav, args, stdin_lines):
    result = subprocess.run([edgenav] + args, input="\n".join(stdin_lines) + "\n", capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError("edgenav %s failed: %s" % (args[0], result.stderr[-500:]))
    return [json.loads(l) for l in result.stdout.splitlines() if l.strip()]


def fix_seconds(timestamp):
    """A raw fix's timestamp (epoch seconds, or ISO 8601 as `location/raw` also takes) as epoch seconds."""
    return iso_seconds(timestamp) if isinstance(timestamp, str) else float(timestamp)


def evaluate_trip(probe, events, truth, fixes, waypoints, interval, track1s):
    """Navigation figures for one replayed trip. `truth` holds the trace's fixes' truth; `track1s` the full 1 s truth."""
    t_of = {tkey(t["timestamp"]): t for t in truth}
    trip = {"probe": probe, "interval": interval, "fixes": len(fixes)}
    arrivals = [e for e in events if e["topic"] == "nav/arrival" and e["payload"]]
    routes = [e["payload"] for e in events if e["topic"] == "nav/route" and e["payload"]]
    etas = [e["payload"] for e in events if e["topic"] == "nav/eta" and e["payload"]]
    # Arrivals.
    trip["arrivals"] = []
    for k, wp in enumerate(waypoints):
        mine = [a["payload"] for a in arrivals if a["payload"]["waypoint"]["index"] == k]
        entry = {"count": len(mine)}
        # Whether any fix of the trace was taken with the vehicle within 30 m of the waypoint (by its true position):
        # at 5 s fixes at speed none may be (70-140 m between fixes), and then no announcement can be within 30 m.
        entry["fixWithin30"] = any(
            haversine_meters(tr["lat"], tr["lon"], wp["lat"], wp["lon"]) <= ARRIVAL_RADIUS_METERS
            for tr in (t_of.get(tkey(f["timestamp"])) for f in fixes) if tr is not None)
        if mine:
            t = iso_seconds(mine[0]["timestamp"])
            tr = t_of.get(tkey(t))
            if tr is not None:
                entry["trueDistance"] = haversine_meters(tr["lat"], tr["lon"], wp["lat"], wp["lon"])
                entry["odometerToGo"] = wp["odometer"] - tr["odometer"]  # > 0: before the waypoint
                # Early: announced with the vehicle still more than 30 m of its drive AND of straight line away.
                # Within 30 m in a straight line but with more than 30 m of its drive to go, the vehicle passes
                # the waypoint earlier (the other carriageway, a loop round a block): counted apart.
                # So does one that came within 30 m of it since the trace's previous fix: at sparse fixes at speed the
                # fix after passing the waypoint on its own street is the first that can tell, and SUMO may then loop
                # round to stop on the other side (Kouvola at 18 vehicles/h/km, seed 7, probe2 at 5 s: 4 m from the
                # waypoint 3 s before the announcing fix, 38 m at it, 566 m of its drive to go).
                ahead = entry["odometerToGo"] > ARRIVAL_RADIUS_METERS
                fix_times = (fix_seconds(f["timestamp"]) for f in fixes)
                previous = max((ft for ft in fix_times if ft < t), default=None)
                passed_since = previous is not None and any(
                    previous < sample["timestamp"] <= t
                    and haversine_meters(sample["lat"], sample["lon"], wp["lat"], wp["lon"]) <= ARRIVAL_RADIUS_METERS
                    for sample in track1s)
                within = entry["trueDistance"] <= ARRIVAL_RADIUS_METERS or passed_since
                entry["early"] = ahead and not within
                entry["passedEarlier"] = ahead and within
                entry["fixTime"] = t
        trip["arrivals"].append(entry)
    # The route EdgeNav planned at the start, against SUMO's path.
    first = next((r for r in routes if r["reason"] == "destinationsSet"), None)
    trip["routeStatus"] = first["routeStatus"] if first else "none"
    reroutes = [r for r in routes if r["reason"] in ("offRoute", "fasterRoute")]
    odometer_at = {tkey(t["timestamp"]): t["odometer"] for t in track1s}
    nominal = {tkey(t["timestamp"]): nominal_time(t) for t in track1s}
    when = lambda seconds: nominal.get(tkey(seconds), seconds)
    trip["reroutes"] = [{"reason": r["reason"], "t": when(iso_seconds(r["timestamp"])),
                         "odometer": odometer_at.get(tkey(iso_seconds(r["timestamp"])))} for r in reroutes]
    trip["leftRoute"] = None
    if first and first["routeStatus"] == "ok":
        # Planned leg durations against the time SUMO's vehicle took (from the first fix, then waypoint to waypoint).
        arrive = arrival_times(track1s, waypoints, EPOCH)
        starts = [truth[0]["timestamp"]] + arrive[:-1]
        trip["legTimes"] = [{"plannedSeconds": leg["durationSeconds"], "plannedMeters": leg["distanceMeters"],
                             "actualSeconds": end - start, "actualMeters": wp["odometer"] - odo}
                            for leg, wp, start, end, odo in zip(first["legs"], waypoints, starts, arrive,
                                                                [0.0] + [w["odometer"] for w in waypoints[:-1]])]
        polyline = []
        for leg in first["legs"]:
            polyline.extend(decode_polyline6(leg["polyline6"]))
        dists = plan_distances_meters(track1s, polyline)
        trip["maxPathDeviation"] = max(dists)
        trip["leftRoute"] = find_leave(track1s, polyline, dists)
        # Continuing at a waypoint re-plans from the vehicle when it is not where the planned next leg starts: a new
        # route (not the planned leg kept) after the vehicle left answers the leave as a reroute does.
        planned = [decode_polyline6(leg["polyline6"]) for leg in first["legs"]]
        trip["replanned"] = [
            {"reason": r["reason"], "t": when(iso_seconds(r["timestamp"])),
             "odometer": odometer_at.get(tkey(iso_seconds(r["timestamp"])))}
            for r in routes if r["reason"] == "nextDestination" and r["legs"]
            and decode_polyline6(r["legs"][0]["polyline6"]) not in planned]
    # Remaining time halfway in time through each leg, against when the vehicle reached the waypoint: SUMO's time
    # there, or, when the announced arrival was at an earlier passage (`passedEarlier`: the drive passes the waypoint,
    # loops round and comes back to it, as SUMO's route may), the first 1 s sample of that passage within
    # ARRIVAL_RADIUS_METERS: the navigator's remaining time counts down to the arrival it announces, and a demanding
    # user's trip ends the first time the vehicle reaches the waypoint.
    fix_times = [f["timestamp"] for f in fixes]
    eta_times = [iso_seconds(e["timestamp"]) for e in etas]
    trip["eta"] = []
    leg_start = fix_times[0]
    reached = arrival_times(track1s, waypoints, EPOCH)
    for k, wp in enumerate(waypoints):
        entry = trip["arrivals"][k]
        if entry.get("passedEarlier"):
            start = reached[k - 1] if k > 0 else fix_times[0]
            reached[k] = next((sample["timestamp"] for sample in track1s
                               if start < sample["timestamp"] <= entry["fixTime"]
                               and haversine_meters(sample["lat"], sample["lon"], wp["lat"], wp["lon"])
                               <= ARRIVAL_RADIUS_METERS), entry["fixTime"])
    for k, t_arrive in enumerate(reached):
        half = (leg_start + t_arrive) / 2
        i = bisect.bisect_right(fix_times, half) - 1
        entry = None
        if i >= 0:
            t_fix = fix_times[i]
            j = bisect.bisect_right(eta_times, t_fix + 1e-6) - 1
            actual = t_arrive - t_fix
            if j >= 0 and etas[j]["waypointIndex"] == k and actual > 0:
                predicted = etas[j]["remainingSeconds"]
                entry = {"predicted": predicted, "actual": actual, "error": (predicted - actual) / actual}
        trip["eta"].append(entry)
        leg_start = t_arrive
    return trip


EPOCH = 0.0


def evaluate(edgenav, graph, trace_dir, probes, intervals, epoch, traffic=None, keep_accuracy=False):
    """`keep_accuracy`: `match` gets the traces' horizontalAccuracy (realistic.py's varies fix to fix); by default it
    is stripped (traces.py's is a constant 10). `traffic`: a `replay --traffic` file (Benchmarks/sumo/traffic_feed.py); each trace is then replayed a second
    time with it, and its trips go to "tripsTraffic"."""
    global EPOCH
    EPOCH = epoch
    result = {}
    for interval in intervals:
        final, provisional = MatchTally(), MatchTally()
        trips, trips_traffic = [], []
        for probe in probes:
            d = os.path.join(trace_dir, probe)
            rows = load_jsonl(os.path.join(d, "truth.jsonl"))
            step = int(interval)
            # realistic.py: a fix lost in an outage keeps its truth row ("dropped"), a duplicated fix repeats its row
            # ("duplicate"): one row per raw line in `truth`, the vehicle's path once in `truth_all`.
            truth = [t for t in rows if t["sampleIndex"] % step == 0 and not t.get("dropped")]
            truth_all = [t for t in rows if not t.get("duplicate")]
            with open(os.path.join(d, "raw-%ds.jsonl" % step)) as f:
                raw = [l.strip() for l in f if l.strip()]
            fixes = [json.loads(l) for l in raw]
            matched = run_edgenav(edgenav, ["match", "--map", graph], raw if keep_accuracy else strip_accuracy(raw))
            with open(os.path.join(d, "match-%ds.jsonl" % step), "w") as f:
                f.writelines(json.dumps(m) + "\n" for m in matched)
            for t, m in zip(truth, matched):
                final.add(probe, t, m)
            events = run_edgenav(edgenav, ["replay", "--map", graph, "--destinations",
                                           os.path.join(d, "destinations.json")], raw)
            with open(os.path.join(d, "replay-%ds.jsonl" % step), "w") as f:
                f.writelines(json.dumps(e) + "\n" for e in events)
            snapped = {}
            for e in events:
                if e["topic"] == "location/snapped" and e["payload"]:
                    snapped[tkey(iso_seconds(e["payload"]["timestamp"]))] = e["payload"]
            for t in truth:
                provisional.add(probe, t, snapped.get(tkey(t["timestamp"]), {"matched": False}))
            with open(os.path.join(d, "waypoints.json")) as f:
                waypoints = json.load(f)
            trips.append(evaluate_trip(probe, events, truth, fixes, waypoints, step, truth_all))
            if traffic:
                events = run_edgenav(edgenav, ["replay", "--map", graph, "--destinations",
                                               os.path.join(d, "destinations.json"), "--traffic", traffic], raw)
                with open(os.path.join(d, "replay-%ds-traffic.jsonl" % step), "w") as f:
                    f.writelines(json.dumps(e) + "\n" for e in events)
                trips_traffic.append(evaluate_trip(probe, events, truth, fixes, waypoints, step, truth_all))
        result["%ds" % step] = {"final": final, "provisional": provisional, "trips": trips}
        if traffic:
            result["%ds" % step]["tripsTraffic"] = trips_traffic
    return result
