"""Terminal panels for Frog and Garbage tables: what :meth:`FrogReferee.view` and
:meth:`GarbageReferee.view` hold, drawn as text with each seat's LED role (for ``cardtable play``'s
live view, next to the Chinese Ten panel of :mod:`table.demo.view`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from table.controller.referee_base import prompt_question

LED_MARK = {"turn": "> ", "error": "! ", "confirm": "? ", "winner": "* ", "idle": "  "}


def render_frog(view: dict[str, Any], leds: dict[int, str], name: Callable[[int], str] = lambda s: f"seat {s}") -> str:
    contract = f"{view['contract']} by seat {view['bidder']}, trump {view['trump']}" if view.get("contract") else "-"
    lines = [
        f"Frog ({view['rules']})   deal {view['deal']}/{view['deals']}   dealer seat {view['dealer']}   "
        f"stage: {view['stage']}   contract: {contract}",
        f"trick: {' '.join(view['trick']) or '(empty)'}"
        + (f"   widow: {' '.join(view['widow'])}" if view.get("widow") else ""),
    ]
    for seat in view["seats"]:
        s = seat["seat"]
        led = leds.get(s, "idle")
        role = "" if seat["active"] else "(sits out)"
        lines.append(
            f"{LED_MARK.get(led, '  ')}{name(s):10} LED {led:7} tricks {seat['tricks']:2}  "
            f"points {seat['points']:3}  chips {seat['chips']:+5d} {role}"
        )
    if view.get("choice"):
        lines.append(f"CHOOSE {view['choice']}")
    lines.extend(_common(view))
    return "\n".join(lines)


def render_garbage(
    view: dict[str, Any], leds: dict[int, str], name: Callable[[int], str] = lambda s: f"seat {s}"
) -> str:
    pots = ", ".join(f"{k} {v}" for k, v in view["pots"].items() if v)
    lines = [
        f"Garbage ({view['rules']})   hand {view['hand']}/{view['hands']}   dealer seat {view['dealer']}   "
        f"phase: {view['phase']}" + (f"   {pots}" if pots else ""),
        f"awaiting: {view['awaiting']}",
        f"turn-up row: {' '.join(view['turnup']) or '(empty)'}",
    ]
    for seat in view["seats"]:
        s = seat["seat"]
        led = leds.get(s, "idle")
        lines.append(
            f"{LED_MARK.get(led, '  ')}{name(s):10} LED {led:7} coins {seat['coins']:4}  {' '.join(seat['cards'])}"
        )
    if view.get("choice"):
        lines.append(f"CHOOSE {view['choice']}")
    lines.extend(_common(view))
    return "\n".join(lines)


def render(view: dict[str, Any], leds: dict[int, str], name: Callable[[int], str] = lambda s: f"seat {s}") -> str:
    """The panel for whichever of the two games ``view`` belongs to."""
    return render_frog(view, leds, name) if view.get("game") == "frog" else render_garbage(view, leds, name)


def _common(view: dict[str, Any]) -> list[str]:
    lines = []
    for f in view.get("flags", []):
        lines.append(f"FLAG seat {f['seat']} {f['rule']}: {f['message']}")
    if view.get("prompt"):
        lines.append(f"ASK seat {view['prompt']['seat']}: {prompt_question(view['prompt'])}")
    lines.extend(view.get("messages", [])[-6:])
    return lines
