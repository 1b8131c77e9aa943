#!/usr/bin/env python3
"""Side-by-side speed, depth and choice of Gomocup brains.

Usage: nps-compare.py [--positions N] RECORDS.sgf TURN_MS PLY NAME=CMD [NAME=CMD ...]

Every engine gets the same positions (the first PLY moves of the games in RECORDS, sent with
BOARD) and the same INFO timeout_turn; the node count and time each engine reports for its move
(wuzi's `MESSAGE ... nodes N nps N time Tms`, Rapfi's `MESSAGE Speed ... | Node N | Time Tms`)
give its speed, and the depth it reports (wuzi's `depth D`, Rapfi's `Depth D-SELDEPTH`) the
depth it completed. Positions that some engine answered in under a quarter of the turn (a
forced move, a threat-search win) are skipped, until N (default 10) remain. Prints one line
per position (nodes, time, nodes per second, depth and the move of each engine), then each
engine's medians and how often its move was the first engine's."""
import subprocess, sys, re, statistics, time

def positions(sgf_path, count, ply):
    text = open(sgf_path).read()
    out = []
    for chunk in text.split("(;")[1:]:
        size = int(re.search(r"SZ\[(\d+)\]", chunk).group(1))
        moves = re.findall(r";[BW]\[([a-z])([a-z])\]", chunk)
        pos = (size, [(ord(a) - 97, ord(b) - 97) for a, b in moves[:ply]])
        # A game pair starts from one opening: keep each position once.
        if len(moves) > ply + 4 and pos not in out:
            out.append(pos)
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
    move = None
    while True:
        line = p.stdout.readline()
        if not line:
            break
        line = line.strip()
        if re.match(r"^-?\d+,-?\d+$", line):
            move = line
            break
        msgs.append(line)
    send("END")
    p.wait(timeout=5)
    return msgs, move

def parse(msgs):
    """(nodes, milliseconds, depth) from an engine's last search report, or None."""
    for m in reversed(msgs):
        w = re.search(r"depth (\d+) .*nodes (\d+) nps (\d+) time (\d+)ms", m)
        if w:
            return int(w.group(2)), int(w.group(4)), int(w.group(1))
        r = re.search(r"Depth (\d+)-\d+ .*Node ([\d.]+)([KMG]?) \| Time (\d+)ms", m)
        if r:
            mult = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[r.group(3)]
            return int(float(r.group(2)) * mult), int(r.group(4)), int(r.group(1))
    return None

if __name__ == "__main__":
    args = sys.argv[1:]
    wanted = 10
    if args[:1] == ["--positions"] and len(args) > 1:
        wanted = int(args[1])
        args = args[2:]
    if len(args) < 4:
        sys.exit(__doc__)
    sgf, turn, ply = args[0], int(args[1]), int(args[2])
    engines = {}
    for arg in args[3:]:
        name, _, cmd = arg.partition("=")
        engines[name] = cmd.split()
    first = next(iter(engines))
    nps = {k: [] for k in engines}
    depth = {k: [] for k in engines}
    same = {k: 0 for k in engines}
    used = 0
    for i, (size, moves) in enumerate(positions(sgf, 6 * wanted, ply)):
        line = [f"pos {i+1:2d} ({size}x{size}, {len(moves)} stones)"]
        got = {}
        for name, cmd in engines.items():
            msgs, move = run(cmd, size, moves, turn, [])
            r = parse(msgs)
            if r and move:
                got[name] = (*r, move)
                nodes, ms, d = r
                line.append(
                    f"{name} {nodes} nodes {ms} ms {nodes * 1000 // max(ms, 1)} nps depth {d} move {move}"
                )
        # Only positions both engines searched for a real while (no forced answer).
        if len(got) == len(engines) and all(g[1] >= turn // 4 for g in got.values()):
            used += 1
            for name, (nodes, ms, d, move) in got.items():
                nps[name].append(nodes * 1000 // max(ms, 1))
                depth[name].append(d)
                same[name] += move == got[first][3]
            print(" | ".join(line), flush=True)
        if used == wanted:
            break
    for name in engines:
        if nps[name]:
            print(
                f"{name}: median {statistics.median(nps[name]):.0f} nps, median depth "
                f"{statistics.median(depth[name])} (range {min(depth[name])}-{max(depth[name])}) "
                f"over {len(nps[name])} positions; same move as {first} in {same[name]}"
            )
