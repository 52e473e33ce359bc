"""The white-noise SUMO traces of one map without some fix fields (e.g. `speed,course`: a positions-only receiver),
evaluated like bench_sumo.py's own run (match and replay, every probe, 1 s and 5 s) into DEST/summary.json.

    python3 Benchmarks/sumo/strip_fields.py .cache/bench-sumo/<map> <dest dir> <edgenav binary> speed,course
    python3 Benchmarks/sumo/compare_noise.py .cache/bench-sumo/<map>/summary.json <dest dir>/summary.json

Needs the map's white run first (`scripts/bench-sumo --map <map>`): its traces, truth and graph are read from SRC.
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_sumo  # noqa: E402
import evaluate  # noqa: E402
import traces  # noqa: E402


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    src, dest, binary, fields = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
    with open(os.path.join(src, "summary.json")) as f:
        white = json.load(f)
    probes = [t["probe"] for t in white["intervals"]["1s"]["trips"]]
    for probe in probes:
        d = os.path.join(dest, "traces", probe)
        os.makedirs(d, exist_ok=True)
        for name in ("truth.jsonl", "destinations.json", "waypoints.json"):
            shutil.copyfile(os.path.join(src, "traces", probe, name), os.path.join(d, name))
        for interval in ("1s", "5s"):
            with open(os.path.join(src, "traces", probe, "raw-%s.jsonl" % interval)) as raw, \
                    open(os.path.join(d, "raw-%s.jsonl" % interval), "w") as out:
                for line in raw:
                    fix = json.loads(line)
                    for k in fields:
                        fix.pop(k, None)
                    out.write(json.dumps(fix) + "\n")
    # A recorded-noise run (`--noise`, realistic.py) has no graph of its own (its white run's is used) and reports an
    # accuracy that varies fix to fix, which `match` gets as bench_sumo.py gives it; a white run's constant 10 is
    # stripped, as there.
    graph = os.path.join(src, "map.graph")
    if not os.path.exists(graph) and "noise" in white:
        # "<white run>-<preset>" (bench_sumo.py's main_noise)
        graph = os.path.join(os.path.dirname(os.path.normpath(src)), white["map"].rsplit("-", 1)[0], "map.graph")
    results = evaluate.evaluate(binary, graph, os.path.join(dest, "traces"), probes, [1, 5],
                                traces.EPOCH_SECONDS, None, keep_accuracy="noise" in white)
    summary = {"map": os.path.basename(os.path.normpath(dest)), "probes": len(probes), "intervals": {}}
    for interval, r in results.items():
        summary["intervals"][interval] = {
            "final": r["final"].row(), "provisional": r["provisional"].row(),
            "navigation": bench_sumo.navigation_summary(r["trips"], int(interval[:-1])), "trips": r["trips"]}
    with open(os.path.join(dest, "summary.json"), "w") as f:
        json.dump(summary, f)


if __name__ == "__main__":
    main()
