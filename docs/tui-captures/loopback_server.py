"""A scripted OpenAI-compatible server on 127.0.0.1 for the TUI's LLM flow (docs/tui-captures/loopback_capture.sh).

ACU generation lists the sentence's comma-separated pieces; the judge answers P(Yes) low for a statement with a word
the source lacks; the reviser drops the first unsupported phrase still in the text. Runs until stdin closes.
    python docs/tui-captures/loopback_server.py PORT
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from loopback import LoopbackLLM, yes_reply  # noqa: E402

FLAGGED = ("two years", "chairs")
CUTS = (" and take two years", ", who chairs the housing committee,")


def respond(req):
    last = (req.get("messages") or [{}])[-1].get("content", "")
    if "<<<FEEDBACK" in last:  # the reviser
        text = last.split("<<<TEXT")[1].split("TEXT>>>")[0].strip()
        for cut in CUTS:
            if cut in text:
                return text.replace(cut, "", 1)
        return text
    if "<<<TEXT" in last:  # ACU generation
        body = last.split("<<<TEXT")[1].split("TEXT>>>")[0].strip()
        return "\n".join("- " + s.strip() for s in body.split(",") if s.strip())
    statement = last.split("<<<STATEMENT")[-1]
    return yes_reply(0.08 if any(w in statement for w in FLAGGED) else 0.93)


if __name__ == "__main__":
    srv = LoopbackLLM(respond, port=int(sys.argv[1]), max_requests=1_000_000).start()
    print(f"serving on {srv.base_url}", flush=True)
    try:
        sys.stdin.read()
    except KeyboardInterrupt:
        pass
    srv.stop()
