#!/usr/bin/env python3
"""Final answers only, in seconds: `edgenav match` on the cached SUMO traces, scored as bench_sumo.py scores them.

    python3 Benchmarks/sumo/match_only.py <edgenav> helsinki,liechtenstein,baltimore,kouvola 1,5 [fields to drop]

Prints per map and interval the share of fixes off junctions on the true way (and how many were wrong), error p50 /
p95 and stopped fixes within 10 m (evaluate.MatchTally); `speed,course` as the 4th argument drops those fields
(positions only, as strip_fields.py does). No navigator replay, nothing written: for trying matcher settings
quickly; the figures to quote come from scripts/bench-sumo. Needs the maps' white runs in .cache/bench-sumo/.
Intervals other than 1 and 5 (e.g. `2,3,10`) take every n-th fix of the 1 s trace, as the 5 s traces do.
The fixes report no `horizontalAccuracy` (as bench_sumo.py's match runs), or with ACC=<metres> set that accuracy
(ACC=keep: the traces' own, 10 m), for a receiver whose reported accuracy does not match the noise.
With MATCH_ONLY_OUT=<dir> set, the answers are also written to <dir>/<map>/<probe>/match-<i>s.jsonl (for
along_error.py <map dir> <i> <dir>/<map> and wrong_causes.py).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate  # noqa: E402


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    binary, maps = sys.argv[1], sys.argv[2].split(",")
    intervals = [int(x) for x in sys.argv[3].split(",")]
    drop = sys.argv[4].split(",") if len(sys.argv) == 5 else []
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".cache", "bench-sumo")
    for m in maps:
        src = os.path.join(root, m)
        with open(os.path.join(src, "summary.json")) as f:
            probes = [t["probe"] for t in json.load(f)["intervals"]["1s"]["trips"]]
        for step in intervals:
            tally = evaluate.MatchTally()
            for p in probes:
                d = os.path.join(src, "traces", p)
                truth = [t for t in evaluate.load_jsonl(os.path.join(d, "truth.jsonl"))
                         if t["sampleIndex"] % step == 0 and not t.get("dropped")]
                raw = []
                # Intervals bench_sumo.py did not write (2, 3, 10 s …) are every step-th fix of the 1 s trace, as its
                # 5 s traces are: the same noise, sampled more sparsely.
                path = os.path.join(d, "raw-%ds.jsonl" % step)
                sub = not os.path.exists(path)
                kept = {t["timestamp"] for t in truth}  # the truth of the fixes this interval keeps
                with open(os.path.join(d, "raw-1s.jsonl") if sub else path) as f:
                    for line in f:
                        if not line.strip():
                            continue
                        fix = json.loads(line)
                        if sub and fix["timestamp"] not in kept:
                            continue
                        acc = os.environ.get("ACC")
                        if acc is None:
                            fix.pop("horizontalAccuracy", None)
                        elif acc != "keep":
                            fix["horizontalAccuracy"] = float(acc)
                        for k in drop:
                            fix.pop(k, None)
                        raw.append(json.dumps(fix))
                out = evaluate.run_edgenav(binary, ["match", "--map", os.path.join(src, "map.graph")], raw)
                if os.environ.get("MATCH_ONLY_OUT"):
                    od = os.path.join(os.environ["MATCH_ONLY_OUT"], m, p)
                    os.makedirs(od, exist_ok=True)
                    with open(os.path.join(od, "match-%ds.jsonl" % step), "w") as f:
                        f.writelines(json.dumps(o) + "\n" for o in out)
                for t, o in zip(truth, out):
                    tally.add(p, t, o)
            r = tally.row()
            print("%-13s %ds  on true way %6.2f %% (%d wrong of %d)  error p50 %.2f p95 %.2f m  stopped %.1f %%" % (
                m, step, r["onTrueWay"], tally.plain - tally.plain_right, tally.plain, r["errorP50"],
                r["errorP95"], r["stoppedWithin10"]), flush=True)


if __name__ == "__main__":
    main()
