#!/usr/bin/env python3
"""Labels the positions of game records with a brain's search score, for tests/tune.rs.

usage: scripts/label-positions.py [-j JOBS] [--nodes N] [--from-ply P] [--answer-timeout S]
                                  BRAIN RECORDS.sgf... > LABELS

Every position of every game in the SGF records (as `pbrain-wuzi match --sgf` writes them), from
ply P (default 6) to the one before the last move, is sent to BRAIN (a Gomocup brain's command
line) with `BOARD` under the game's rule and size, searched to `INFO max_node N` (default
20000), and written as one label line for `fit_to_labels`:

    size rule black_result score moves

`score` is the last score the brain reported for the side to move before it answered
(Rapfi's `MESSAGE ... Eval -243 ...` or `Eval +M5`, wuzi's `MESSAGE depth ... ev -243 ...` or
`win in 5`; a mate is +-30000), `black_result` is 1, 0.5 or 0 from the record, `moves` the
stones as `x,y;x,y;...`, black first. A position that occurs twice is labelled once. JOBS
brains (default 2) run side by side, each kept for many positions; positions the brain
answers without a score are left out (and counted on stderr). A brain that has not answered a
position within S seconds (default 10) is killed and started again, and the position is left out
too: Rapfi 0.43 now and then stops answering under a node limit (its CPU idle), more often when
two of them run side by side.
"""

import argparse
import os
import re
import select
import subprocess
import sys
import threading
import time

RULE_INFO = {"freestyle": 0, "standard": 1, "renju": 4, "caro8": 8, "caro": 8, "caro9": 9}
MATE = 30000
MOVE = re.compile(r"^\d+,\d+$")
RAPFI_EVAL = re.compile(r"\bEval ([+-]?)(M?)(\d+)")
WUZI_EV = re.compile(r"\bev (-?\d+)|\bwin in \d+|\bloss in \d+")


def parse_records(text):
    """(size, rule, black_result, [(x, y), ...]) for every game of an SGF collection."""
    games = []
    for chunk in text.split("(;")[1:]:
        def prop(name):
            m = re.search(r"\b" + name + r"\[([^\]]*)\]", chunk)
            return m.group(1) if m else None

        size = prop("SZ")
        if size is None or not size.isdigit():
            continue
        rule = (prop("RU") or "freestyle").lower()
        if rule not in RULE_INFO:
            continue
        result = prop("RE") or ""
        black = 1 if result.startswith("B+") else 0 if result.startswith("W+") else 0.5
        moves = [(ord(m[0]) - 97, ord(m[1]) - 97)
                 for m in re.findall(r";\s*[BW]\[([a-z]{2})\]", chunk)]
        games.append((int(size), rule, black, moves))
    return games


def score_of(line):
    """The score a MESSAGE line reports for the side to move, or None."""
    m = RAPFI_EVAL.search(line)
    if m:
        sign = -1 if m.group(1) == "-" else 1
        return sign * (MATE if m.group(2) else int(m.group(3)))
    m = WUZI_EV.search(line)
    if m:
        if m.group(1) is not None:
            return int(m.group(1))
        return MATE if "win in" in m.group(0) else -MATE
    return None


class Brain:
    """One brain process, started once and given one position after another."""

    def __init__(self, command, nodes, timeout):
        self.command, self.nodes, self.timeout = command, nodes, timeout
        self.start()

    def start(self):
        self.proc = subprocess.Popen(self.command, shell=True, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.pending = b""
        self.game = None

    def send(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def read_line(self, deadline):
        """The next output line, or None at the deadline."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError("the brain closed its output")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode(errors="replace").strip()

    def read_until(self, accept):
        """The accepted line and the last score before it; (None, None) when the brain is late."""
        last = None
        deadline = time.monotonic() + self.timeout
        while True:
            line = self.read_line(deadline)
            if line is None:
                return None, None
            if line.startswith("MESSAGE"):
                s = score_of(line)
                if s is not None:
                    last = s
            elif accept(line):
                return line, last

    def label(self, size, rule, moves):
        """(score or None, whether the brain was late and had to be restarted)."""
        if self.game != (size, rule):
            self.send(f"START {size}\n")
            if self.read_until(lambda l: l == "OK" or l.startswith("ERROR"))[0] is None:
                self.restart()
                return None, True
            self.send(f"INFO rule {RULE_INFO[rule]}\nINFO max_node {self.nodes}\n"
                      "INFO timeout_turn 600000\nINFO timeout_match 0\n")
            self.game = (size, rule)
        to_move = len(moves) % 2
        lines = [f"{x},{y},{1 if i % 2 == to_move else 2}" for i, (x, y) in enumerate(moves)]
        self.send("BOARD\n" + "\n".join(lines) + "\nDONE\n")
        answer, score = self.read_until(lambda l: bool(MOVE.match(l)))
        if answer is None:
            self.restart()
            return None, True
        return score, False

    def restart(self):
        self.proc.kill()
        self.proc.wait()
        self.start()

    def close(self):
        try:
            self.send("END\n")
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--from-ply", type=int, default=6)
    ap.add_argument("--answer-timeout", type=float, default=10.0)
    ap.add_argument("brain")
    ap.add_argument("records", nargs="+")
    args = ap.parse_args()

    positions, seen = [], set()
    for path in args.records:
        with open(path, encoding="utf-8") as f:
            for size, rule, black, moves in parse_records(f.read()):
                for ply in range(args.from_ply, len(moves)):
                    prefix = moves[:ply]
                    key = (size, rule, frozenset(prefix[0::2]), frozenset(prefix[1::2]))
                    if key not in seen:
                        seen.add(key)
                        positions.append((size, rule, black, prefix))
    print(f"{len(positions)} positions", file=sys.stderr)

    lock = threading.Lock()
    done = [0, 0, 0]  # labelled, without a score, late

    def work(chunk):
        brain = Brain(args.brain, args.nodes, args.answer_timeout)
        try:
            for size, rule, black, moves in chunk:
                score, late = brain.label(size, rule, moves)
                with lock:
                    if late:
                        done[2] += 1
                        continue
                    if score is None:
                        done[1] += 1
                        continue
                    done[0] += 1
                    text = ";".join(f"{x},{y}" for x, y in moves)
                    print(f"{size} {rule} {black} {score} {text}", flush=True)
                    if done[0] % 1000 == 0:
                        print(f"{done[0]} labelled", file=sys.stderr)
        finally:
            brain.close()

    jobs = max(1, args.jobs)
    threads = [threading.Thread(target=work, args=(positions[k::jobs],)) for k in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"{done[0]} labelled, {done[1]} without a score, {done[2]} not answered in time",
          file=sys.stderr)


if __name__ == "__main__":
    main()
