#!/usr/bin/env bash
# A fake Gomocup brain for tests/play.rs: plays the first of the squares given as arguments
# (`x,y` each) that is empty, else the first empty square in row order. It reads the position
# from BOARD (the play page sends the whole game before every move).
size=15
declare -A taken

answer() {
  local xy x y
  for xy in "$@"; do
    if [[ -z ${taken[$xy]} ]]; then
      taken[$xy]=1
      echo "$xy"
      return
    fi
  done
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
      answer "$@"
    else
      IFS=, read -r bx by _ <<<"$line"
      taken[$bx,$by]=1
    fi
    continue
  fi
  case ${line%% *} in
    ABOUT) echo 'name="list", version="1", author="tests", country="none"' ;;
    START) size=${line#* }; taken=(); echo OK ;;
    BEGIN) answer "$@" ;;
    TURN) xy=${line#* }; taken[${xy// /}]=1; answer "$@" ;;
    BOARD) taken=(); in_board=1 ;;
    END) exit 0 ;;
    *) ;;
  esac
done
