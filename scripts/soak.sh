#!/usr/bin/env bash
# Soak test: wuzi against itself and every brain named on the command line, at short time
# controls, under the four rules, on several board sizes, one game pair (one opening, both
# colours) per `pbrain-wuzi match` run, results accumulated in a directory so that a soak can
# be stopped and resumed over many sessions until it reaches its number of games. Every game
# that did not end by five, renju foul or draw is listed by the arena's failure class (time
# forfeit, crash, illegal move, occupied square, unparsable answer, no answer) with the last
# `--log` lines of its game.
#
# usage: scripts/soak.sh [-d DIR] [-n GAMES] [-t SECONDS] [-k K/N] [-b FIRST] [-s] [BRAIN...]
#   -d DIR      results directory (default soak-results); batch-NNNNNN.jsonl per run, the
#               log kept (batch-NNNNNN.log) only when a game failed
#   -n GAMES    stop when DIR holds this many games (default 10000)
#   -t SECONDS  stop after this long (default: no limit); the batch under way finishes
#   -k K/N      play only the batches whose number is K-1 modulo N, so that N soaks started
#               with K = 1..N share one DIR without playing a batch twice
#   -b FIRST    number the batches from FIRST (default 0): a soak in a new DIR that should
#               not replay the openings and seeds of an earlier one starts past its batches
#   -s          print the summary of DIR and exit
#   BRAIN       another brain's program (pbrain-*): wuzi plays it too
# environment: WUZI (default target/release/pbrain-wuzi), OPENINGS (default
#   /work/shared/data/openings/Piskvork_openings.txt, offsets that fit 7x7), NICE (default 10).
#
# The schedule cycles over opponent (fastest), size, rule and control (slowest); batch k plays
# configuration k (mod the number of configurations) with the opening order shuffled by seed
# k, so a resumed soak goes on where it stopped. A brain that answers START or INFO rule with
# ERROR for a size or a rule (Rapfi has no caro and no 32x32) is left out of the
# configurations with that size or rule, and the soak lists them when it starts. The arena
# has no rectangular boards: rectangles are covered by tests/fuzz.rs (RECTSTART).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=soak-results
target=10000
seconds=0
summary_only=0
shard=1/1
first=0
while getopts "d:n:t:k:b:sh" opt; do
  case $opt in
    d) dir=$OPTARG ;;
    n) target=$OPTARG ;;
    t) seconds=$OPTARG ;;
    k) shard=$OPTARG ;;
    b) first=$OPTARG ;;
    s) summary_only=1 ;;
    h) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
brains=("$@")
if [[ ! $shard =~ ^([0-9]+)/([0-9]+)$ ]] || ((BASH_REMATCH[1] < 1 || BASH_REMATCH[1] > BASH_REMATCH[2])); then
  echo "soak: -k wants K/N with 1 <= K <= N, not $shard" >&2
  exit 2
fi
shard_k=$((BASH_REMATCH[1] - 1))
shard_n=${BASH_REMATCH[2]}
[[ $first =~ ^[0-9]+$ ]] || { echo "soak: -b wants a batch number, not $first" >&2; exit 2; }

wuzi=${WUZI:-target/release/pbrain-wuzi}
openings=${OPENINGS:-/work/shared/data/openings/Piskvork_openings.txt}
nice_level=${NICE:-10}
mkdir -p "$dir"

summary() { python3 "$(dirname "$0")/soak-summary.py" "$dir"; }
if ((summary_only)); then
  summary
  exit 0
fi
[[ -x $wuzi ]] || { echo "soak: no wuzi binary at $wuzi (cargo build --release, or WUZI=…)" >&2; exit 1; }
for b in "${brains[@]}"; do
  [[ -x $b ]] || { echo "soak: $b is not an executable brain" >&2; exit 1; }
done

opponents=(self "${brains[@]}")
# name|match options
controls=("50ms/move|--turn 50ms" "100ms/move|--turn 100ms" "300ms/move|--turn 300ms"
  "3s+50ms/game|--game 3s --inc 50ms")
rules=(0 1 4 8)
sizes=(15 20 7 32)

# supports BRAIN SIZE RULE: the brain answers START SIZE with OK and INFO rule RULE with no
# ERROR line (within two seconds).
supports() {
  local answer
  answer=$( (printf 'START %s\nINFO rule %s\n' "$2" "$3"; sleep 2; printf 'END\n') |
    timeout 10 "$1" 2>/dev/null | tr -d '\r' || true)
  grep -qx OK <<<"$answer" && ! grep -q '^ERROR' <<<"$answer"
}

# What each brain refuses, keyed "brain|size|rule".
declare -A refused=()
for b in "${brains[@]}"; do
  for rule in "${rules[@]}"; do
    for size in "${sizes[@]}"; do
      if ! supports "$b" "$size" "$rule"; then
        echo "soak: $b does not play rule $rule on ${size}x$size: left out there"
        refused["$b|$size|$rule"]=1
      fi
    done
  done
done
# Every configuration as "opponent|size|rule|control", opponent fastest, control slowest.
configs=()
for control in "${controls[@]}"; do
  for rule in "${rules[@]}"; do
    for size in "${sizes[@]}"; do
      for opponent in "${opponents[@]}"; do
        [[ -v refused["$opponent|$size|$rule"] ]] || configs+=("$opponent|$size|$rule|$control")
      done
    done
  done
done

games_in_dir() {
  cat "$dir"/batch-*.jsonl 2>/dev/null | grep -c '"kind":"game"' || true
}

started=$SECONDS
games=$(games_in_dir)
echo "soak: $games games in $dir, target $target; ${#configs[@]} configurations; wuzi $wuzi; shard $shard"
k=$((first + shard_k))
played=0
while ((games < target)); do
  if ((seconds > 0 && SECONDS - started >= seconds)); then
    echo "soak: time is up"
    break
  fi
  name=$(printf 'batch-%06d' "$k")
  if [[ -e $dir/$name.jsonl ]]; then
    k=$((k + shard_n))
    continue
  fi
  IFS='|' read -r opponent size rule _ control_options <<<"${configs[$((k % ${#configs[@]}))]}"
  if [[ $opponent == self ]]; then
    other=(--engine "cmd=$wuzi" name=wuzi-2)
  else
    other=(--engine "cmd=$opponent")
  fi
  # shellcheck disable=SC2086 # the control's options are words
  if ! nice -n "$nice_level" "$wuzi" match --engine "cmd=$wuzi" name=wuzi "${other[@]}" \
    --rule "$rule" --size "$size" $control_options --openings "$openings" --order random \
    --seed "$k" --games 2 --concurrency 1 --results "$dir/$name.jsonl.part" \
    --log "$dir/$name.log" >"$dir/$name.out" 2>&1; then
    echo "soak: $name: the arena failed (see $dir/$name.out)" >&2
    tail -5 "$dir/$name.out" >&2
    rm -f "$dir/$name.jsonl.part"
    exit 1
  fi
  mv "$dir/$name.jsonl.part" "$dir/$name.jsonl"
  if grep '"kind":"game"' "$dir/$name.jsonl" |
    grep -qv '"reason":"\(five\|renju foul\|full board\|draw after N stones\)"'; then
    echo "soak: $name: a game did not end by five, foul or draw"
  else
    rm -f "$dir/$name.log"
  fi
  rm -f "$dir/$name.out"
  games=$(games_in_dir)
  played=$((played + 1))
  if ((played % 10 == 0)); then
    echo "soak: $games games ($((SECONDS - started)) s)"
  fi
  k=$((k + shard_n))
done
summary
