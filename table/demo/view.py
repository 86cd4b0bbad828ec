"""The live terminal view of a refereed game: layout, seats (cards in hand, captures, points), the
referee's messages and flags, and each seat's LED. On a terminal it redraws in place (at most ten
times a second); elsewhere it prints one line per move, flag and message."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from table.controller.core import GameSession
from table.controller.referee import Action, Input
from table.controller.referee_base import prompt_question

LED_MARK = {"idle": "  ", "turn": ">>", "error": "!!", "confirm": "??", "winner": "**"}


class TerminalView:
    def __init__(
        self,
        *,
        out: TextIO | None = None,
        live: bool | None = None,
        names: list[str] | None = None,
        max_rate: float = 10.0,
    ) -> None:
        self.out = out or sys.stdout
        self.live = self.out.isatty() if live is None else live
        self.names = names or []
        self.min_gap = 1.0 / max_rate
        self._last = 0.0

    def name(self, seat: int) -> str:
        return self.names[seat] if seat < len(self.names) else f"seat {seat}"

    def show(self, session: GameSession, inp: Input | None, actions: list[Action]) -> None:
        if self.live:
            now = time.monotonic()
            final = any(a["do"] == "over" for a in actions)
            if final or now - self._last >= self.min_gap:
                self._last = now
                panel = render_panel
                if session.referee.game != "chinese-ten":
                    from table.demo.view_frog_garbage import render as panel
                self.out.write(
                    "\x1b[H\x1b[2J" + panel(session.referee.view(), session.referee.leds(), self.name) + "\n"
                )
                self.out.flush()
            return
        for action in actions:
            line = describe(action)
            if line:
                print(line, file=self.out, flush=True)


def describe(action: Action) -> str | None:
    do = action["do"]
    if do == "move":
        return f"  {action['text']}"
    if do == "flag":
        return f"  FLAG seat {action['seat']} {action['rule']}: {action['message']}"
    if do == "clear":
        return f"  cleared: seat {action['seat']} {action['rule']} ({action['how']})"
    if do == "prompt":
        return f"  ASK seat {action['seat']}: {action['text']}"
    if do == "override":
        return f"  override by {action['who']}: {action['what']} ({action['why']})"
    if do == "say":
        return f"  {action['text']}"
    return None


def render_panel(view: dict[str, Any], leds: dict[int, str], name: Any = lambda s: f"seat {s}") -> str:
    lines = [f"Chinese Ten ({view['rules']})   phase: {view['phase']}   stock left: {view['stock_left']}"]
    lines.append(
        f"layout: {' '.join(view['layout']) or '(empty)'}"
        + (f"   pending: {view['pending']}" if view.get("pending") else "")
    )
    lines.append("")
    for seat in view["seats"]:
        s = seat["seat"]
        led = leds.get(s, "idle")
        turn = "to play" if view.get("to_act") == s else ""
        lines.append(
            f"{LED_MARK.get(led, '  ')} {name(s):10} LED {led:7} hand {seat['hand']:2}  "
            f"points {seat['points']:3}  {turn}"
        )
        lines.append(f"     captured: {' '.join(seat['captured'])}")
    if view.get("flags"):
        lines.append("")
        for f in view["flags"]:
            lines.append(f"FLAG seat {f['seat']} {f['rule']}: {f['message']}")
    if view.get("prompt"):
        lines.append(f"ASK seat {view['prompt']['seat']}: {prompt_question(view['prompt'])}")
    lines.append("")
    lines.extend(view.get("messages", [])[-6:])
    return "\n".join(lines)


def score_table(result: dict[str, Any], names: list[str] | None = None) -> str:
    rows = [f"{'seat':<10} {'points':>6} {'margin':>7}  captured"]
    for s in result["seats"]:
        who = names[s["seat"]] if names and s["seat"] < len(names) else f"seat {s['seat']}"
        rows.append(f"{who:<10} {s['points']:>6} {s['margin']:>+7}  {len(s['captured'])} cards")
    return "\n".join(rows)
