#!/usr/bin/env python3
"""One SUMO run per map: OSM extract -> SUMO network -> background traffic + probe vehicles -> FCD of the probes.

Outputs in the work directory (all reproducible from the seed):
  net.net.xml        the passenger-car network (edge ids keep the OSM way id: `<wayId>#<k>`, `-<wayId>#<k>`)
  background.trips.xml, probes.trips.xml
  fcd.xml            1 s floating-car data of the probes (geo coordinates, speed, angle, lane, odometer)
  stats.xml          SUMO's statistics (teleports, jams, mean waiting time)
  simulation.json    what was run (options, counts, SUMO version)

Why these options:
  --geometry.remove false, --junctions.join false: never merge edges, so every SUMO edge maps to one OSM way.
  --tls.guess / --tls.guess-signals: extracts often tag only some signals; SUMO guesses the rest at big junctions.
    Fixed-time programs (SUMO's default `static`; `--tls-type actuated` as osmWebWizard builds them). --tls.discard-simple drops signals at nodes that are not
    junctions (pedestrian crossings): with every OSM signal node as its own uncoordinated controller Helsinki
    gridlocks (658 teleports of 3,227 vehicles at 100 veh/h/km, 107 of 852 even at 25 veh/h/km).
  --proj.utm: metric projection; FCD is written back in WGS84 (--fcd-output.geo).
"""
import argparse
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET


def run(cmd, env, log):
    log.write("$ " + " ".join(cmd) + "\n")
    log.flush()
    result = subprocess.run(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        sys.exit("simulate.py: command failed (%d), see %s: %s" % (result.returncode, log.name, " ".join(cmd[:3])))


def add_stops(net_path, routes_path, out_path, stops_path, seconds):
    """Each probe stops `seconds` at the kerb halfway along its route and at its destination (a delivery round),
    instead of driving through the midpoint and vanishing at the end while moving."""
    lanes = {}  # edge id -> (first lane that admits passenger cars, its length)
    for _, el in ET.iterparse(net_path):
        if el.tag == "edge" and el.get("function") != "internal":
            for lane in el.findall("lane"):
                allow, disallow = lane.get("allow"), lane.get("disallow", "")
                if (allow is None or "passenger" in allow.split()) and "passenger" not in disallow.split():
                    lanes[el.get("id")] = (lane.get("id"), float(lane.get("length")))
                    break
            el.clear()
    tree = ET.parse(routes_path)
    stops = {}
    for vehicle in list(tree.getroot()):
        route = vehicle.find("route")
        if vehicle.tag != "vehicle" or route is None:
            continue
        edges = route.get("edges").split()
        if len(edges) < 3 or any(e not in lanes for e in (edges[-1],)):
            tree.getroot().remove(vehicle)
            continue
        total = sum(lanes[e][1] for e in edges if e in lanes)
        run_length, middle = 0.0, None
        for i, e in enumerate(edges[1:-1], start=1):
            length = lanes.get(e, (None, 0.0))[1]
            if e in lanes and length >= 10 and run_length + length >= total / 2:
                middle = (e, min(max(total / 2 - run_length, 5.0), length - 1.0))
                break
            run_length += length
        if middle is None:
            tree.getroot().remove(vehicle)
            continue
        last_lane, last_length = lanes[edges[-1]]
        end_pos = max(1.0, last_length * 0.6)
        vehicle.set("arrivalPos", "%.1f" % end_pos)
        for edge, pos in (middle, (edges[-1], end_pos)):
            ET.SubElement(vehicle, "stop", {"lane": lanes[edge][0], "endPos": "%.1f" % pos,
                                            "duration": "%d" % seconds})
        stops[vehicle.get("id")] = {"midEdge": middle[0], "midPos": round(middle[1], 1), "endEdge": edges[-1]}
    tree.write(out_path)
    with open(stops_path, "w") as f:
        json.dump(stops, f)


def sumo_version(sumo_home, env):
    out = subprocess.run([os.path.join(sumo_home, "bin", "sumo"), "--version"], env=env,
                         capture_output=True, text=True).stdout
    return out.splitlines()[0].strip() if out else "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--osm-pbf", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--sumo-home", required=True)
    ap.add_argument("--probes", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--density", type=float, default=60.0,
                    help="background insertion density, vehicles per hour per km of road (randomTrips)")
    ap.add_argument("--min-probe-beeline", type=float, default=900.0,
                    help="probe trips: start and end at least this far apart (m), so most drive 1.5-6 km")
    ap.add_argument("--max-probe-beeline", type=float, default=4000.0,
                    help="probe trips: start and end at most this far apart (m), so few drive more than 6 km")
    ap.add_argument("--probe-candidates-factor", type=float, default=3.0,
                    help="insert this many times --probes candidates; the scorer keeps those of 1.5-6 km")
    ap.add_argument("--probe-spacing", type=float, default=15.0, help="seconds between probe departures")
    ap.add_argument("--tls-type", default="static", choices=["static", "actuated"],
                    help="signal programs: fixed-time (default) or actuated (SUMO's osmWebWizard default)")
    ap.add_argument("--stop-seconds", type=int, default=0,
                    help="probes stop this long at the kerb halfway and at the destination (0: drive through)")
    ap.add_argument("--warmup", type=float, default=600.0, help="seconds of background traffic before probes")
    args = ap.parse_args()

    os.makedirs(args.workdir, exist_ok=True)
    sumo_home = os.path.abspath(args.sumo_home)
    env = dict(os.environ, SUMO_HOME=sumo_home, PROJ_DATA=os.path.join(sumo_home, "data", "proj"),
               PROJ_LIB=os.path.join(sumo_home, "data", "proj"))
    tools = os.path.join(sumo_home, "tools")
    bindir = os.path.join(sumo_home, "bin")
    w = lambda name: os.path.join(args.workdir, name)
    log = open(w("simulate.log"), "w")

    osm_xml = w("extract.osm.xml")
    run(["osmium", "cat", "--overwrite", "-o", osm_xml, args.osm_pbf], env, log)
    run([os.path.join(bindir, "netconvert"), "--osm-files", osm_xml, "-o", w("net.net.xml"),
         "--proj.utm", "--keep-edges.by-vclass", "passenger", "--remove-edges.isolated",
         "--geometry.remove", "false", "--junctions.join", "false",
         "--tls.guess", "--tls.guess-signals", "--tls.discard-simple", "--tls.join",
         "--tls.default-type", args.tls_type,
         "--output.street-names", "--no-turnarounds.except-deadend",
         "--no-warnings", "--seed", str(args.seed)], env, log)
    os.remove(osm_xml)

    probe_count = int(round(args.probes * args.probe_candidates_factor))
    probe_end = args.warmup + probe_count * args.probe_spacing
    sim_end = probe_end + 1800  # time for the last probes to finish a 6 km trip in traffic
    run([sys.executable, os.path.join(tools, "randomTrips.py"), "-n", w("net.net.xml"), "-o", w("background.trips.xml"),
         "--route-file", w("background.validate.rou.xml"),  # --validate writes routes; not into the caller's cwd
         "--seed", str(args.seed), "--begin", "0", "--end", str(sim_end), "--insertion-density", str(args.density),
         "--fringe-factor", "5", "--min-distance", "300", "--vehicle-class", "passenger", "--vclass", "passenger",
         "--prefix", "bg", "--validate", "--random-departpos", "--random-arrivalpos",
         "--trip-attributes", 'departLane="best" departSpeed="max"'], env, log)
    run([sys.executable, os.path.join(tools, "randomTrips.py"), "-n", w("net.net.xml"), "-o", w("probes.trips.xml"),
         "--route-file", w("probes.validate.rou.xml"),
         "--seed", str(args.seed + 1000), "--begin", str(args.warmup), "--end", str(probe_end),
         "--period", str(args.probe_spacing), "--min-distance", str(args.min_probe_beeline),
         "--max-distance", str(args.max_probe_beeline),
         "--vehicle-class", "passenger", "--vclass", "passenger", "--prefix", "probe", "--validate",
         "--random-departpos", "--random-arrivalpos", "--trip-attributes", 'departLane="best"'], env, log)
    probe_file = w("probes.trips.xml")
    if args.stop_seconds > 0:
        run([os.path.join(bindir, "duarouter"), "-n", w("net.net.xml"), "-r", w("probes.trips.xml"),
             "-o", w("probes.rou.xml"), "--ignore-errors", "--no-warnings", "--seed", str(args.seed)], env, log)
        add_stops(w("net.net.xml"), w("probes.rou.xml"), w("probes-stops.rou.xml"), w("probe_stops.json"),
                  args.stop_seconds)
        probe_file = w("probes-stops.rou.xml")
    probe_ids = [t.get("id") for t in ET.parse(probe_file).getroot() if t.tag in ("trip", "vehicle")]
    background = sum(1 for _ in ET.parse(w("background.trips.xml")).getroot().iter("trip"))
    run([os.path.join(bindir, "sumo"), "-n", w("net.net.xml"),
         "-r", w("background.trips.xml") + "," + probe_file,
         "--begin", "0", "--end", str(sim_end), "--step-length", "1", "--seed", str(args.seed),
         "--fcd-output", w("fcd.xml"), "--fcd-output.geo", "true", "--fcd-output.distance", "true",
         "--device.fcd.explicit", ",".join(probe_ids),
         "--statistic-output", w("stats.xml"), "--tripinfo-output", w("tripinfo.xml"),
         "--time-to-teleport", "300", "--max-depart-delay", "600", "--ignore-route-errors",
         "--no-step-log", "--no-warnings", "--duration-log.statistics"], env, log)

    net_root_edges = 0
    internal_edges = 0
    for _, el in ET.iterparse(w("net.net.xml")):
        if el.tag == "edge":
            if el.get("function") == "internal":
                internal_edges += 1
            else:
                net_root_edges += 1
        el.clear()
    tls = sum(1 for _, el in ET.iterparse(w("net.net.xml")) if el.tag == "tlLogic")
    info = {"sumoVersion": sumo_version(sumo_home, env), "seed": args.seed, "tlsType": args.tls_type,
            "stopSeconds": args.stop_seconds, "densityPerHourPerKm": args.density,
            "backgroundTrips": background, "probeCandidates": len(probe_ids), "edges": net_root_edges,
            "internalEdges": internal_edges, "trafficLights": tls, "simulationEndSeconds": sim_end}
    stats = ET.parse(w("stats.xml")).getroot()
    for tag in ("vehicles", "teleports", "vehicleTripStatistics"):
        el = stats.find(tag)
        if el is not None:
            info[tag] = dict(el.attrib)
    with open(w("simulation.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(json.dumps(info))


if __name__ == "__main__":
    main()
