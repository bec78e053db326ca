#!/usr/bin/env bash
# Run a command in a tmux pane (a real terminal) and capture the pane every few seconds until it ends.
# usage: benchmarks/progress/capture.sh NAME SECONDS COMMAND...   (writes benchmarks/progress/NAME.txt)
set -u
name=$1; every=$2; shift 2
out="$(dirname "$0")/$name.txt"
session="progress-$name-$$"
tmux new-session -d -s "$session" -x 220 -y 12 "$*; echo EXIT=\$?; sleep 600"
: > "$out"
start=$(date +%s)
while true; do
  sleep "$every"
  now=$(( $(date +%s) - start ))
  { echo "=== t=${now}s"; tmux capture-pane -p -t "$session" | sed -e 's/[[:space:]]*$//' | grep -v '^$'; } >> "$out"
  if tmux capture-pane -p -t "$session" | grep -q '^EXIT='; then break; fi
  if [ "$now" -gt 900 ]; then echo "=== gave up after ${now}s" >> "$out"; break; fi
done
tmux kill-session -t "$session"
echo "$out"
