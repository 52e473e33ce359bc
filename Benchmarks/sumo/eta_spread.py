#!/usr/bin/env python3
"""Where the no-feed mid-leg remaining-time error comes from, on the SUMO probe drives (truth only, plus the
navigator's errors from `eta_study.py --json`).

For every leg, halfway through it in time, the truth (1 s samples) gives the remaining distance, the remaining
moving time (speed >= 0.5 m/s), the remaining standing time and the remaining time inside junctions. Oracle
predictors then say how much of the error no model without a feed can remove:

  stand-luck floor   TRUE remaining moving time + the map's standing seconds per metre (the other legs of the
                     same map, leave-one-out) x remaining distance: a perfect model of driving, a perfectly
                     calibrated city average of waiting; what is left is the luck of the lights met after mid-leg.
  … median rate      the same with the median of the other legs' standing seconds per metre.
  own-stand floor    TRUE remaining moving time + this leg's own standing so far per metre x remaining distance.
  move-luck floor    TRUE remaining standing time + remaining distance / the leg's moving speed so far.
  naive pace         remaining distance / the leg's whole speed so far (distance / elapsed).

and, with --eta-json (eta_study.py --json output; the same interval), the navigator's signed error beside them,
the same with the luck of the lights taken out (nav - stand luck: its prediction plus how much more the vehicle
stood after mid-leg than the map's median rate says), and its correlation with the remaining standing share (does it miss the red lights, or something systematic?).

  python3 Benchmarks/sumo/eta_spread.py [--maps kouvola,baltimore,liechtenstein,helsinki] [--eta-json F]
                                        [--interval 1] [--root .cache/bench-sumo] [--verbose]
"""
import argparse
import bisect
import json
import os
import statistics

from evaluate import arrival_times, load_jsonl, STANDING_METERS_PER_SECOND


def med(v):
    return statistics.median(v) if v else float("nan")


def corr(xs, ys):
    if len(xs) < 3:
        return float("nan")
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / (sxx * syy) ** 0.5 if sxx > 0 and syy > 0 else float("nan")


def legs_of(trace_dir):
    """Per leg: a dict of the truth's figures halfway through the leg in time."""
    truth = load_jsonl(os.path.join(trace_dir, "truth.jsonl"))
    raw = load_jsonl(os.path.join(trace_dir, "raw-1s.jsonl"))
    with open(os.path.join(trace_dir, "waypoints.json")) as f:
        waypoints = json.load(f)
    from traces import EPOCH_SECONDS
    times = [s["timestamp"] for s in truth]
    out = []
    leg_start = raw[0]["timestamp"]
    for wp, t_end in zip(waypoints, arrival_times(truth, waypoints, EPOCH_SECONDS)):
        t_mid = leg_start + 0.5 * (t_end - leg_start)
        i0 = bisect.bisect_left(times, leg_start)
        im = bisect.bisect_left(times, t_mid)
        ie = bisect.bisect_left(times, t_end)
        before, after = truth[i0:im], truth[im:ie]
        if not before or not after:
            leg_start = t_end
            continue

        def split(samples):
            stand = sum(1 for s in samples if s["speed"] < STANDING_METERS_PER_SECOND)
            junction = sum(1 for s in samples if s["junction"])
            return stand, len(samples) - stand, junction

        s_before, m_before, _ = split(before)
        s_after, m_after, j_after = split(after)
        odo_start, odo_mid = before[0]["odometer"], after[0]["odometer"]
        odo_end = truth[ie - 1]["odometer"] if ie > 0 else odo_mid
        odo_end = max(odo_end, wp["odometer"]) if wp["odometer"] - odo_end < 50 else odo_end
        out.append({"actual": t_end - t_mid, "dist_before": odo_mid - odo_start, "dist_after": odo_end - odo_mid,
                    "stand_before": s_before, "move_before": m_before, "stand_after": s_after,
                    "move_after": m_after, "junction_after": j_after})
        leg_start = t_end
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--maps", default="kouvola,baltimore,liechtenstein,helsinki")
    ap.add_argument("--root", default=".cache/bench-sumo")
    ap.add_argument("--eta-json", help="eta_study.py --json output")
    ap.add_argument("--interval", type=int, default=1)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    eta = {}
    if args.eta_json:
        with open(args.eta_json) as f:
            eta = json.load(f)
    print("%-14s %3s  %-16s %-16s %-16s %-16s %-16s %-16s %-16s  %s" % (
        "map", "leg", "stand-luck floor", "… median rate", "own-stand floor", "move-luck floor", "naive pace", "navigator", "nav - stand luck",
        "corr(nav err, stand share after)  stand share before/after  junction share after"))
    for m in args.maps.split(","):
        tdir = os.path.join(args.root, m, "traces")
        if not os.path.isdir(tdir):
            print("skipping %s: %s absent" % (m, tdir))
            continue
        probes = sorted(os.listdir(tdir))
        legs = {p: legs_of(os.path.join(tdir, p)) for p in probes}
        nav = eta.get("%s/%ds" % (m, args.interval), {})
        for k in (0, 1):
            rows = [(p, legs[p][k]) for p in probes if len(legs[p]) > k]
            cells = {name: [] for name in ("luck", "luckmed", "own", "move", "naive", "nav", "navnoluck")}
            pairs = []
            for p, l in rows:
                others = [o for q, o in rows if q != p]
                rate = sum(o["stand_before"] + o["stand_after"] for o in others) / max(
                    1.0, sum(o["dist_before"] + o["dist_after"] for o in others))
                a = l["actual"]
                cells["luck"].append((l["move_after"] + rate * l["dist_after"] - a) / a)
                # The same with the median leg's rate: a few deadlocked legs weigh less.
                med_rate = med([(o["stand_before"] + o["stand_after"]) / max(1.0, o["dist_before"] + o["dist_after"])
                                for o in others])
                cells["luckmed"].append((l["move_after"] + med_rate * l["dist_after"] - a) / a)
                own_rate = l["stand_before"] / max(1.0, l["dist_before"])
                cells["own"].append((l["move_after"] + own_rate * l["dist_after"] - a) / a)
                if l["move_before"] > 0 and l["dist_before"] > 0:
                    cells["move"].append(
                        (l["stand_after"] + l["dist_after"] / (l["dist_before"] / l["move_before"]) - a) / a)
                    elapsed = l["stand_before"] + l["move_before"]
                    cells["naive"].append((l["dist_after"] / (l["dist_before"] / elapsed) - a) / a)
                trip = nav.get(p)
                if trip and len(trip) > k and "0.5" in trip[k]["errors"]:
                    e = trip[k]["errors"]["0.5"]
                    cells["nav"].append(e)
                    # The navigator with the luck of the lights taken out: its prediction minus how much more the
                    # vehicle stood after mid-leg than the city's median rate says.
                    luck = l["stand_after"] - med_rate * l["dist_after"]
                    cells["navnoluck"].append(((e + 1) * a + luck - a) / a)
                    pairs.append((e, l["stand_after"] / a))
                if args.verbose:
                    print("    %-8s actual %5.0f dist %5.0f m stand %3d/%3d junction %3d nav %s" % (
                        p, a, l["dist_after"], l["stand_before"], l["stand_after"], l["junction_after"],
                        "%+.2f" % trip[k]["errors"]["0.5"] if trip and len(trip) > k and "0.5" in trip[k]["errors"]
                        else "-"))
            fmt = lambda v: "%5.1f %+6.1f" % (100 * med([abs(x) for x in v]), 100 * med(v)) if v else "      -     "
            print("%-14s %3d  %-16s %-16s %-16s %-16s %-16s %-16s %-16s  %+5.2f                  %4.2f / %4.2f        %4.2f" % (
                m, k, fmt(cells["luck"]), fmt(cells["luckmed"]), fmt(cells["own"]), fmt(cells["move"]), fmt(cells["naive"]),
                fmt(cells["nav"]), fmt(cells["navnoluck"]), corr([x for x, _ in pairs], [y for _, y in pairs]),
                med([l["stand_before"] / max(1, l["stand_before"] + l["move_before"]) for _, l in rows]),
                med([l["stand_after"] / l["actual"] for _, l in rows]),
                med([l["junction_after"] / l["actual"] for _, l in rows])))


if __name__ == "__main__":
    main()
