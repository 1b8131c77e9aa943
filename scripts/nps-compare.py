#!/usr/bin/env python3
"""Side-by-side nodes per second of Gomocup brains.

Usage: nps-compare.py RECORDS.sgf TURN_MS PLY NAME=CMD [NAME=CMD ...]

Every engine gets the same positions (the first PLY moves of the games in RECORDS, sent with
BOARD) and the same INFO timeout_turn; the node count and time each engine reports for its move
(wuzi's `MESSAGE ... nodes N nps N time Tms`, Rapfi's `MESSAGE Speed ... | Node N | Time Tms`)
give its speed. Positions that some engine answered in under a quarter of the turn (a forced
move, a threat-search win) are skipped, until 10 remain. Prints one line per position and the
median nodes per second of each engine."""
import subprocess, sys, re, statistics, time

def positions(sgf_path, count, ply):
    text = open(sgf_path).read()
    out = []
    for chunk in text.split("(;")[1:]:
        size = int(re.search(r"SZ\[(\d+)\]", chunk).group(1))
        moves = re.findall(r";[BW]\[([a-z])([a-z])\]", chunk)
        if len(moves) > ply + 4:
            out.append((size, [(ord(a) - 97, ord(b) - 97) for a, b in moves[:ply]]))
        if len(out) == count:
            break
    return out

def run(cmd, size, moves, turn_ms, extra):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    def send(s):
        p.stdin.write(s + "\n"); p.stdin.flush()
    send(f"START {size}")
    while p.stdout.readline().strip() != "OK":
        pass
    for e in extra:
        send(e)
    send(f"INFO timeout_turn {turn_ms}")
    send("INFO timeout_match 0")
    send("BOARD")
    n = len(moves)
    for i, (x, y) in enumerate(moves):
        # BOARD field 1 = own stone (the side to move), 2 = opponent.
        own = (n - i) % 2 == 0
        send(f"{x},{y},{1 if own else 2}")
    send("DONE")
    msgs = []
    while True:
        line = p.stdout.readline()
        if not line:
            break
        line = line.strip()
        if re.match(r"^-?\d+,-?\d+$", line):
            break
        msgs.append(line)
    send("END")
    p.wait(timeout=5)
    return msgs

def parse(msgs):
    for m in reversed(msgs):
        w = re.search(r"nodes (\d+) nps (\d+) time (\d+)ms", m)
        if w:
            return int(w.group(1)), int(w.group(3))
        r = re.search(r"Node ([\d.]+)([KMG]?) \| Time (\d+)ms", m)
        if r:
            mult = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[r.group(2)]
            return int(float(r.group(1)) * mult), int(r.group(3))
    return None

if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    sgf, turn = sys.argv[1], int(sys.argv[2])
    engines = {}
    for arg in sys.argv[4:]:
        name, _, cmd = arg.partition("=")
        engines[name] = cmd.split()
    res = {k: [] for k in engines}
    ply = int(sys.argv[3])
    used = 0
    for i, (size, moves) in enumerate(positions(sgf, 60, ply)):
        line = [f"pos {i+1:2d} ({size}x{size}, {len(moves)} stones)"]
        got = {}
        for name, cmd in engines.items():
            r = parse(run(cmd, size, moves, turn, []))
            if r:
                got[name] = r
                nodes, ms = r
                line.append(f"{name} {nodes} nodes {ms} ms {nodes * 1000 // max(ms, 1)} nps")
        # Only positions both engines searched for a real while (no forced answer).
        if len(got) == len(engines) and all(ms >= turn // 4 for _, ms in got.values()):
            used += 1
            for name, (nodes, ms) in got.items():
                res[name].append(nodes * 1000 // max(ms, 1))
            print(" | ".join(line), flush=True)
        if used == 10:
            break
    for name, v in res.items():
        if v:
            print(f"{name}: median {statistics.median(v):.0f} nps over {len(v)} positions")
