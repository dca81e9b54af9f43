#!/usr/bin/env bash
# Drive `citefix tui` in a real terminal (tmux) through the offline acceptance flow and save each screen:
# open the bundled example, check, see the unsupported spans, two refinement rounds with the offline reviser (each
# proposal an inline diff), the diff, revert to round 1, export, help; then the cited-answer example.
# Usage: docs/tui-captures/capture.sh [citefix executable] — at 120x34; COLS=80 ROWS=24 PREFIX=80x24- for the narrow
# layout (files 80x24-NN-*.txt / .ansi).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
CITEFIX="${1:-$(cd "$HERE/../.." && pwd)/.venv/bin/citefix}"
WORK="$(mktemp -d)"
S="citefix-capture-$$"
COLS="${COLS:-120}" ROWS="${ROWS:-34}" PREFIX="${PREFIX:-}"
export CITEFIX_HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/config"
unset CITEFIX_LLM CITEFIX_VERIFIER CITEFIX_DECOMPOSER CITEFIX_STRATEGY || true

snap() { tmux capture-pane -p -t "$S" > "$HERE/$PREFIX$1.txt"; tmux capture-pane -p -e -t "$S" > "$HERE/$PREFIX$1.ansi"
  echo "saved $PREFIX$1"; }
wait_for() {  # wait_for PATTERN [seconds]
  local t=0; until tmux capture-pane -p -t "$S" | grep -q -- "$1"; do
    sleep 0.5; t=$((t + 1)); if [ "$t" -gt $(( ${2:-120} * 2 )) ]; then echo "timed out waiting for: $1" >&2
      tmux capture-pane -p -t "$S" >&2; exit 1; fi; done; }
keys() { tmux send-keys -t "$S" "$@"; sleep 0.6; }

tmux kill-session -t "$S" 2>/dev/null || true
# tmux runs the command in its server's environment: pass ours explicitly (HOME the work folder: the status line
# shows the store as ~/home/citefix.db, no machine path)
tmux new-session -d -s "$S" -x "$COLS" -y "$ROWS" \
  "cd '$WORK' && env HOME='$WORK' CITEFIX_HOME='$CITEFIX_HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' '$CITEFIX' tui --example; sleep 30"
trap 'tmux kill-session -t "$S" 2>/dev/null || true' EXIT

wait_for "not checked yet" 30;                   snap 01-open
keys c; wait_for "done in" 180;                   snap 02-checked
# move down the units table to the first unsupported unit (its line under the table reads: uN “…” unsupported)
for _ in $(seq 1 20); do keys Down; tmux capture-pane -p -t "$S" | grep -qE 'u[0-9]+ “[^”]*” unsupported' && break; done
snap 03-unsupported-unit
keys r; wait_for "proposed revision" 120;         snap 04-refine-1-proposal
keys a; wait_for "round 1 · score" 60; sleep 1;   snap 05-refine-1-accepted
keys e; tmux send-keys -t "$S" -l " The park will open in 2030 with a cafe run by volunteers."; sleep 0.5
snap 06-editing
keys C-s; wait_for "round 2 · score" 120; sleep 1; snap 07-edit-rechecked
keys r; wait_for "proposed revision" 120;         snap 08-refine-2-proposal
keys a; wait_for "round 3 · score" 60; sleep 1;   snap 09-refine-2-accepted
keys d; wait_for "Diff between rounds" 10;        snap 10-diff
keys escape; keys 3; keys Up Up; wait_for "Text · round 1 ·" 10; snap 11-viewing-round-1
keys v; wait_for "round 1 · score" 30; sleep 1;   snap 12-reverted-to-round-1
keys x; wait_for "Export run" 10; sleep 1
tmux send-keys -t "$S" C-u; tmux send-keys -t "$S" -l "run.md"; sleep 0.3

keys Enter; wait_for "Exported" 30;               snap 13-exported
keys '?'; wait_for "citefix · keys" 10;           snap 14-help
keys escape; keys q; sleep 1
tmux kill-session -t "$S" 2>/dev/null || true
tmux new-session -d -s "$S" -x "$COLS" -y "$ROWS" \
  "cd '$WORK' && env HOME='$WORK' CITEFIX_HOME='$CITEFIX_HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' '$CITEFIX' tui --example cited_answer; sleep 30"
wait_for "not checked yet" 30
keys c; wait_for "done in" 180; keys Down;         snap 15-cited-answer
keys s; wait_for "Settings (saved" 10;            snap 16-settings
keys escape; keys q; sleep 1
cp "$WORK/run.md" "$HERE/exported-run.md" 2>/dev/null || true
echo "store: $CITEFIX_HOME/citefix.db; export: $WORK/run.md"
