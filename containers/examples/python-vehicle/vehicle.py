#!/usr/bin/env python3
"""A cavsim vehicle in Python 3 with the standard library only.

It follows docs/control-protocol.md (cavsim.control/1) as any third-party client would: a small
WebSocket client over `socket`, rosbridge v2 JSON operations on top, and a simple controller:
hold a target speed, and brake to 0 while an observed car is closer than a stop distance. With
--ttc it is the thesis's car0: when the time to collision with an observed car falls below the
threshold it brakes for good and warns another car over V2V; any car brakes for good when such a
warning reaches it. The same code runs in both runtimes: time is read from /clock (simulation
time), V2V goes through /carN/v2v/send and /carN/v2v/received.

    python3 vehicle.py [--speed M_S] [--stop-distance M] [--observe CAR ...] [--ttc S --warn CAR]
                       [--url ws://HOST:PORT --vehicle CAR]

Environment (set by cavsim in every vehicle container): CAVSIM_VEHICLE, CAVSIM_SIM_URL,
CAVSIM_RUN_DIR, CAVSIM_CONNECT_TIMEOUT_MS (optional). On an external device (a Raspberry Pi, a
car's computer; docs/external-devices.md) nobody sets them: give --url and --vehicle instead.
"""

import argparse
import base64
import hashlib
import json
import math
import os
import socket
import struct
import sys
import time
from urllib.parse import urlsplit

ODOMETRY = "nav_msgs/msg/Odometry"
DRIVE = "ackermann_msgs/msg/AckermannDriveStamped"
STRING = "std_msgs/msg/String"
CLOCK = "rosgraph_msgs/msg/Clock"
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def log(line):
    print(f"[python-vehicle] {line}", file=sys.stderr, flush=True)


class WebSocketClosed(Exception):
    pass


class WebSocket:
    """RFC 6455 client, text frames only: what rosbridge needs and nothing more."""

    def __init__(self, url, timeout_s=5.0):
        parts = urlsplit(url)
        if parts.scheme != "ws":
            raise ValueError(f"only ws:// URLs are supported, not {url}")
        host, port = parts.hostname, parts.port or 80
        self.sock = socket.create_connection((host, port), timeout=timeout_s)
        # Drive commands are small and latency matters more than packet count.
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        head = self._read_until(b"\r\n\r\n").decode("latin-1")
        status = head.split("\r\n", 1)[0]
        if " 101 " not in status + " ":
            raise ConnectionError(f"WebSocket handshake refused: {status}")
        expected = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        headers = dict(line.split(":", 1) for line in head.split("\r\n")[1:] if ":" in line)
        accept = {k.strip().lower(): v.strip() for k, v in headers.items()}.get("sec-websocket-accept")
        if accept != expected:
            raise ConnectionError("WebSocket handshake: bad Sec-WebSocket-Accept")
        self.sock.settimeout(None)

    def _read_until(self, marker):
        while marker not in self.buffer:
            self._fill()
        head, self.buffer = self.buffer.split(marker, 1)
        return head

    def _read_exactly(self, n):
        while len(self.buffer) < n:
            self._fill()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise WebSocketClosed("the server closed the TCP connection")
        self.buffer += chunk

    def _send_frame(self, opcode, payload):
        # Client frames must be masked (RFC 6455 section 5.3).
        header = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send_text(self, text):
        self._send_frame(0x1, text.encode())

    def recv_text(self):
        """The next text message; raises WebSocketClosed when the server closes."""
        message = b""
        while True:
            b0, b1 = self._read_exactly(2)
            fin, opcode, n = b0 & 0x80, b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read_exactly(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read_exactly(8))[0]
            mask = self._read_exactly(4) if b1 & 0x80 else None
            payload = self._read_exactly(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x8:
                raise WebSocketClosed("the server sent a close frame")
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            message += payload
            if fin:
                return message.decode()

    def close(self):
        try:
            self._send_frame(0x8, struct.pack("!H", 1000))
        except OSError:
            pass
        self.sock.close()


def connect_with_retry(url, timeout_s):
    """The simulator may not listen yet when this container starts: retry until the deadline."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return WebSocket(url)
        except (OSError, ConnectionError) as err:
            if time.monotonic() > deadline:
                raise ConnectionError(f"no simulator at {url} within {timeout_s:.0f} s: {err}")
            time.sleep(0.2)


class Rosbridge:
    """The rosbridge v2 operations cavsim supports, as JSON text frames."""

    def __init__(self, ws):
        self.ws = ws

    def op(self, **fields):
        self.ws.send_text(json.dumps(fields, separators=(",", ":")))

    def advertise(self, topic, msg_type):
        self.op(op="advertise", topic=topic, type=msg_type)

    def subscribe(self, topic, msg_type):
        self.op(op="subscribe", topic=topic, type=msg_type)

    def publish(self, topic, msg):
        self.op(op="publish", topic=topic, msg=msg)

    def publish_json(self, topic, data):
        self.publish(topic, {"data": json.dumps(data, separators=(",", ":"))})


def position(odom):
    p = odom["pose"]["pose"]["position"]
    return p["x"], p["y"]


def target_speed(own, others, cruise, stop_distance):
    """Cruise speed, or 0 while any observed car is closer than stop_distance (centre to centre).
    Returns the speed and the closest car within the distance (or None)."""
    x, y = position(own)
    closest = None
    for name, odom in others.items():
        ox, oy = position(odom)
        d = math.hypot(ox - x, oy - y)
        if d < stop_distance and (closest is None or d < closest[1]):
            closest = (name, d)
    return (0.0, closest) if closest else (cruise, None)


def time_to_collision(a, b):
    """The thesis's Eq. 3.7: distance over the closing speed along the line between the centres;
    None while the pair is not closing."""
    (ax, ay), (bx, by) = position(a), position(b)
    dx, dy = bx - ax, by - ay
    d = math.hypot(dx, dy)
    if d == 0:
        return None
    closing = 0.0
    for odom, sign in ((a, 1), (b, -1)):
        q = odom["pose"]["pose"]["orientation"]
        yaw = 2 * math.atan2(q["z"], q["w"])
        v = odom["twist"]["twist"]["linear"]["x"]
        closing += sign * v * (math.cos(yaw) * dx + math.sin(yaw) * dy) / d
    return d / closing if closing > 1e-9 else None


def stamp_seconds(stamp):
    return stamp["sec"] + stamp["nanosec"] / 1e9


def observed_from_scenario(run_dir, vehicle):
    """The scenario's `observes` list for this car, from the run folder (empty when unreadable)."""
    try:
        with open(os.path.join(run_dir, "scenario.resolved.json")) as f:
            scenario = json.load(f)
        return next(v.get("observes", []) for v in scenario["vehicles"] if v["name"] == vehicle)
    except (OSError, ValueError, KeyError, StopIteration) as err:
        log(f"no observes list from the scenario ({err}); watching no other car")
        return []


def parse_args(argv):
    p = argparse.ArgumentParser(description="cavsim example vehicle: hold a speed, stop short of observed cars")
    p.add_argument("--speed", type=float, default=float(os.environ.get("TARGET_SPEED", "5")), help="cruise speed [m/s]")
    p.add_argument("--stop-distance", type=float, default=float(os.environ.get("STOP_DISTANCE", "8")), help="brake to 0 when an observed car is closer [m]")
    p.add_argument("--observe", nargs="*", help="cars whose odometry to watch (default: the scenario's observes list)")
    p.add_argument("--ttc", type=float, default=0, help="brake for good and warn --warn over V2V when the TTC to an observed car falls below this [s] (0: off)")
    p.add_argument("--warn", default="*", help="the car to warn (a name, or * for every other car)")
    p.add_argument("--url", default=os.environ.get("CAVSIM_SIM_URL"), help="the run's control link, ws://HOST:PORT (default: $CAVSIM_SIM_URL)")
    p.add_argument("--vehicle", default=os.environ.get("CAVSIM_VEHICLE"), help="the car this code drives (default: $CAVSIM_VEHICLE)")
    return p.parse_args(argv)


def run(args):
    me, url = args.vehicle, args.url
    if not me or not url:
        log("give --url and --vehicle (or set CAVSIM_SIM_URL and CAVSIM_VEHICLE)")
        return 2
    timeout_s = int(os.environ.get("CAVSIM_CONNECT_TIMEOUT_MS", "30000")) / 1000
    observe = args.observe if args.observe is not None else observed_from_scenario(os.environ.get("CAVSIM_RUN_DIR", "."), me)
    log(f"{me}: cruise {args.speed} m/s, stop within {args.stop_distance} m of {observe or 'nobody'}; connecting to {url}")

    ws = connect_with_retry(url, timeout_s)
    bridge = Rosbridge(ws)
    drive_topic, own_odom = f"/{me}/drive", f"/{me}/odom"
    v2v_send, v2v_received = f"/{me}/v2v/send", f"/{me}/v2v/received"
    bridge.advertise(drive_topic, DRIVE)
    bridge.advertise("/cavsim/ready", STRING)
    bridge.advertise("/cavsim/events", STRING)
    bridge.advertise(v2v_send, STRING)
    bridge.subscribe("/sim_control", STRING)
    bridge.subscribe("/clock", CLOCK)
    bridge.subscribe(v2v_received, STRING)
    bridge.subscribe(own_odom, ODOMETRY)
    for car in observe:
        bridge.subscribe(f"/{car}/odom", ODOMETRY)
    bridge.publish_json("/cavsim/ready", {"vehicle": me})

    s = {"t0_ns": None, "sim_clock": False, "now_s": 0.0, "own": None, "answered": -1,
         "braking_for": None, "braked": None, "commands": 0}  # braked: why this car braked for good
    others = {}

    def event(name, detail=None):
        t_s = s["now_s"] if s["sim_clock"] else (time.time_ns() - s["t0_ns"]) / 1e9
        data = {"vehicle": me, "t_s": t_s, "event": name}
        if detail:
            data["detail"] = detail
        bridge.publish_json("/cavsim/events", data)

    def stamp_ns(odom):
        stamp = odom["header"]["stamp"]
        return stamp["sec"] * 1_000_000_000 + stamp["nanosec"]

    def answer_when_in_step():
        """Answers each own odometry once the observed cars' odometry of the same step is here too
        (the simulator publishes the cars one after another), like a ROS exact-time synchroniser."""
        own = s["own"]
        # Before start (and, on the wall clock, before t0) the odometry is the idle pose: nothing to answer.
        if own is None or s["t0_ns"] is None or (not s["sim_clock"] and time.time_ns() < s["t0_ns"]):
            return
        step = stamp_ns(own)
        if step <= s["answered"] or any(c not in others or stamp_ns(others[c]) < step for c in observe):
            return
        s["answered"] = step
        if not s["sim_clock"]:
            s["now_s"] = (time.time_ns() - s["t0_ns"]) / 1e9
        if args.ttc > 0 and s["braked"] is None:
            for name, other in others.items():
                ttc = time_to_collision(own, other)
                if ttc is not None and ttc < args.ttc:
                    # Warn first: what a vehicle publishes before its drive command belongs to this tick.
                    bridge.publish_json(v2v_send, {"to": args.warn, "type": "emergency-brake", "body": {"ttc_s": ttc, "about": name}})
                    event("brake-sent", {"ttc_s": round(ttc, 6), "about": name, "to": args.warn})
                    s["braked"] = f"TTC {ttc:.3f} s to {name}"
                    event("emergency-brake", {"reason": s["braked"]})
                    break
        speed, close = target_speed(own, others, args.speed, args.stop_distance)
        about = close[0] if close else None
        if about != s["braking_for"]:
            s["braking_for"] = about
            event("proximity-stop" if about else "proximity-clear",
                  {"about": close[0], "distance_m": round(close[1], 3)} if close else None)
        if s["braked"] is not None:
            speed = 0.0
        # The stamp says which odometry step this command answers: the simulator measures the
        # control loop's lag from it, and in virtual time it waits for exactly this answer.
        bridge.publish(drive_topic, {
            "header": {"stamp": own["header"]["stamp"], "frame_id": f"{me}/base_link"},
            "drive": {"speed": speed, "steering_angle": 0.0},
        })
        s["commands"] += 1

    try:
        while True:
            frame = json.loads(ws.recv_text())
            if frame.get("op") == "status":
                log(f"bridge {frame.get('level')}: {frame.get('msg')}")
                continue
            if frame.get("op") != "publish":
                continue
            topic, msg = frame["topic"], frame["msg"]
            if topic == "/sim_control":
                control = json.loads(msg["data"])
                if control["cmd"] == "start" and s["t0_ns"] is None:
                    s["t0_ns"] = int(control["t0_epoch_ns"])
                    s["sim_clock"] = control.get("clock") == "sim"
                elif control["cmd"] == "stop":
                    log(f"{me}: stop ({control.get('reason', 'end of run')}) after {s['commands']} drive commands")
                    return 0
            elif topic == "/clock":
                s["now_s"] = stamp_seconds(msg["clock"])
            elif topic == v2v_received:
                message = json.loads(msg["data"])
                if message["type"] == "emergency-brake" and s["braked"] is None:
                    s["braked"] = f"message {message['id']} from {message['from']}"
                    event("brake-received", {"from": message["from"], "id": message["id"]})
                    event("emergency-brake", {"reason": s["braked"]})
            elif topic == own_odom:
                s["own"] = msg
                answer_when_in_step()
            elif topic.endswith("/odom"):
                others[topic.split("/")[1]] = msg
                answer_when_in_step()
    except WebSocketClosed as err:
        log(f"{me}: the simulator went away before it said stop ({err})")
        return 1
    finally:
        ws.close()


if __name__ == "__main__":
    sys.exit(run(parse_args(sys.argv[1:])))
