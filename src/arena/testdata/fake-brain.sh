#!/usr/bin/env bash
# A fake Gomocup brain for the arena tests. It plays the first empty square in row order, and
# misbehaves as MODE says:
#   normal          plays correctly
#   crash           exits as soon as it is asked for a move
#   hang            never answers a move (and ignores YXSTOP)
#   late MS         sleeps MS milliseconds before each move (ignoring YXSTOP meanwhile)
#   occupied        answers the opponent's last move (its first move is correct)
#   outside         answers 99,99
#   garbage         answers a line that is not a move
#   chatty          a banner at start-up, MESSAGE/DEBUG/ERROR lines around everything
#   no-ok           never answers START
#   refuse          answers START with ERROR
#   refuse-once     answers its first START with ERROR, later ones with OK
#   silent-once F   does not answer the first START of all processes sharing the file F (it
#                   creates F then), answers later ones with OK
#   plain-about     answers ABOUT with plain text (no name=)
mode=${1:-normal}
arg=${2:-0}
size=15
declare -A taken
last=""
starts=0

if [[ $mode == chatty ]]; then
  echo "Chatty brain 1.0 starting up"
  echo "MESSAGE loading nothing at all"
fi

reset_board() { taken=(); last=""; }

answer() {
  case $mode in
    crash) exit 3 ;;
    hang) return ;;
    late) sleep "$(printf '%d.%03d' $((arg / 1000)) $((arg % 1000)))" ;;
    outside) echo "99,99"; return ;;
    garbage) echo "I resign, good game"; return ;;
    occupied)
      if [[ -n $last ]]; then echo "$last"; return; fi ;;
    chatty)
      for i in $(seq 1 40); do echo "MESSAGE thinking hard, line $i"; done
      echo "DEBUG depth 1"
      echo "ERROR not really an error" ;;
  esac
  local x y
  for ((y = 0; y < size; y++)); do
    for ((x = 0; x < size; x++)); do
      if [[ -z ${taken[$x,$y]} ]]; then
        taken[$x,$y]=1
        echo "$x,$y"
        return
      fi
    done
  done
}

in_board=0
while IFS= read -r line; do
  line=${line%$'\r'}
  if ((in_board)); then
    if [[ ${line^^} == DONE ]]; then
      in_board=0
      answer
    else
      IFS=, read -r bx by _ <<<"$line"
      taken[$bx,$by]=1
      last="$bx,$by"
    fi
    continue
  fi
  cmd=${line%% *}
  case ${cmd^^} in
    ABOUT)
      [[ $mode == chatty ]] && echo "MESSAGE about to answer ABOUT"
      [[ $mode == plain-about ]] && { echo "Fake plain brain 2.0"; continue; }
      echo "name=\"fake-$mode\", version=\"1\", author=\"tests\", country=\"none\"" ;;
    START)
      size=${line#* }
      reset_board
      starts=$((starts + 1))
      case $mode in
        no-ok) ;;
        refuse) echo "ERROR size not supported" ;;
        refuse-once)
          if ((starts == 1)); then echo "ERROR busy, try again"; else echo "OK"; fi ;;
        silent-once)
          if [[ -e $arg ]]; then echo "OK"; else : >"$arg"; fi ;;
        chatty) echo "MESSAGE starting"; echo "OK" ;;
        *) echo "OK" ;;
      esac ;;
    BEGIN) answer ;;
    TURN)
      xy=${line#* }
      xy=${xy// /}
      taken[$xy]=1
      last=$xy
      answer ;;
    BOARD) reset_board; in_board=1 ;;
    INFO|YXSTOP|STOP) ;;
    END) exit 0 ;;
    *) echo "UNKNOWN $line" ;;
  esac
done
