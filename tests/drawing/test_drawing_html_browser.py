"""The HTML replay viewer in a real headless Chromium (driven over the DevTools pipe).

The page loads with no console error, exception or blocked request; next / previous / the
slider / the seat selector / the address's ``#step=&seat=`` work; the picture changes after a
step; a seat's view shows that seat's hand only.

Chromium comes from the system packages (``.ci/run`` installs it). Without one the tests skip,
unless ``FIGHT_ENVS_BROWSER_TESTS=require`` (set by ``.ci/run``) makes a missing browser a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from drawing_browser import Browser, find_chromium
from drawing_games import play_random, raw

from fight_envs.drawing.replay import replay_frames, write_html

CHROMIUM = find_chromium()
REQUIRED = os.environ.get("FIGHT_ENVS_BROWSER_TESTS") == "require"
pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not REQUIRED,
    reason="no Chromium (apt-get install chromium); FIGHT_ENVS_BROWSER_TESTS=require fails instead")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    env = raw("fight5_v0")
    env.reset(seed=21)
    play_random(env, 14, seed=21)  # P0's five placements, P1's five, the reveal, and four more
    path = tmp_path_factory.mktemp("html") / "replay.html"
    return write_html(replay_frames(env.game_record()), path, title="Fight 5 replay")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if CHROMIUM is None:
        pytest.fail("FIGHT_ENVS_BROWSER_TESTS=require but no Chromium was found (apt-get install chromium)")
    b = Browser(CHROMIUM)
    try:
        yield b
    finally:
        b.close()


STAGE = "document.getElementById('stage').innerHTML"
"""The picture's markup (compared for equality: two screenshots of one picture may differ in a few pixels)."""


def _stage_shot(b: Browser) -> bytes:
    box = b.evaluate("(() => { const r = document.getElementById('stage').getBoundingClientRect();"
                     " return [r.x, r.y, r.width, r.height]; })()")
    x, y, w, h = box
    assert w > 500 and h > 300, f"the picture is not laid out: {box}"
    import base64

    shot = b.call("Page.captureScreenshot", {"format": "png", "clip": {"x": x, "y": y, "width": w, "height": h,
                                                                        "scale": 0.5}}, session=True)
    return base64.b64decode(shot["data"])


def _open(b: Browser, url: str) -> None:
    """Load the page and wait until it has unpacked its pictures."""
    b.open(url)
    b.evaluate("new Promise((done) => { const wait = () => document.body.dataset.ready ? done(true)"
               " : setTimeout(wait, 20); wait(); })")


def _state(b: Browser) -> tuple[str, str]:
    return b.evaluate("document.body.dataset.step"), b.evaluate("document.body.dataset.seat")


def test_page_loads_without_errors_and_steps(browser: Browser, page: Path) -> None:
    b = browser
    b.errors.clear()
    _open(b, page.as_uri())
    assert b.errors == []
    assert _state(b) == ("0", "spectator")
    assert b.evaluate("document.querySelectorAll('#stage svg').length") == 1
    assert b.evaluate("document.getElementById('prev').disabled") is True
    assert b.evaluate("document.getElementById('slider').max") == "14"
    # seat P0: its first placement shows up in its own picture after one step
    b.evaluate("(() => { const s = document.getElementById('seat'); s.value = '1';"
               " s.dispatchEvent(new Event('change')); })()")
    assert _state(b) == ("0", "0")
    before = _stage_shot(b)
    b.evaluate("document.getElementById('next').click()")
    assert _state(b) == ("1", "0")
    after = _stage_shot(b)
    assert before != after, "the picture did not change after a step"
    markup = b.evaluate(STAGE)
    b.evaluate("document.getElementById('prev').click()")
    assert _state(b) == ("0", "0")
    assert b.evaluate(STAGE) != markup
    b.evaluate("document.getElementById('next').click()")
    assert b.evaluate(STAGE) == markup
    # the slider
    b.evaluate("(() => { const s = document.getElementById('slider'); s.value = '14';"
               " s.dispatchEvent(new Event('input')); })()")
    assert _state(b) == ("14", "0")
    assert b.evaluate("document.getElementById('next').disabled") is True
    b.settle()
    assert b.errors == []


def test_a_seat_sees_only_its_own_hand(browser: Browser, page: Path) -> None:
    b = browser
    b.errors.clear()
    _open(b, page.as_uri() + "#step=3&seat=1")
    assert _state(b) == ("3", "1")
    text = b.evaluate("document.getElementById('stage').textContent")
    assert "P1 hand (" in text and "P0 hand (" not in text
    # the spectator: no hand at all; P0 placed three cards by step 3, which P1's and the
    # spectator's pictures do not show
    b.evaluate("(() => { const s = document.getElementById('seat'); s.value = '0';"
               " s.dispatchEvent(new Event('change')); })()")
    assert _state(b) == ("3", "spectator")
    assert "hand (" not in b.evaluate("document.getElementById('stage').textContent")
    spectator3 = b.evaluate(STAGE)
    b.evaluate("(() => { const s = document.getElementById('slider'); s.value = '0';"
               " s.dispatchEvent(new Event('input')); })()")
    assert _state(b) == ("0", "spectator")
    assert b.evaluate(STAGE) == spectator3, "the spectator saw a face-down placement"
    assert b.errors == []
