"""The HTML replay viewer: one self-contained page (inline SVG, CSS and script; no network).

Controls (once ``<body data-ready="1">``): previous / next buttons, a slider over the steps, play / pause, a seat selector
(spectator or one seat: each shows only what that seat saw, drawn in advance by the replay),
and the arrow keys. ``#step=N&seat=S`` in the address opens a given step and seat (``S`` is a
seat number or ``spectator``). The page keeps its state on ``<body data-step data-seat>``.

Pictures identical across steps or seats are stored once, and all of them gzip-compressed
(base64 in the page, unpacked by the browser's ``DecompressionStream``): a 150-step Fight 5 game
with three views takes about 0.1 MB instead of 5.
"""

from __future__ import annotations

import base64
import gzip
import json
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fight_envs.drawing.replay import Frame

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
body { margin: 0; background: #1d2320; color: #e8efe9; font: 15px/1.4 "DejaVu Sans", Verdana, Arial, sans-serif; }
header, nav { display: flex; gap: 12px; align-items: center; padding: 10px 18px; flex-wrap: wrap; }
header h1 { font-size: 18px; margin: 0; font-weight: 600; }
nav button, nav select { font: inherit; padding: 4px 12px; border-radius: 6px; border: 1px solid #5d7a67;
  background: #2c3a32; color: inherit; cursor: pointer; }
nav button:disabled { opacity: 0.4; cursor: default; }
nav input[type=range] { flex: 1; min-width: 200px; }
#caption { min-width: 230px; color: #c4decc; }
#stage { padding: 0 18px 18px; }
#stage svg { width: 100%; height: auto; max-width: 1200px; max-height: calc(100vh - 110px); display: block; }
</style>
</head>
<body data-step="0" data-seat="spectator">
<header><h1>__TITLE__</h1><span id="caption"></span></header>
<nav>
<button id="prev" title="previous step (left arrow)">&#9664; prev</button>
<button id="play" title="play / pause (space)">play</button>
<button id="next" title="next step (right arrow)">next &#9654;</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="step">
<label>seat <select id="seat"></select></label>
</nav>
<div id="stage"></div>
<script>
"use strict";
const DATA = __DATA__;
const last = DATA.index.length - 1;
const $ = (id) => document.getElementById(id);
let step = 0, seat = 0, timer = null;
function show() {
  $("stage").innerHTML = DATA.svgs[DATA.index[step][seat]];
  $("slider").value = String(step);
  $("caption").textContent = DATA.captions[step] + " \\u00b7 seen by " + DATA.viewers[seat];
  $("prev").disabled = step === 0;
  $("next").disabled = step === last;
  document.body.dataset.step = String(step);
  document.body.dataset.seat = DATA.keys[seat];
}
function go(s) { step = Math.max(0, Math.min(last, s)); if (DATA.svgs) { show(); } }
function stop() { if (timer !== null) { clearInterval(timer); timer = null; $("play").textContent = "play"; } }
function play() {
  if (timer !== null) { stop(); return; }
  if (step === last) { go(0); }
  $("play").textContent = "pause";
  timer = setInterval(() => { if (step >= last) { stop(); } else { go(step + 1); } }, 600);
}
DATA.viewers.forEach((name, i) => {
  const o = document.createElement("option"); o.value = String(i); o.textContent = name; $("seat").appendChild(o);
});
$("slider").max = String(last);
$("prev").addEventListener("click", () => { stop(); go(step - 1); });
$("next").addEventListener("click", () => { stop(); go(step + 1); });
$("play").addEventListener("click", play);
$("slider").addEventListener("input", (e) => { stop(); go(Number(e.target.value)); });
$("seat").addEventListener("change", (e) => { seat = Number(e.target.value); show(); });
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") { return; }
  if (e.key === "ArrowLeft") { stop(); go(step - 1); }
  else if (e.key === "ArrowRight") { stop(); go(step + 1); }
  else if (e.key === " ") { e.preventDefault(); play(); }
});
const wanted = new URLSearchParams(location.hash.slice(1));
if (wanted.has("seat")) { const k = DATA.keys.indexOf(wanted.get("seat")); if (k >= 0) { seat = k; } }
$("seat").value = String(seat);
step = Math.max(0, Math.min(last, wanted.has("step") ? Number(wanted.get("step")) || 0 : 0));
// the pictures travel gzip-compressed (base64): unpacked once, in the browser, with no network
async function unpack(b64) {
  const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
if (typeof DecompressionStream === "undefined") {
  $("stage").textContent = "This browser cannot unpack the pictures (it needs DecompressionStream: "
    + "Chrome 80+, Firefox 113+, Safari 16.4+).";
} else {
  unpack(DATA.svgs_gz).then((svgs) => { DATA.svgs = svgs; show(); document.body.dataset.ready = "1"; });
}
</script>
</body>
</html>
"""


def viewer_page(frames: list[Frame], title: str = "fight-envs replay") -> str:
    """The page for ``frames`` (each drawn for the same viewers), as one HTML string."""
    if not frames:
        raise ValueError("a replay viewer needs at least one frame")
    viewers = list(frames[0].pictures)
    svgs: list[str] = []
    seen: dict[str, int] = {}
    index = []
    for f in frames:
        row = []
        for v in viewers:
            svg = f.pictures[v].to_svg()
            if svg not in seen:
                seen[svg] = len(svgs)
                svgs.append(svg)
            row.append(seen[svg])
        index.append(row)
    total = len(frames) - 1
    data = {
        "viewers": ["spectator" if v is None else f"P{v}" for v in viewers],
        "keys": ["spectator" if v is None else str(v) for v in viewers],
        "captions": [f.caption(total) for f in frames],
        "svgs_gz": base64.b64encode(gzip.compress(json.dumps(svgs).encode(), 9, mtime=0)).decode("ascii"),
        "index": index,
    }
    # "</" inside a script would end it; "<\\/" is the same string to JavaScript
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return _PAGE.replace("__TITLE__", escape(title)).replace("__DATA__", blob)
