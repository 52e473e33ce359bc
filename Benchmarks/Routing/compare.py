#!/usr/bin/env python3
"""Compares per-pair route results (JSON lines with id, status, distanceMeters, durationSeconds).

  compare.py share OURS.jsonl REF.jsonl [tolerance]   share of pairs whose distances agree within ±tolerance
                                                       (default 0.02); prints JSON; lists the worst pairs on stderr
  compare.py ratio OURS.jsonl REF.jsonl               median ratios ours/ref of distance and duration
"""

import json
import statistics
import sys


def load(path):
    with open(path) as lines:
        return {r["id"]: r for r in (json.loads(line) for line in lines if line.strip())}


def share(ours_path, ref_path, tolerance=0.02, worst=15):
    ours, ref = load(ours_path), load(ref_path)
    agree, compared, disagreements, moved = 0, 0, [], 0
    for pair_id, r in ref.items():
        if r["status"] != "ok":
            continue
        if r.get("waypointMovedMeters", 0.0) > 1.0:
            moved += 1  # the reference answered another question (see reference.py): not comparable
            continue
        compared += 1
        o = ours.get(pair_id)
        if o is None or o["status"] != "ok":
            disagreements.append((float("inf"), pair_id, None, r["distanceMeters"]))
            continue
        delta = (o["distanceMeters"] - r["distanceMeters"]) / max(r["distanceMeters"], 1.0)
        # Both engines snap to the same point, but round positions differently: allow 1 m absolute as well.
        if abs(delta) <= tolerance or abs(o["distanceMeters"] - r["distanceMeters"]) <= 1.0:
            agree += 1
        else:
            disagreements.append((delta, pair_id, o["distanceMeters"], r["distanceMeters"]))
    disagreements.sort(key=lambda d: -abs(d[0]))
    for delta, pair_id, o, r in disagreements[:worst]:
        print(f"pair {pair_id}: ours {o} m, reference {r} m, delta {delta:+.1%}", file=sys.stderr)
    result = {"compared": compared, "agree": agree, "referenceMovedWaypoint": moved, "share": agree / compared if compared else float("nan"),
              "shorterThanReference": sum(1 for d in disagreements if d[0] < 0),
              "longerThanReference": sum(1 for d in disagreements if d[0] > 0)}
    print(json.dumps(result))


def ratio(ours_path, ref_path):
    ours, ref = load(ours_path), load(ref_path)
    distance, duration = [], []
    for pair_id, r in ref.items():
        o = ours.get(pair_id)
        if r["status"] == "ok" and r.get("waypointMovedMeters", 0.0) <= 1.0 and o and o["status"] == "ok" and r["distanceMeters"] > 0 and r["durationSeconds"] > 0:
            distance.append(o["distanceMeters"] / r["distanceMeters"])
            duration.append(o["durationSeconds"] / r["durationSeconds"])
    print(json.dumps({"pairs": len(distance),
                      "medianDistanceRatio": statistics.median(distance) if distance else float("nan"),
                      "medianDurationRatio": statistics.median(duration) if duration else float("nan")}))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "share":
        share(sys.argv[2], sys.argv[3], float(sys.argv[4]) if len(sys.argv) > 4 else 0.02)
    elif len(sys.argv) >= 4 and sys.argv[1] == "ratio":
        ratio(sys.argv[2], sys.argv[3])
    else:
        print(__doc__)
        sys.exit(2)
