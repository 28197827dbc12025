#!/usr/bin/env python3
"""Records what Prometheus would: scrapes the bridge's and the topology's /metrics every few
seconds while sending device traffic to the bridge, and writes the samples as JSON lines.

Used to draw docs/dashboard.png from real metrics of a local run (see render.py):
  ./turnstile up --port 18080            # prints the topology's probe port
  python3 docs/dashboard/record.py --bridge http://127.0.0.1:18080 \
      --topology http://127.0.0.1:<port> --seconds 240 --out /tmp/samples.jsonl

Traffic (HTTP only): charging sessions (Started then Finished) at a rate that rises and falls,
some resent at once (racing copies reach Kafka and the topology drops them) or later (the bridge
answers 200 duplicate), some Finished dated before their Started (rejected by the topology), and
some malformed requests (refused by the bridge). Only the standard library is used.
"""
import argparse, json, random, re, threading, time, urllib.request

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def scrape(url, job, out, now):
    text = urllib.request.urlopen(url + "/metrics", timeout=5).read().decode()
    for line in text.splitlines():
        m = LINE.match(line)
        if not m or line.startswith("#"):
            continue
        labels = dict(LABEL.findall(m.group(3) or ""))
        labels["job"] = job
        labels["pod"] = job + "-0"
        try:
            value = float(m.group(4))
        except ValueError:
            continue
        out.write(json.dumps({"t": now, "name": m.group(1), "labels": labels, "value": value}) + "\n")


def post(base, device, body, content_type="application/json"):
    request = urllib.request.Request(
        f"{base}/api/v1/devices/{device}/events", data=body.encode(), method="POST",
        headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


def event(event_id, kind, at, ref):
    return json.dumps({"eventId": event_id, "type": kind, "occurredAt": at, "sessionRef": ref})


def traffic(base, seconds, stop, sender):
    rnd = random.Random(20141118 + sender)
    start = time.time()
    n = 0
    while not stop.is_set() and time.time() - start < seconds:
        elapsed = time.time() - start
        # Sessions per second: a slow start, a peak in the middle, a quieter end.
        rate = 4 + 16 * max(0.0, 1 - abs(elapsed - seconds / 2) / (seconds / 2))
        n += 1
        device, ref = f"station-{rnd.randrange(40)}", f"r-{sender}-{n}"
        started, finished = f"s-{sender}-{n}", f"f-{sender}-{n}"
        begin = f"2024-05-01T{8 + n % 10:02d}:00:00Z"
        end = f"2024-05-01T{8 + n % 10:02d}:45:00Z"
        if rnd.random() < 0.05:
            # The exit precedes the entry: the topology rejects the Finished.
            end = f"2024-05-01T{7 + n % 10:02d}:00:00Z"
        post(base, device, event(started, "Started", begin, ref))
        if rnd.random() < 0.15:
            racing = [threading.Thread(target=post, args=(base, device, event(finished, "Finished", end, ref)))
                      for _ in range(2)]
            [t.start() for t in racing]
            [t.join() for t in racing]
        else:
            post(base, device, event(finished, "Finished", end, ref))
        if rnd.random() < 0.10:
            post(base, device, event(started, "Started", begin, ref))
        if rnd.random() < 0.03:
            post(base, device, "{not json")
        if rnd.random() < 0.02:
            post(base, device, "eventId=1", "text/plain")
        time.sleep(1 / rate)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bridge", required=True)
    parser.add_argument("--topology", required=True)
    parser.add_argument("--seconds", type=int, default=240)
    parser.add_argument("--interval", type=float, default=5)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    stop = threading.Event()
    senders = [threading.Thread(target=traffic, args=(args.bridge, args.seconds, stop, i)) for i in range(4)]
    with open(args.out, "w") as out:
        first = time.time()
        [t.start() for t in senders]
        # Keep scraping a little after the traffic stops, so the rates fall back to zero.
        while time.time() - first < args.seconds + 60:
            now = time.time()
            scrape(args.bridge, "turnstile-bridge", out, now)
            scrape(args.topology, "turnstile-topology", out, now)
            out.flush()
            time.sleep(max(0, args.interval - (time.time() - now)))
        stop.set()
        [t.join() for t in senders]


if __name__ == "__main__":
    main()
