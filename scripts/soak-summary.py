#!/usr/bin/env python3
"""Summary of a soak directory (scripts/soak.sh): games per opponent and time control with
wuzi's W-L-D and the reasons, games per rule and size, and every game that did not end by
five, renju foul or draw, sorted into the arena's failure classes, with the last lines of
its game in the batch's --log (kept by soak.sh for such batches).

usage: scripts/soak-summary.py DIR
"""
import collections
import glob
import json
import os
import re
import sys

NORMAL = {"five", "renju foul", "full board", "draw after N stones"}
RULES = {0: "freestyle", 1: "standard", 4: "renju", 8: "caro", 9: "caro (exact five)"}
LOG_LINES = 20


def game_log(log_path, game_number):
    """The last LOG_LINES lines of the game_number-th game (1-based) of a batch's log: games
    are played one at a time, each starting with START sent to wuzi."""
    if not os.path.exists(log_path):
        return ["(no log kept)"]
    with open(log_path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    starts = [i for i, l in enumerate(lines) if re.search(r"\bw\d+:wuzi > START ", l)]
    if len(starts) < game_number:
        return lines[-LOG_LINES:]
    begin = starts[game_number - 1]
    end = starts[game_number] if game_number < len(starts) else len(lines)
    return lines[max(begin, end - LOG_LINES) : end]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    per_control = collections.OrderedDict()
    per_board = collections.Counter()
    failures = []
    retries = 0
    total = 0
    for path in sorted(glob.glob(os.path.join(root, "batch-*.jsonl"))):
        match = None
        with open(path, encoding="utf-8") as f:
            records = [json.loads(l) for l in f if l.strip()]
        for r in records:
            if r.get("kind") == "match":
                match = r
                continue
            if r.get("kind") != "game" or match is None:
                continue
            total += 1
            engines = match["engines"]
            opponent = next((e for e in engines if e != "wuzi"), "?")
            opponent = "wuzi (self)" if opponent == "wuzi-2" else opponent
            control = match["time_controls"][0]
            key = (opponent, control)
            row = per_control.setdefault(
                key, {"games": 0, "w": 0, "l": 0, "d": 0, "reasons": collections.Counter()}
            )
            row["games"] += 1
            # "black" or "white" (null for a draw): the winner's engine name.
            winner = r.get("winner")
            if winner in ("black", "white"):
                winner = r[winner]
            if winner is None:
                row["d"] += 1
            elif winner == "wuzi":
                row["w"] += 1
            else:
                row["l"] += 1
            reason = r.get("reason", "?")
            row["reasons"][reason] += 1
            per_board[(RULES.get(match["rule"], str(match["rule"])), match["size"])] += 1
            for side in r.get("sides", []):
                retries += side.get("start_retries", 0)
            if reason not in NORMAL:
                loser = None
                if winner is not None:
                    loser = r["white"] if winner == r["black"] else r["black"]
                log = path[: -len(".jsonl")] + ".log"
                failures.append(
                    {
                        "reason": reason,
                        "loser": loser,
                        "ours": loser in ("wuzi", "wuzi-2"),
                        "batch": os.path.basename(path),
                        "game": r["game"],
                        "where": "%s %dx%d, %s, %s vs %s, opening %s, move %d"
                        % (
                            RULES.get(match["rule"], match["rule"]),
                            match["size"],
                            match["size"],
                            control,
                            r["black"],
                            r["white"],
                            r.get("opening", "?"),
                            r.get("moves", 0),
                        ),
                        "detail": r.get("detail", ""),
                        "log": game_log(log, r["game"]),
                    }
                )

    print("soak: %d games in %s" % (total, root))
    print()
    print("%-22s %-14s %6s %16s  reasons" % ("opponent", "control", "games", "wuzi W-L-D"))
    for (opponent, control), row in per_control.items():
        reasons = ", ".join("%s %d" % kv for kv in sorted(row["reasons"].items()))
        print(
            "%-22s %-14s %6d %16s  %s"
            % (opponent, control, row["games"], "%d-%d-%d" % (row["w"], row["l"], row["d"]), reasons)
        )
    print()
    print("games per rule and board: " + ", ".join(
        "%s %dx%d %d" % (rule, size, size, n) for (rule, size), n in sorted(per_board.items())
    ))
    print("START retries: %d" % retries)
    print()
    classes = collections.Counter(f["reason"] for f in failures)
    ours = sum(1 for f in failures if f["ours"])
    print(
        "games not ended by five, foul or draw: %d (%d by wuzi)%s"
        % (
            len(failures),
            ours,
            "; " + ", ".join("%s %d" % kv for kv in sorted(classes.items())) if failures else "",
        )
    )
    for reason in sorted(classes):
        print()
        print("== %s" % reason)
        for f in failures:
            if f["reason"] != reason:
                continue
            print(
                "-- %s game %d: %s loses (%s)%s"
                % (f["batch"], f["game"], f["loser"], f["where"],
                   ": " + f["detail"] if f["detail"] else "")
            )
            for line in f["log"]:
                print("   " + line)


if __name__ == "__main__":
    main()
