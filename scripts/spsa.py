#!/usr/bin/env python3
"""SPSA tuning of wuzi's search constants through the arena.

Usage: spsa.py [--engine PATH] [--params NAME,NAME...] [--iterations N] [--pairs P]
               [--state FILE] [--seed S] [--r-end R] -- MATCH-ARGS...

Each iteration perturbs every tuned parameter by +c or -c at random (c shrinks slowly with the
iterations, starting from the parameter's step in `pbrain-wuzi params`), plays P game pairs
between the engine with the plus values and the engine with the minus values
(`pbrain-wuzi match ... option.param_<name>=<value>`, MATCH-ARGS giving the rule, size,
time control, openings and concurrency; the seed of iteration k is S + k, so each iteration
plays other openings when `--order random` is among them), and moves the parameters towards
the side that scored more (simultaneous perturbation stochastic approximation, with the gain
sequences of fishtest: c_k = c / k^0.101, a_k = a / (A + k)^0.602, A = N / 10, the learning
rate at the end R = a_N / c_N^2, default 0.002).

The state (iteration, parameter values) is written to FILE (default spsa-state.json) after
every iteration, and a run with the same FILE continues where it stopped. One line per
iteration goes to stdout: the iteration, the plus side's score, and the current values.
Example: spsa.py --params rfp_margin,futility_margin --iterations 2000 -- --rule 0 --size 15
--turn 50ms --openings openings.txt --order random --concurrency 2"""
import json, os, random, subprocess, sys, tempfile

GAMMA, ALPHA = 0.101, 0.602


def specs(engine):
    """name -> (default, min, max, step) from `pbrain-wuzi params`."""
    out = subprocess.run([engine, "params"], capture_output=True, text=True, check=True).stdout
    table = {}
    for line in out.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, default, lo, hi, step = line.split()
        table[name] = tuple(int(v) for v in (default, lo, hi, step))
    return table


def clamp_round(value, lo, hi):
    return max(lo, min(hi, int(round(value))))


def play(engine, match_args, plus, minus, pairs, seed):
    """The plus engine's score minus the minus engine's, in points (win 1, draw 1/2)."""
    fd, results = tempfile.mkstemp(suffix=".jsonl")
    os.close(fd)
    try:
        cmd = [engine, "match"]
        for name, values in (("plus", plus), ("minus", minus)):
            cmd += ["--engine", f"cmd={engine}", f"name={name}"]
            cmd += [f"option.param_{k}={v}" for k, v in sorted(values.items())]
        cmd += ["--games", str(2 * pairs), "--seed", str(seed), "--results", results]
        cmd += match_args
        run = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            sys.exit(f"spsa: match failed ({run.returncode}): {run.stderr.strip()[-2000:]}")
        score, games = 0.0, 0
        with open(results) as f:
            for line in f:
                game = json.loads(line)
                if game.get("kind") != "game":
                    continue
                games += 1
                winner = game.get("winner")
                if winner in ("black", "white"):
                    score += 1.0 if game[winner] == "plus" else -1.0
        if games == 0:
            sys.exit("spsa: the match played no game")
        return score, games
    finally:
        os.unlink(results)


def main(argv):
    opts = {"--engine": "target/release/pbrain-wuzi", "--params": "", "--iterations": "1000",
            "--pairs": "1", "--state": "spsa-state.json", "--seed": "1", "--r-end": "0.002"}
    if "--" not in argv:
        sys.exit(__doc__)
    split = argv.index("--")
    own, match_args = argv[:split], argv[split + 1:]
    if len(own) % 2:
        sys.exit(__doc__)
    for key, value in zip(own[::2], own[1::2]):
        if key not in opts:
            sys.exit(f"spsa: unknown option {key}\n{__doc__}")
        opts[key] = value
    engine = opts["--engine"]
    table = specs(engine)
    names = [n for n in opts["--params"].split(",") if n] or list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        sys.exit(f"spsa: no such parameter: {', '.join(unknown)} (see `{engine} params`)")
    total, pairs, seed = int(opts["--iterations"]), int(opts["--pairs"]), int(opts["--seed"])
    r_end = float(opts["--r-end"])

    state = {"iteration": 0, "theta": {n: float(table[n][0]) for n in names}}
    if os.path.exists(opts["--state"]):
        with open(opts["--state"]) as f:
            state = json.load(f)
        if sorted(state["theta"]) != sorted(names):
            sys.exit(f"spsa: {opts['--state']} tunes {sorted(state['theta'])}, not {sorted(names)}")
    theta = state["theta"]

    big_a = total / 10
    while state["iteration"] < total:
        k = state["iteration"] + 1
        rng = random.Random(seed * 1_000_003 + k)
        plus, minus, deltas, cks = {}, {}, {}, {}
        for n in names:
            _, lo, hi, step = table[n]
            c = step * total**GAMMA
            cks[n] = c / k**GAMMA
            deltas[n] = rng.choice((-1, 1))
            plus[n] = clamp_round(theta[n] + cks[n] * deltas[n], lo, hi)
            minus[n] = clamp_round(theta[n] - cks[n] * deltas[n], lo, hi)
        result, games = play(engine, match_args, plus, minus, pairs, seed + k)
        for n in names:
            _, lo, hi, step = table[n]
            c_end = step
            a = r_end * c_end**2 * (big_a + total) ** ALPHA
            a_k = a / (big_a + k) ** ALPHA
            theta[n] = max(lo, min(hi, theta[n] + a_k / cks[n] * result * deltas[n]))
        state["iteration"] = k
        tmp = opts["--state"] + ".tmp"
        with open(tmp, "w") as f:
            json.dump(state, f, indent=1, sort_keys=True)
        os.replace(tmp, opts["--state"])
        values = " ".join(f"{n}={theta[n]:.2f}" for n in names)
        print(f"iteration {k}/{total}: plus {result:+g} in {games} games; {values}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
