#!/usr/bin/env python3
"""One table of the headline figures of bench-sumo runs side by side (white noise against realistic.py's noise):
   compare_noise.py .cache/bench-sumo/helsinki/summary.json .cache/bench-sumo/helsinki-realistic/summary.json …

Columns: final `match` answers on the true way (off junctions), their error p50 / p95, stopped fixes within 10 m;
the navigator's provisional answers on the true way; arrivals once, within 30 m, early (+ passed earlier);
reroutes in all (offRoute + fasterRoute), false ones (on trips that kept to EdgeNav's route, plus those before
SUMO's vehicle left the route on the others), the others' reroutes within 3 fixes; ETA leg-1 median abs error."""
import json
import sys


def row(summary):
    for interval, r in summary["intervals"].items():
        f, p, n = r["final"], r["provisional"], r["navigation"]
        reroutes = sum(len(t["reroutes"]) for t in r["trips"])
        false = n["sameRouteReroutes"] + n["otherRouteFalseBeforeLeaving"]
        print("| %s | %s | %.1f %% | %.1f / %.1f m | %.1f %% | %.1f %% | %d/%d | %d | %d (+%d) | %d | %d | %d/%d | %.0f %% |"
              % (summary["map"], interval, f["onTrueWay"], f["errorP50"], f["errorP95"], f["stoppedWithin10"],
                 p["onTrueWay"], n["arrivedOnce"], n["waypoints"], n["within30"], n["early"], n["passedEarlier"],
                 reroutes, false, n["otherRouteReroutedWithin3"],
                 n["otherRouteTrips"] - n.get("otherRouteStartedOff", 0), 100 * n["etaLeg0MedianAbs"]))


print("| run | interval | match on true way | error p50 / p95 | stopped ≤ 10 m | navigator on true way | arrivals once "
      "| within 30 m | early (+passed earlier) | reroutes | false reroutes | reroute within 3 fixes | ETA leg 1 |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for path in sys.argv[1:]:
    row(json.load(open(path)))
