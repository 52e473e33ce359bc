#!/usr/bin/env python3
"""A foreign MQTT client for EdgeNav's integration tests: paho-mqtt (PyPI) publishing an assignment
and then a drive as OwnTracks location payloads, as the OwnTracks app would.

    owntracks-client.py --port 1883 --vehicle alice --destinations '{...}' --trace trace.jsonl [--no-cog]

The trace holds EdgeNav native fixes (one JSON object per line, as `edgenav simulate --stdout`
writes them); each becomes {"_type":"location","lat","lon","tst","vel" [km/h],"cog","acc"} on
owntracks/<vehicle>/phone (without "cog" with --no-cog: a phone that reports speed but no course).
"""
import argparse
import json
import sys
from datetime import datetime

import paho.mqtt.client as mqtt


def owntracks(fix, with_cog=True):
    ts = datetime.fromisoformat(fix["timestamp"].replace("Z", "+00:00")).timestamp()
    out = {"_type": "location", "lat": fix["lat"], "lon": fix["lon"], "tst": int(round(ts)), "tid": "al"}
    if "speed" in fix:
        out["vel"] = int(round(fix["speed"] * 3.6))
    if "course" in fix and with_cog:
        out["cog"] = int(round(fix["course"]))
    if "horizontalAccuracy" in fix:
        out["acc"] = int(round(fix["horizontalAccuracy"]))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1883)
    parser.add_argument("--vehicle", required=True)
    parser.add_argument("--prefix", default="fleet")
    parser.add_argument("--destinations", required=True)
    parser.add_argument("--trace", required=True)
    parser.add_argument("--no-cog", action="store_true", help="leave the course out")
    args = parser.parse_args()

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"owntracks-{args.vehicle}")
    client.connect(args.host, args.port, keepalive=30)
    client.loop_start()
    infos = [client.publish(f"{args.prefix}/{args.vehicle}/nav/destinations", args.destinations, qos=1, retain=True)]
    last_tst = None
    with open(args.trace) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            payload = owntracks(json.loads(line), with_cog=not args.no_cog)
            if payload["tst"] == last_tst:  # OwnTracks has whole seconds: one fix per second at most
                continue
            last_tst = payload["tst"]
            infos.append(client.publish(f"owntracks/{args.vehicle}/phone", json.dumps(payload), qos=1))
    for info in infos:
        info.wait_for_publish(timeout=30)
    client.loop_stop()
    client.disconnect()
    print(f"published {len(infos)} messages", file=sys.stderr)


if __name__ == "__main__":
    main()
