#!/usr/bin/env python3
"""A stand-in for a physical car in a cavsim run (external role: body), standard library only.

It moves itself (a straight line, or an arc with --yaw-rate, from its start pose at --speed from the
run's start on) and reports where it is, as a car would report its localisation: nav_msgs/Odometry
on /CAR/body/odom at --rate Hz, header.stamp on its own clock (epoch ns). It answers the
simulator's clock probes (/CAR/body/sync -> /CAR/body/sync_reply). Its V2V is its own UDP socket
(cavsim's datagram format): it warns --warn with an emergency-brake datagram once that car is closer
than --warn-distance, and reports every datagram it sends and receives on /cavsim/v2v. See
docs/external-devices.md ("A physical car") and docs/control-protocol.md.

    python3 body.py --url ws://HOST:PORT --vehicle car0 --x 10 --y -1 --yaw 3.14159 --speed 2
                    [--v2v-bind ADDR:PORT --v2v-peer car1=ADDR:PORT ... --warn car1 --warn-distance 8]
                    [--clock-offset-ms 200] [--lag-ms 200] [--stop-after 1.0]

Needs vehicle.py beside it (its WebSocket client). The last three flags inject faults for tests.
"""

import argparse
import json
import math
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vehicle import ODOMETRY, STRING, Rosbridge, WebSocketClosed, connect_with_retry, position  # noqa: E402

V2V_REPORT = "/cavsim/v2v"


def log(line):
    print(f"[python-body] {line}", file=sys.stderr, flush=True)


class LockedBridge(Rosbridge):
    """The pose loop and the reader thread both publish: one frame at a time on the socket."""

    def __init__(self, ws):
        super().__init__(ws)
        self.lock = threading.Lock()

    def op(self, **fields):
        with self.lock:
            super().op(**fields)


def stamp(ns):
    return {"sec": ns // 1_000_000_000, "nanosec": ns % 1_000_000_000}


class Motion:
    """Constant speed and yaw rate from the run's start (t0 on this car's clock) on; standing before it."""

    def __init__(self, args):
        self.x, self.y, self.yaw, self.speed, self.yaw_rate = args.x, args.y, args.yaw, args.speed, args.yaw_rate
        self.t0_ns = None
        self.stopped_at = None  # seconds after t0: braked for good

    def at(self, ns):
        t = 0.0 if self.t0_ns is None else max(0.0, (ns - self.t0_ns) / 1e9)
        moving = t if self.stopped_at is None else min(t, self.stopped_at)
        v = 0.0 if self.t0_ns is None or (self.stopped_at is not None and t >= self.stopped_at) else self.speed
        w = self.yaw_rate if v else 0.0
        if abs(self.yaw_rate) < 1e-9:
            x = self.x + self.speed * moving * math.cos(self.yaw)
            y = self.y + self.speed * moving * math.sin(self.yaw)
        else:
            r = self.speed / self.yaw_rate
            turn = self.yaw_rate * moving
            x = self.x + r * (math.sin(self.yaw + turn) - math.sin(self.yaw))
            y = self.y + r * (math.cos(self.yaw) - math.cos(self.yaw + turn))
        return x, y, self.yaw + self.yaw_rate * moving, v, w


def odometry(me, ns, pose):
    x, y, yaw, v, w = pose
    return {
        "header": {"stamp": stamp(ns), "frame_id": "map"},
        "child_frame_id": f"{me}/base_link",
        "pose": {"pose": {"position": {"x": x, "y": y, "z": 0.0},
                          "orientation": {"x": 0.0, "y": 0.0, "z": math.sin(yaw / 2), "w": math.cos(yaw / 2)}}},
        "twist": {"twist": {"linear": {"x": v, "y": 0.0, "z": 0.0}, "angular": {"x": 0.0, "y": 0.0, "z": w}}},
    }


def host_port(text):
    host, _, port = text.rpartition(":")
    return host, int(port)


def parse_args(argv):
    p = argparse.ArgumentParser(description="cavsim example physical car (role: body): moves itself and reports its pose")
    p.add_argument("--url", required=True, help="the run's control link, ws://HOST:PORT")
    p.add_argument("--vehicle", required=True, help="this car's name in the scenario")
    p.add_argument("--x", type=float, default=0.0)
    p.add_argument("--y", type=float, default=0.0)
    p.add_argument("--yaw", type=float, default=0.0, help="heading [rad]")
    p.add_argument("--speed", type=float, default=0.0, help="[m/s], from the run's start on")
    p.add_argument("--yaw-rate", type=float, default=0.0, help="[rad/s]")
    p.add_argument("--rate", type=float, default=50.0, help="pose reports per second")
    p.add_argument("--observe", nargs="*", default=[], help="cars whose odometry to watch (for --warn)")
    p.add_argument("--v2v-bind", help="ADDR:PORT of this car's V2V socket (its V2V NIC's address)")
    p.add_argument("--v2v-peer", action="append", default=[], help="NAME=ADDR:PORT of another car's V2V socket (repeat)")
    p.add_argument("--warn", help="send this car an emergency-brake datagram once it is closer than --warn-distance")
    p.add_argument("--warn-distance", type=float, default=8.0, help="[m], centre to centre")
    p.add_argument("--brake-on-warning", action="store_true", help="stop for good when an emergency-brake datagram arrives")
    p.add_argument("--clock-offset-ms", type=float, default=0.0, help="fault: this car's clock runs this far ahead")
    p.add_argument("--lag-ms", type=float, default=0.0, help="fault: each report is this old when sent")
    p.add_argument("--stop-after", type=float, help="fault: stop reporting this many seconds after the start (stay connected)")
    return p.parse_args(argv)


def run(args):
    me = args.vehicle
    offset_ns = int(args.clock_offset_ms * 1e6)
    lag_ns = int(args.lag_ms * 1e6)

    def clock():
        """This car's own clock: the host's, plus the injected offset."""
        return time.time_ns() + offset_ns

    ws = connect_with_retry(args.url, int(os.environ.get("CAVSIM_CONNECT_TIMEOUT_MS", "30000")) / 1000)
    bridge = LockedBridge(ws)
    body_odom, sync, sync_reply = f"/{me}/body/odom", f"/{me}/body/sync", f"/{me}/body/sync_reply"
    for topic, msg_type in ((body_odom, ODOMETRY), (sync_reply, STRING), ("/cavsim/ready", STRING), (V2V_REPORT, STRING), ("/cavsim/events", STRING)):
        bridge.advertise(topic, msg_type)
    bridge.subscribe("/sim_control", STRING)
    bridge.subscribe(sync, STRING)
    for car in args.observe:
        bridge.subscribe(f"/{car}/odom", ODOMETRY)

    motion = Motion(args)
    peers = {name: host_port(addr) for name, addr in (p.split("=", 1) for p in args.v2v_peer)}
    udp = None
    if args.v2v_bind:
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(host_port(args.v2v_bind))
    state = {"stop": False, "sent": 0, "received": 0, "warned": False, "others": {}}

    def event(name, detail=None):
        t_s = 0.0 if motion.t0_ns is None else (clock() - motion.t0_ns) / 1e9
        bridge.publish_json("/cavsim/events", {"vehicle": me, "t_s": t_s, "event": name, **({"detail": detail} if detail else {})})

    def send_v2v(to, msg_type, body):
        state["sent"] += 1
        data = {"id": f"{me}-{state['sent']}", "from": me, "to": to, "type": msg_type, "sentAtNs": str(clock()), "body": body}
        payload = json.dumps(data, separators=(",", ":")).encode()
        udp.sendto(payload, peers[to])
        bridge.publish_json(V2V_REPORT, {"kind": "sent", "id": data["id"], "from": me, "to": to, "type": msg_type, "size_bytes": len(payload)})

    def listen_v2v():
        allowed = {addr for addr, _ in peers.values()}
        while not state["stop"]:
            try:
                payload, (addr, _) = udp.recvfrom(65535)
            except OSError:
                return
            received_ns = clock()
            try:
                d = json.loads(payload)
            except ValueError:
                continue
            # Only the other cars' channel addresses count, and only under a peer's name.
            if addr not in allowed or d.get("from") not in peers or d.get("from") == me:
                continue
            state["received"] += 1
            bridge.publish_json(V2V_REPORT, {"kind": "received", "id": d["id"], "from": d["from"], "to": me, "type": d["type"],
                                             "sent_ns": d["sentAtNs"], "received_ns": str(received_ns), "size_bytes": len(payload)})
            if d["type"] == "emergency-brake" and args.brake_on_warning and motion.stopped_at is None and motion.t0_ns is not None:
                motion.stopped_at = (clock() - motion.t0_ns) / 1e9
                event("emergency-brake", {"reason": f"message {d['id']} from {d['from']}"})

    def maybe_warn():
        other = state["others"].get(args.warn)
        if not args.warn or state["warned"] or other is None or motion.t0_ns is None or udp is None:
            return
        x, y, *_ = motion.at(clock())
        ox, oy = position(other)
        d = math.hypot(ox - x, oy - y)
        if d < args.warn_distance:
            state["warned"] = True
            send_v2v(args.warn, "emergency-brake", {"distance_m": d})
            event("brake-sent", {"to": args.warn, "distance_m": round(d, 3)})

    def read():
        try:
            while True:
                frame = json.loads(ws.recv_text())
                if frame.get("op") == "status":
                    log(f"bridge {frame.get('level')}: {frame.get('msg')}")
                    continue
                if frame.get("op") != "publish":
                    continue
                topic, msg = frame["topic"], frame["msg"]
                if topic == sync:
                    t2 = clock()
                    probe = json.loads(msg["data"])
                    bridge.publish_json(sync_reply, {"seq": probe["seq"], "t1_ns": probe["t1_ns"], "t2_ns": str(t2), "t3_ns": str(clock())})
                elif topic == "/sim_control":
                    control = json.loads(msg["data"])
                    if control["cmd"] == "start" and motion.t0_ns is None:
                        # t0 is on the simulator's clock; this car knows only its own, as a real one would.
                        motion.t0_ns = int(control["t0_epoch_ns"]) + offset_ns
                    elif control["cmd"] == "stop":
                        log(f"{me}: stop ({control.get('reason', 'end of run')}); V2V sent {state['sent']}, received {state['received']}")
                        break
                elif topic.endswith("/odom"):
                    state["others"][topic.split("/")[1]] = msg
                    maybe_warn()
        except WebSocketClosed as err:
            log(f"{me}: the simulator went away ({err})")
        state["stop"] = True

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if udp is not None:
        threading.Thread(target=listen_v2v, daemon=True).start()
    bridge.publish(body_odom, odometry(me, clock() - lag_ns, motion.at(clock() - lag_ns)))
    bridge.publish_json("/cavsim/ready", {"vehicle": me})
    log(f"{me}: ready; reporting at {args.rate} Hz from ({args.x}, {args.y}) at {args.speed} m/s")

    period = 1.0 / args.rate
    next_at = time.monotonic()
    while not state["stop"]:
        now = clock()
        started = motion.t0_ns is not None and now >= motion.t0_ns
        if not (started and args.stop_after is not None and (now - motion.t0_ns) / 1e9 > args.stop_after):
            stamp_ns = now - lag_ns
            try:
                bridge.publish(body_odom, odometry(me, stamp_ns, motion.at(stamp_ns)))
            except OSError:
                break
        next_at += period
        time.sleep(max(0.0, next_at - time.monotonic()))
    reader.join(timeout=1)
    ws.close()
    if udp is not None:
        udp.close()
    return 0


if __name__ == "__main__":
    sys.exit(run(parse_args(sys.argv[1:])))
