#!/usr/bin/env python3
"""Hostile and broken clients for deploy/cluster-test.sh, at the socket level.

Each subcommand talks to the nginx front on 127.0.0.1:PORT, prints one line of
`key=value` figures, and exits 0; the shell script decides PASS or FAIL from
the figures. Every loop here is bounded in bytes, connections and seconds.

    endless PORT         one header line that never ends, sent as fast as nginx takes it
    conncap PORT N       N requests held in flight at once (each waits for a body)
    idle PORT N SECONDS  N connections that send nothing, held SECONDS
    silent PORT          one connection that sends nothing: how long until nginx drops it
    trickle PORT         one header sent a byte every 0.2 s: how long until nginx drops it
    nonascii PORT KEY    raw UTF-8 bytes in the target and in headers: the status of each
    hostile PORT KEY     malformed framing (docs/http-layer.md): each case's answer
    pipeline PORT        4 clients pipeline 20 requests each and never read; a normal GET meanwhile
    json FILE CODE STATUS  check that FILE is the API's error body with this code and status
"""

import json
import re
import select
import socket
import sys
import time

HOST = "127.0.0.1"
REPEAT = 5


def connect(port):
    return socket.create_connection((HOST, port), timeout=5)


def read_all(sock, limit=1 << 16, seconds=5.0):
    """What the peer sends until it closes (or limit bytes, or seconds pass)."""
    sock.settimeout(seconds)
    data = b""
    deadline = time.monotonic() + seconds
    try:
        while len(data) < limit and time.monotonic() < deadline:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    return data


def status_and_body(response):
    head, _, body = response.partition(b"\r\n\r\n")
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split(" ")
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    return status, body


def error_code(body):
    try:
        return json.loads(body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return "-"


def endless(port):
    """A header line that never ends: up to 64 MiB or 20 s, sent as fast as nginx reads it.

    A small send buffer keeps the count honest: the kernel cannot take megabytes
    on nginx's behalf, so `sent_bytes` is about what nginx read before it answered."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16384)
    sock.settimeout(5)
    sock.connect((HOST, port))
    sock.sendall(b"GET /v1/areas HTTP/1.1\r\nHost: front\r\nX-Endless: ")
    chunk = b"a" * 1024
    sent = 0
    started = time.monotonic()
    ended = "budget"
    sock.settimeout(1)
    response = b""
    while sent < 64 * 2**20 and time.monotonic() - started < 20:
        readable, _, _ = select.select([sock], [], [], 0.001)
        if readable:
            ended = "answered"
            break
        try:
            sock.sendall(chunk)
        except socket.timeout:
            ended = "stalled"  # nginx stopped reading
            break
        except (BrokenPipeError, ConnectionResetError):
            ended = "closed"
            break
        sent += len(chunk)
    response = read_all(sock)
    status, body = status_and_body(response)
    sock.close()
    print(
        f"ended={ended} sent_bytes={sent} seconds={time.monotonic() - started:.3f} "
        f"status={status} code={error_code(body)}"
    )


def conncap(port, n):
    """n requests whose header is complete but whose body never comes."""
    socks = []
    for _ in range(n):
        sock = connect(port)
        sock.sendall(b"GET /v1/areas HTTP/1.1\r\nHost: front\r\nContent-Length: 1000\r\n\r\n")
        socks.append(sock)
    time.sleep(0.5)
    held = refused = other = 0
    codes = set()
    for sock in socks:
        sock.setblocking(False)
        try:
            data = sock.recv(4096)
        except BlockingIOError:
            held += 1
            continue
        except ConnectionResetError:
            other += 1
            continue
        status, body = status_and_body(data)
        if status == 429:
            refused += 1
            codes.add(error_code(body))
        else:
            other += 1
    for sock in socks:
        sock.close()
    print(f"opened={n} held={held} refused_429={refused} other={other} codes={','.join(sorted(codes)) or '-'}")


def idle(port, n, seconds):
    socks = [connect(port) for _ in range(n)]
    time.sleep(seconds)
    alive = 0
    for sock in socks:
        sock.setblocking(False)
        try:
            if sock.recv(1) == b"":
                continue
        except BlockingIOError:
            pass
        except ConnectionResetError:
            continue
        alive += 1
    for sock in socks:
        sock.close()
    print(f"opened={n} still_open={alive}")


def wait_closed(sock, seconds):
    """Seconds until the peer closes, or None within the bound."""
    started = time.monotonic()
    sock.settimeout(0.2)
    while time.monotonic() - started < seconds:
        try:
            if sock.recv(4096) == b"":
                return time.monotonic() - started
        except socket.timeout:
            continue
        except ConnectionResetError:
            return time.monotonic() - started
    return None


def silent(port):
    sock = connect(port)
    closed_after = wait_closed(sock, 30)
    sock.close()
    print(f"closed_after={'%.1f' % closed_after if closed_after is not None else 'never'}")


def trickle(port):
    """A header that keeps coming, one byte at a time, never finished (30 s at most)."""
    sock = connect(port)
    sock.sendall(b"GET /v1/areas HTTP/1.1\r\nHost: front\r\nX-Slow: ")
    started = time.monotonic()
    sent = 0
    closed_after = None
    sock.settimeout(0.2)
    while time.monotonic() - started < 30:
        try:
            if sock.recv(4096) == b"":
                closed_after = time.monotonic() - started
                break
        except socket.timeout:
            pass
        except ConnectionResetError:
            closed_after = time.monotonic() - started
            break
        try:
            sock.send(b"z")
            sent += 1
        except (BrokenPipeError, ConnectionResetError):
            closed_after = time.monotonic() - started
            break
    sock.close()
    shown = "%.1f" % closed_after if closed_after is not None else "never"
    print(f"closed_after={shown} bytes_sent={sent}")


def nonascii(port, key):
    """Bytes outside ASCII, which the front refuses or drops before any replica."""
    auth = b"Authorization: Bearer " + key.encode() + b"\r\n"
    cases = [
        ("target", b"GET /v1/areas/search?q=caf\xc3\xa9 HTTP/1.1\r\nHost: front\r\n" + auth),
        ("header", b"GET /v1/areas?limit=1 HTTP/1.1\r\nHost: front\r\n" + auth + b"X-Name: caf\xc3\xa9\r\n"),
        ("authorization", b"GET /v1/areas?limit=1 HTTP/1.1\r\nHost: front\r\nAuthorization: Bearer caf\xc3\xa9\r\n"),
        ("if_none_match", b"GET /v1/areas?limit=1 HTTP/1.1\r\nHost: front\r\n" + auth + b'If-None-Match: "\xc3\xa9"\r\n'),
        ("request_id", b"GET /v1/areas?limit=1 HTTP/1.1\r\nHost: front\r\n" + auth + b"X-Request-Id: \xc3\xa9\r\n"),
    ]
    out = []
    for name, head in cases:
        sock = connect(port)
        sock.sendall(head + b"Connection: close\r\n\r\n")
        status, body = status_and_body(read_all(sock))
        sock.close()
        out.append(f"{name}={status}/{error_code(body)}")
    print(" ".join(out))


def answer_of(port, raw, seconds=3.0):
    """Whether the answer to raw bytes is acceptable, and `status/code` (or
    `closed`, or `0.9` for a bare HTTP/0.9 body). Acceptable: closed without
    an answer, or one answer with a JSON body, in the error shape if an error,
    and no area in it (a request smuggled in the body ran)."""
    sock = connect(port)
    sock.sendall(raw)
    data = read_all(sock, seconds=seconds)
    sock.close()
    status, body = status_and_body(data)
    if not status:
        body = data  # HTTP/0.9: nginx sends the body alone
    try:
        json.loads(body)
        is_json = True
    except ValueError:
        is_json = False
    code = error_code(body)
    good = not data or (
        is_json and len(re.findall(rb"HTTP/1\.1 \d{3} ", data)) <= 1 and b"truth_score" not in data
        and (status < 400 or code != "-"))
    seen = f"{status}/{code}" if status else ("closed" if not data else "0.9")
    return good, seen


def hostile(port, key):
    """Each case `REPEAT` times (a replica leaking a thread per case would show
    that many); prints whether all were acceptable, and the last answer of each."""
    smuggled = f"GET /v1/areas/cape-town HTTP/1.1\r\nHost: f\r\nAuthorization: Bearer {key}\r\n\r\n"
    cases = [
        ("http2", b"GET /healthz HTTP/2.0\r\nHost: f\r\n\r\n"),
        ("http3", b"GET /healthz HTTP/3.0\r\nHost: f\r\n\r\n"),
        ("chunked_get", ("GET /healthz HTTP/1.1\r\nHost: f\r\nTransfer-Encoding: chunked\r\n"
                         "Connection: close\r\n\r\n" + smuggled).encode()),
        ("header_byte", b"GET /healthz HTTP/1.1\r\nHost: f\r\nX-\xff: 1\r\nConnection: close\r\n\r\n"),
        ("no_version", b"GET /healthz\r\nHost: f\r\n\r\n"),
        ("bad_version", b"GET /healthz HTTP/1.7\r\nHost: f\r\n\r\n"),
        ("no_colon", b"GET /healthz HTTP/1.1\r\nHost: f\r\nNoColon\r\n\r\n"),
        ("expect", b"GET /healthz HTTP/1.1\r\nHost: f\r\nExpect: x\r\nConnection: close\r\n\r\n"),
        ("junk", b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n"),
    ]
    out, ok = [], True
    for name, raw in cases:
        for _ in range(REPEAT):
            good, seen = answer_of(port, raw)
            ok = ok and good
        out.append(f"{name}={seen}" + ("" if good else "(bad)"))
    print(("all=ok " if ok else "all=bad ") + " ".join(out))


def pipeline(port):
    """4 clients pipeline 20 requests for the largest answer, never reading
    (small receive buffers); meanwhile 5 normal GETs: the slowest, in seconds."""
    one = b"GET /v1/openapi.json HTTP/1.1\r\nHost: f\r\n\r\n"
    socks = []
    for _ in range(4):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(5)
        sock.connect((HOST, port))
        sock.sendall(one * 20)
        socks.append(sock)
    time.sleep(0.5)
    slowest, statuses = 0.0, []
    for _ in range(5):
        started = time.monotonic()
        sock = connect(port)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: f\r\nConnection: close\r\n\r\n")
        status, _ = status_and_body(read_all(sock, seconds=40))
        sock.close()
        statuses.append(status)
        slowest = max(slowest, time.monotonic() - started)
    for sock in socks:
        sock.close()
    print(f"slowest={slowest:.2f} statuses={','.join(map(str, sorted(set(statuses))))}")


def check_json(path, code, status):
    try:
        with open(path, "rb") as f:
            err = json.load(f)["error"]
        ok = err["code"] == code and err["status"] == int(status) and isinstance(err["message"], str)
    except (OSError, ValueError, KeyError, TypeError):
        ok = False
    print("json=ok" if ok else "json=bad")


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "endless":
        endless(int(args[0]))
    elif cmd == "conncap":
        conncap(int(args[0]), int(args[1]))
    elif cmd == "idle":
        idle(int(args[0]), int(args[1]), float(args[2]))
    elif cmd == "silent":
        silent(int(args[0]))
    elif cmd == "trickle":
        trickle(int(args[0]))
    elif cmd == "nonascii":
        nonascii(int(args[0]), args[1])
    elif cmd == "hostile":
        hostile(int(args[0]), args[1])
    elif cmd == "pipeline":
        pipeline(int(args[0]))
    elif cmd == "json":
        check_json(args[0], args[1], args[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
