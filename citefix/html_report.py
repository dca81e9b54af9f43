"""A self-contained HTML report of a stored run (and of a strategy comparison), from the store alone.

One file, inline CSS and JS, no network at view time. The text of each round is painted by verdict (a legend says
which colour is which); clicking a painted stretch or a row of the units table shows that unit's score, verdict,
verifier and evidence, highlighted in its source; the rounds table lists scores and cost, and two pickers show a word
diff between any two rounds; a cited answer lists every citation group with its per-citation verdicts. The page reads
`#round=N&unit=uK&diff=A,B` from its address, so a link (or a test) can open it on a unit or a diff.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citefix.models import Evaluation
from citefix.report import char_labels, runs_of

if TYPE_CHECKING:
    from citefix.store import Store

LABELS = ("supported", "partial", "unsupported", "error")

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{background:#22303c;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
header .meta{font-size:13px;opacity:.85;margin-top:4px}
main{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:18px;padding:18px 24px}
section{background:#fff;border:1px solid #ddd;border-radius:8px;padding:12px 16px;margin-bottom:18px}
h2{font-size:16px;margin:0 0 8px}
.text{font-size:16px;line-height:1.7;white-space:pre-wrap}
.feedback{white-space:pre-wrap}.edits{margin:4px 0 0 16px;padding:0}
.v{border-radius:3px;cursor:pointer;padding:1px 0}
.v-supported{background:#c8ecc9}.v-partial{background:#ffe9a8}.v-unsupported{background:#ffc2c2;text-decoration:underline}
.v-error{background:#e7c8f2}.v-none{color:#777}
.v.sel{outline:2px solid #1f6feb}
.legend span{display:inline-block;margin-right:12px;font-size:13px}.legend i{display:inline-block;width:14px;height:14px;
border-radius:3px;vertical-align:-2px;margin-right:4px}
table{border-collapse:collapse;width:100%;font-size:13px}td,th{border-bottom:1px solid #eee;padding:4px 6px;
text-align:left;vertical-align:top}tr.sel td{background:#eef4ff}tbody tr{cursor:pointer}
.num{text-align:right;font-variant-numeric:tabular-nums}.best{font-weight:bold}
.source{white-space:pre-wrap;font-size:13px;line-height:1.5;max-height:420px;overflow:auto;border-top:1px solid #eee;
padding-top:6px}mark.ev{background:#fff176;outline:1px solid #c9a400}
#detail .k{color:#666;display:inline-block;min-width:80px}
.diff del{background:#ffd6d6;text-decoration:line-through}.diff ins{background:#d6f5d6;text-decoration:none}
.rounds button{margin:0 4px 6px 0}.rounds button.on{background:#1f6feb;color:#fff;border-color:#1f6feb}
.muted{color:#777;font-size:13px}
"""

JS = r"""
const DATA = JSON.parse(document.getElementById('citefix-data').textContent);
const esc = s => String(s).replace(/[&<>"]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
const fmt = x => (x === null || x === undefined) ? '—' : Number(x).toFixed(2);
// the judge's probability cut, not rounded, to two decimals: on the same side of the decision points as the verdict
const fmtP = x => (x === null || x === undefined) ? '—' : (Math.floor(Number(x) * 100 + 1e-6) / 100).toFixed(2);
let current = DATA.start_round;
function showRound(n) {
  current = n;
  document.querySelectorAll('.round-text').forEach(el => el.hidden = Number(el.dataset.round) !== n);
  document.querySelectorAll('.units').forEach(el => el.hidden = Number(el.dataset.round) !== n);
  document.querySelectorAll('.citations').forEach(el => el.hidden = Number(el.dataset.round) !== n);
  document.querySelectorAll('.rounds button').forEach(b => b.classList.toggle('on', Number(b.dataset.round) === n));
  document.getElementById('round-title').textContent = 'Round ' + n + (n === DATA.best_round ? ' (best)' : '');
  document.getElementById('detail').innerHTML = '<p class="muted">Click a painted stretch or a unit to see its verdict and evidence.</p>';
  renderSources(null);
}
function renderSources(ev) {
  for (const src of DATA.sources) {
    const el = document.getElementById('src-' + src.id);
    if (!el) continue;
    if (ev && ev.source_id === src.id && ev.start !== null && ev.end !== null) {
      el.innerHTML = esc(src.text.slice(0, ev.start)) + '<mark class="ev">' + esc(src.text.slice(ev.start, ev.end))
        + '</mark>' + esc(src.text.slice(ev.end));
      const m = el.querySelector('mark.ev'); if (m) el.scrollTop = Math.max(0, m.offsetTop - el.offsetTop - 40);
    } else { el.textContent = src.text; }
  }
}
function selectUnit(uid) {
  const round = DATA.rounds[String(current)];
  const u = round && round.units.find(x => x.id === uid);
  if (!u) return;
  document.querySelectorAll('.v.sel, tr.sel').forEach(el => el.classList.remove('sel'));
  document.querySelectorAll('.round-text[data-round="' + current + '"] .v').forEach(el => {
    if ((el.dataset.units || '').split(' ').includes(uid)) el.classList.add('sel'); });
  const row = document.querySelector('.units[data-round="' + current + '"] tr[data-unit="' + uid + '"]');
  if (row) row.classList.add('sel');
  let h = '<p><b>' + esc(u.id) + '</b> ' + esc(u.text) + '</p>'
    + '<p><span class="k">verdict</span><span class="v v-' + esc(u.label || 'none') + '">' + esc(u.label || 'not checked')
    + '</span>' + (u.discrete ? ' (0/1)' : '') + '</p>'
    + '<p><span class="k">score</span><span class="score">' + fmt(u.score) + '</span></p>'
    + (u.p_unsupported != null ? '<p><span class="k">p unsupported</span>' + fmtP(u.p_unsupported) + '</p>' : '')
    + (u.why ? '<p><span class="k">why</span>' + esc(u.why) + '</p>' : '')
    + '<p><span class="k">verifier</span>' + esc(u.verifier || '—') + '</p>';
  if (u.error) h += '<p><span class="k">error</span>' + esc(u.error) + '</p>';
  if (u.evidence) h += '<p><span class="k">evidence</span>[' + esc(u.evidence.source_id) + '] <q>' + esc(u.evidence.text) + '</q></p>';
  if (u.citations && u.citations.length) h += '<p><span class="k">citations</span>' + u.citations.map(c =>
      '[' + esc(c.id) + '] ' + esc(c.label) + ' ' + fmt(c.score)).join(' · ') + '</p>';
  document.getElementById('detail').innerHTML = h;
  renderSources(u.evidence);
}
function wordDiff(a, b) {
  const x = a.split(/\s+/).filter(Boolean), y = b.split(/\s+/).filter(Boolean);
  const n = x.length, m = y.length, L = Array.from({length: n + 1}, () => new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--)
    L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const out = []; let i = 0, j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) { out.push(esc(x[i])); i++; j++; }
    else if (L[i + 1][j] >= L[i][j + 1]) { out.push('<del>' + esc(x[i]) + '</del>'); i++; }
    else { out.push('<ins>' + esc(y[j]) + '</ins>'); j++; }
  }
  while (i < n) out.push('<del>' + esc(x[i++]) + '</del>');
  while (j < m) out.push('<ins>' + esc(y[j++]) + '</ins>');
  return out.join(' ');
}
function showDiff() {
  const a = document.getElementById('diff-a').value, b = document.getElementById('diff-b').value;
  const ra = DATA.rounds[a], rb = DATA.rounds[b];
  document.getElementById('diff').innerHTML = (ra && rb) ? wordDiff(ra.text, rb.text) : '';
}
document.querySelectorAll('.v[data-units]').forEach(el => el.addEventListener('click', () => selectUnit(el.dataset.units.split(' ')[0])));
document.querySelectorAll('tr[data-unit]').forEach(el => el.addEventListener('click', () => selectUnit(el.dataset.unit)));
document.querySelectorAll('.rounds button').forEach(b => b.addEventListener('click', () => showRound(Number(b.dataset.round))));
const da = document.getElementById('diff-a'), db = document.getElementById('diff-b');
if (da) { da.addEventListener('change', showDiff); db.addEventListener('change', showDiff); }
const hash = new URLSearchParams(location.hash.slice(1));
showRound(hash.has('round') ? Number(hash.get('round')) : DATA.start_round);
if (da && hash.has('diff')) { const [a, b] = hash.get('diff').split(','); da.value = a; db.value = b; }
if (da) showDiff();
if (hash.has('unit')) {  // as if clicked: the same handler a click runs
  const target = document.querySelector('.round-text[data-round="' + current + '"] .v[data-units~="' + hash.get('unit') + '"]')
    || document.querySelector('.units[data-round="' + current + '"] tr[data-unit="' + hash.get('unit') + '"]');
  if (target) target.click();
}
"""


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def _num(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def painted(ev: Evaluation) -> str:
    """The text as spans painted by verdict; each span names the units covering it (most severe first)."""
    if not ev.text:
        return ""
    cover: list[list[str]] = [[] for _ in ev.text]
    for u in ev.checked_units:
        v = ev.verdict_for(u.id)
        if v is None or not u.has_span:
            continue
        for a, b in u.meta.get("pieces") or [[u.start, u.end]]:
            for i in range(max(0, a), min(b, len(cover))):
                cover[i].append(u.id)
    out = []
    labels = char_labels(ev)
    sev = {"unsupported": 3, "partial": 2, "supported": 1, "error": 0}
    for a, b, lab in runs_of(labels):
        seg = ev.text[a:b]
        if lab is None:
            out.append(_e(seg))
            continue
        ids = list(dict.fromkeys(uid for i in range(a, b) for uid in cover[i]))
        ids.sort(key=lambda uid: -sev.get(getattr(ev.verdict_for(uid), "label", ""), 0))
        out.append(f'<span class="v v-{lab}" data-units="{_e(" ".join(ids))}" title="{_e(lab)}">{_e(seg)}</span>')
    return "".join(out)


def _unit_rows(ev: Evaluation) -> list[dict[str, Any]]:
    out = []
    groups = {g.get("unit_id"): g for g in (ev.metrics.get("citations") or {}).get("groups") or []} \
        if isinstance(ev.metrics, dict) else {}
    for u in ev.checked_units:
        v = ev.verdict_for(u.id)
        cites = []
        for c in (groups.get(u.id) or {}).get("citations") or []:
            cites.append({"id": c.get("id"), "label": c.get("label"), "score": c.get("alone")})
        out.append({"id": u.id, "text": u.text, "label": v.label if v else None, "score": v.score if v else None,
                    "verifier": v.verifier if v else None, "discrete": bool(v and v.discrete),
                    "error": v.error if v else None, "cited": u.cited, "citations": cites,
                    "evidence": (v.evidence.model_dump() if v and v.evidence else None),
                    "p_unsupported": (v.details or {}).get("p_unsupported") if v else None,
                    "why": (v.details or {}).get("why") if v and v.label != "supported" else None})
    return out


def _units_table(n: int, rows: list[dict[str, Any]]) -> str:
    body = "".join(
        f'<tr data-unit="{_e(r["id"])}"><td>{_e(r["id"])}</td><td>{_e(r["text"])}</td>'
        f'<td class="num">{_num(r["score"])}</td><td><span class="v v-{_e(r["label"] or "none")}">'
        f'{_e(r["label"] or "not checked")}</span>{" (0/1)" if r["discrete"] else ""}</td></tr>' for r in rows)
    return (f'<table class="units" data-round="{n}"><thead><tr><th>#</th><th>unit</th><th>score</th><th>verdict</th>'
            f'</tr></thead><tbody>{body}</tbody></table>')


def _citations_table(ev: Evaluation, n: int | None = None, *, shown: bool = True) -> str:
    m = ev.metrics.get("citations") if isinstance(ev.metrics, dict) else None
    if not isinstance(m, dict) or not m.get("groups"):
        return ""
    rows = []
    for g in m["groups"]:
        cites = " ".join(f'<span class="v v-{"supported" if c.get("label") == "supported" else "unsupported"}">'
                         f'[{_e(c.get("id"))}] {_e(c.get("label"))}</span>' for c in g.get("citations") or [])
        missing = "".join(f" [{_e(x)}] cites no passage" for x in g.get("missing") or [])
        missing += (" supported by " + "".join(f"[{_e(x)}]" for x in g["supported_by"])) if g.get("supported_by") else ""
        rows.append(f'<tr data-unit="{_e(g.get("unit_id"))}"><td>{_e(g.get("claim"))}</td>'
                    f'<td>{"".join(f"[{_e(i)}]" for i in g.get("ids") or [])}</td>'
                    f'<td class="num">{_e(g.get("recall"))}</td><td class="num">{_num(g.get("precision"))}</td>'
                    f'<td>{cites}{missing}</td></tr>')
    al = m.get("aliice") or {}
    at = (f' class="citations" data-round="{n}"' + ("" if shown else " hidden")) if n is not None else ""
    return (f'<section{at}><h2>Citations</h2><p class="muted">ALiiCE recall ' + _num(al.get("recall")) + ', precision '
            + _num(al.get("precision")) + '; a citation is redundant when alone it does not support its claim while '
            'the rest of its group does.</p><table><thead><tr><th>claim</th><th>cites</th><th>recall</th>'
            '<th>precision</th><th>per citation</th></tr></thead><tbody>' + "".join(rows) + '</tbody></table></section>')


def _feedback_cell(comment: str | None, ev: Evaluation) -> str:
    """A round's feedback as written (its lines and bullets kept), and the edits the offline reviser made for it: kind,
    old → new, and the evidence each rests on."""
    out = f'<div class="feedback">{_e(comment)}</div>' if comment else ""
    edits = [e for e in (ev.metrics.get("edits") or [] if isinstance(ev.metrics, dict) else []) if isinstance(e, dict)]
    items = []
    for e in edits:
        change = f'“{_e(e.get("text"))}”' + (f' → “{_e(e.get("new"))}”' if e.get("new") is not None else " cut")
        ev_text = (e.get("evidence") or {}).get("text") if isinstance(e.get("evidence"), dict) else None
        evidence = f' <span class="muted">(evidence: “{_e(_clip(ev_text))}”)</span>' if ev_text else ""
        items.append(f"<li>{_e(e.get('kind'))}: {change}{evidence}</li>")
    if items:
        out += f'<ul class="edits">{"".join(items)}</ul>'
    return out


def _clip(text: str, n: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def render_run_html(store: Store, run_id: int) -> str:
    """The whole page for one stored run."""
    from citefix.costs import format_cost, summarise_calls
    from citefix.store.rows import best_round_of, best_round_text

    run = store.run(run_id)
    case = store.case_for_run(run_id)
    rows = store.rounds(run_id)
    if not rows:
        from citefix.errors import InputError

        raise InputError(f"run {run_id} has no stored rounds to report")
    best = best_round_of(run, rows)
    start = best if best is not None else rows[-1].n  # with no complete round, the last one (said to be no result)
    calls = store.calls(run_id)
    evs = {r.n: store.evaluation(run_id, r.n) for r in rows}
    data: dict[str, Any] = {"run_id": run_id, "best_round": best, "start_round": start,
            "sources": [{"id": s.id, "title": s.title, "text": s.text} for s in case.sources],
            "rounds": {str(n): {"text": ev.text, "score": ev.score, "units": _unit_rows(ev)} for n, ev in evs.items()}}
    texts = "".join(f'<div class="text round-text" data-round="{n}" hidden>{painted(ev)}</div>' for n, ev in evs.items())
    units = "".join(_units_table(n, data["rounds"][str(n)]["units"]) for n in evs)
    round_rows = []
    for r in rows:
        spent = summarise_calls(c for c in calls if c.round_id == r.id)
        cost = format_cost(r.cost, spent.why_unknown) if (r.cost is None or r.cost) else "—"
        mark = " best" if r.n == best else ""
        round_rows.append(
            f'<tr class="{mark.strip()}"><td>{r.n}{" (best)" if mark else ""}</td><td class="num">{_num(r.score)}'
            f'</td><td class="num">{_num(r.judge_score)}</td><td class="num">{r.n_unsupported} of '
            f'{r.n_units}</td><td class="num">{_e(r.edit_prev if r.edit_prev is not None else "—")}</td>'
            f'<td>{_e(cost)}</td><td>{_feedback_cell(r.comment, evs[r.n])}</td></tr>')
    buttons = "".join(f'<button data-round="{r.n}">round {r.n}{" · best" if r.n == best else ""}</button>'
                      for r in rows)
    options = "".join(f'<option value="{r.n}">round {r.n}</option>' for r in rows)
    sources = "".join(f'<h3 class="muted">[{_e(s.id)}] {_e(s.title)}</h3><div class="source" id="src-{_e(s.id)}">'
                      f'{_e(s.text)}</div>' for s in case.sources)
    legend = "".join(f'<span><i class="v-{k}"></i>{k}</span>' for k in LABELS[:3]) + \
        '<span><i class="v-error"></i>error</span><span><i style="background:#fff;border:1px solid #ccc"></i>not in any unit</span>'
    spent = summarise_calls(calls)
    meta = (f'{_e((case.kind or "").replace("_", " "))} · command {_e(run.command)} · LLM {_e(run.llm or "none (offline)")} · '
            f'verifier {_e(run.verifier)} · status {_e(run.status)} ({_e(run.stop_reason)}) · best round {best_round_text(best)}'
            + (f' · {_e(spent.line())}' if spent.calls else ""))
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>citefix run {run_id}: {_e(case.id)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}</style></head>
<body><header><h1>citefix run {run_id} · {_e(case.id)}</h1><div class="meta">{meta}</div></header>
<main><div>
<section><h2 id="round-title">Round {start}</h2><div class="legend">{legend}</div>
<div class="rounds">{buttons}</div>{texts}</section>
<section><h2>Units</h2>{units}</section>
{"".join(_citations_table(ev, n, shown=n == start) for n, ev in evs.items())}
<section><h2>Rounds</h2><table><thead><tr><th>round</th><th>score</th><th>judge</th><th>unsupported</th>
<th>edit (prev)</th><th>cost</th><th>feedback</th></tr></thead><tbody>{"".join(round_rows)}</tbody></table>
<p>Word diff from <select id="diff-a">{options}</select> to <select id="diff-b">{options}</select></p>
<div class="text diff" id="diff"></div></section>
</div><div>
<section id="detail-box"><h2>Selected unit</h2><div id="detail"></div></section>
<section><h2>Sources</h2>{sources}</section>
</div></main>
<script type="application/json" id="citefix-data">{payload}</script>
<script>{JS}</script></body></html>
"""


def html_path(path: str | Path, run_id: int, many: bool) -> Path:
    """--html FILE for one run; with several runs FILE's stem gets the run id (report.html → report-12.html)."""
    p = Path(path)
    return p.with_name(f"{p.stem}-{run_id}{p.suffix or '.html'}") if many else p


def write_run_html(store, run_id: int, path: str | Path) -> Path:
    from citefix.errors import InputError

    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(render_run_html(store, run_id), encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {p}: {exc.strerror or exc}; pick another path") from exc
    return p


def render_compare_html(markdown: str, pngs: dict[str, Path], *, title: str = "Strategy comparison") -> str:
    """compare --report: the report's tables and every plot, inlined (PNG as data URIs)."""
    body = []
    for line in markdown.splitlines():
        if line.startswith("# "):
            continue
        body.append(line)
    out: list[str] = []
    rows: list[str] = []

    def flush():
        if rows:
            head, *rest = rows
            cells = lambda r: [c.strip() for c in r.strip().strip("|").split("|")]  # noqa: E731
            out.append("<table><thead><tr>" + "".join(f"<th>{_e(c)}</th>" for c in cells(head)) + "</tr></thead><tbody>"
                       + "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in cells(r)) + "</tr>"
                                 for r in rest if not set(r.replace("|", "").strip()) <= set("-:"))
                       + "</tbody></table>")
            rows.clear()

    for line in body:
        if line.startswith("|"):
            rows.append(line)
            continue
        flush()
        if line.startswith("## "):
            out.append(f"<h2>{_e(line[3:])}</h2>")
        elif line.startswith("- "):
            out.append(f"<p class='muted'>{_e(line[2:])}</p>")
        elif line.strip():
            out.append(f"<p>{_e(line)}</p>")
    flush()
    imgs = "".join(f'<figure><img alt="{_e(name)}" src="data:image/png;base64,'
                   f'{base64.b64encode(Path(p).read_bytes()).decode()}" style="max-width:100%"><figcaption>{_e(name)}'
                   f'</figcaption></figure>' for name, p in pngs.items())
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title><style>{CSS}'
            f'main{{display:block}}</style></head><body><header><h1>{_e(title)}</h1></header><main><section>'
            f'{"".join(out)}</section><section><h2>Charts</h2>{imgs}</section></main></body></html>')
