"""The main screen's keys: (key, action, footer label, help text) for the bindings, the footer and the help screen."""

from __future__ import annotations

# (key, action, footer label, help text); the help screen lists these, the footer shows the short labels.
KEYS: list[tuple[str, str, str, str]] = [
    ("question_mark", "help", "help", "this help (also F1)"),
    ("q", "quit", "quit", "quit: cancels a running job; rounds already stored are kept (asks first about a pending proposal or an unsaved edit)"),
    ("c", "check", "check", "check the working text (stored as the next round)"),
    ("r", "refine", "refine", "refine one round: the reviser proposes a revision, checked, shown as a diff in the text; a accepts, n rejects"),
    ("R", "auto_refine", "auto×N", "auto-refine N rounds (asks N), accepting each revision"),
    ("escape", "cancel", "cancel", "cancel the running work (or leave the editor, asking before a draft is dropped)"),
    ("a", "accept", "accept", "accept the proposed revision (all of its edits)"),
    ("n", "reject", "reject", "reject the proposed revision (all of its edits)"),
    ("left_square_bracket", "edit_step(-1)", "", "a pending proposal: the previous edit"),
    ("right_square_bracket", "edit_step(1)", "", "a pending proposal: the next edit"),
    ("space", "toggle_edit", "", "a pending proposal: keep or drop the picked edit (a then accepts only the kept edits)"),
    ("d", "diff", "diff", "diff between any two rounds (or the current text and the proposal)"),
    ("v", "revert", "revert", "revert to the round selected in the rounds table"),
    ("e", "edit", "edit", "edit the text in place; ctrl+s saves and re-checks, escape asks before discarding"),
    ("ctrl+s", "save_edit", "save+check", "save the edit and re-check it"),
    ("s", "settings", "settings", "strategy, LLM, judge, verifier, decomposer (saved to the config file)"),
    ("x", "export", "export", "export the run as JSON or Markdown"),
    ("o", "open", "open", "open another case (a file or a stored run)"),
    ("1", "pane('units')", "", "show the units (narrow layout) / focus them"),
    ("2", "pane('sources')", "", "show the sources (narrow layout) / focus them"),
    ("3", "pane('rounds')", "", "show the rounds (narrow layout) / focus them"),
    ("m", "messages", "", "messages: every warning and error of this session, kept after the toast fades"),
    ("ctrl+p", "app.command_palette", "", "command palette: every action by name, themes (Textual's), keys"),
    ("tab", "focus_next", "", "move between panes (text, sources, units, rounds)"),
]
