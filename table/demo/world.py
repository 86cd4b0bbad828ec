"""The demo world: bot players acting on a physical table, one design for every game.

The world is the table's reality (the deck the dealer machine holds, the cards in each player's hand, the
cards on the mat, the true game driven by the bots). The controller never reads it; it sees the world only
through the senses (the scene the world draws on), the dealer machine's answers and the seat buttons,
exactly as at a real table.

Each game's world (:mod:`table.demo.chinese_ten_world`, :mod:`table.demo.frog_world`,
:mod:`table.demo.garbage_world`) is a :class:`ScriptWorld`: a generator script of steps, each a physical
action or a wait, run one tick at a time from the senses' thread. With ``cheat`` probability a bot breaks a
rule the table can see, waits for the referee's flag (its seat LED turning to ``error``, with a time limit),
then puts the table right, so the true game stays the legal one; every cheat is listed in
:attr:`ScriptWorld.cheats` and paired with the flag that caught it (:func:`match_flags`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from typing import Any

from table.controller.questions import Prompt
from table.controller.referee import Flag, Input
from table.demo.scenes import Scene
from table.demo.world_log import WorldRecord

Step = Callable[[], bool]  # True: done; False: wait and ask again next tick
FLAG_WAIT_TICKS = 3000  # how long a cheating player waits for the referee before putting things right
TICK_STEPS = 64  # script steps a tick may run before it lets the senses look again


@dataclass
class Cheat:
    """A rule a bot broke on purpose (``at``: when, as ``("turn", 6)`` or ``("deal", 2)``); ``flagged`` once
    the referee caught it."""

    at: tuple[str, int]
    seat: int
    rule: str
    cards: tuple[str, ...]
    flagged: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            self.at[0]: self.at[1],
            "seat": self.seat,
            "rule": self.rule,
            "cards": list(self.cards),
            "flagged": self.flagged,
        }


@dataclass(frozen=True)
class Controls:
    """What the players see of the controller and how they reach it."""

    leds: Callable[[], dict[int, str]]  # each seat's LED role
    prompt: Callable[[], Prompt | None]  # the referee's open question about a card
    idle: Callable[[], bool]  # the table is quiet and the controller has judged everything
    press: Callable[[int, bool], None]  # a finger on a seat button (long or short), back once posted
    terminal: Callable[[Input], None]  # something entered at the terminal


class ScriptWorld:
    """A world run by a generator script, one tick at a time from the senses' thread."""

    def __init__(self, scene: Scene, controls: Controls, record: WorldRecord | None = None) -> None:
        self.scene = scene
        self.controls = controls
        self.leds = controls.leds
        self.idle = controls.idle
        self.record = record or WorldRecord()
        self.cheats: list[Cheat] = []
        self.steps_done = 0
        self.answers = 0  # presses answering the referee's questions about a card
        self.answers_prompts = True  # False: the players leave the referee's questions to the host (the table page)
        self.finished = False
        self.error: str | None = None
        self._script: Generator[Step, None, None] | None = None
        self._waiting: Step | None = None
        self._answered: Prompt | None = None

    def script(self) -> Generator[Step, None, None]:
        raise NotImplementedError

    def truth_result(self) -> dict[str, Any] | None:
        """The true game's result, in the referee's result shape."""
        raise NotImplementedError

    def comparable(self, result: dict[str, Any] | None) -> Any:
        """What of a result must agree between the referee and the truth."""
        raise NotImplementedError

    def restore(self, log: list[dict[str, Any]]) -> None:
        """Rebuild the table, the dealer's deck and the truth from the world's log of a killed run (the
        entries that really happened): the script re-run from the seed against it (:meth:`fast_forward`).
        Answers to prompts are not the script's: they are left out."""
        self.record.replay = [e for e in log if "prompt" not in e]
        self.record.pos = 0
        self.fast_forward()

    def go_live(self) -> None:
        """A restarted controller has re-read the table: the players may move again."""

    # -- the players' hands ------------------------------------------------------------------------

    def press(self, seat: int, long: bool) -> None:
        """A bot's finger on its seat button (skipped in a replay: the journal has it)."""
        self.record.do({"press": [seat, long]}, lambda: self.controls.press(seat, long), lambda: None)

    def terminal(self, inp: Input) -> None:
        """Something a player enters at the terminal (skipped in a replay: the journal has it)."""
        self.record.do({"say": inp.to_json()}, lambda: self.controls.terminal(inp), lambda: None)

    def answer_prompt(self) -> None:
        """People confirm (short press) the card the referee names when it is the card just laid where the
        referee asks about, and say no (hold) otherwise (:func:`confirms`). The answer is logged, not
        replayed: a lost answer is asked again."""
        prompt = self.controls.prompt()
        if not self.answers_prompts or prompt is None or prompt is self._answered or not self.idle():
            return
        self._answered = prompt
        long = not confirms(self.scene, prompt)
        self.answers += 1
        self.record.write({"prompt": [prompt.seat, long]})
        self.controls.press(prompt.seat, long)

    # -- running the script ------------------------------------------------------------------------

    def fast_forward(self) -> None:
        """Re-run the script up to the end of ``record.replay``: the table, the dealer's deck, the
        truth and every random draw as they were when the log ended (waits pass at once)."""
        from table.demo.world_log import ReplayDiverged

        if self._script is None:
            self._script = self.script()
        self._waiting = None
        while self.record.replaying and not self.finished:
            try:
                self._waiting = next(self._script)
            except StopIteration:
                self.finished = True
            except ReplayDiverged:
                raise
            except Exception as exc:
                self.error = f"{type(exc).__name__}: {exc}"
                self.finished = True
        if self.record.replaying:
            raise ReplayDiverged(
                f"the script ended with {len(self.record.replay) - self.record.pos} logged actions not replayed"
            )
        # the wait the script stopped at is asked live from the next tick on

    def tick(self) -> None:
        """Answer an open question, then run the script until it has to wait."""
        self.answer_prompt()
        if self.finished:
            return
        if self._script is None:
            self._script = self.script()
        for _ in range(TICK_STEPS):
            if self._waiting is not None:
                if not self._waiting():
                    return
                self._waiting = None
            try:
                self._waiting = next(self._script)
            except StopIteration:
                self.finished = True
                return
            except Exception as exc:  # a world bug ends the demo with a message, not a hang
                self.error = f"{type(exc).__name__}: {exc}"
                self.finished = True
                return

    def act(self, do: Callable[[], object]) -> Generator[Step, None, None]:
        """One physical action, then wait until the controller has judged it."""
        self.steps_done += 1
        do()
        yield self.idle

    def wait(self, cond: Callable[[], bool], ticks: int = FLAG_WAIT_TICKS) -> Generator[Step, None, None]:
        left = [ticks]

        def step() -> bool:
            left[0] -= 1
            return cond() or left[0] <= 0

        yield step

    def led_is(self, seat: int, role: str) -> Callable[[], bool]:
        return lambda: self.idle() and self.leds().get(seat) == role

    def led_not(self, seat: int, role: str) -> Callable[[], bool]:
        return lambda: self.idle() and self.leds().get(seat) != role


def confirms(scene: Scene, prompt: Prompt) -> bool:
    """Whether a player looking at the table confirms the referee's "is the card just placed X?" (or "is
    it a heart?"): the card laid last in the zone the question is about is one of the prompt's yes cards
    (any of them on the mat when the prompt names no zone)."""
    zone = prompt.input.zone
    yes = prompt.yes_cards()
    return bool(scene.newest_in(str(zone)) in yes) if zone else any(scene.on_mat(card) for card in yes)


def match_flags(flags: Iterable[Flag], cheats: list[Cheat]) -> list[dict[str, Any]]:
    """Pair each flag with the cheat it caught: same seat and rule, a card in common (or none named)."""
    out = []
    open_cheats = list(cheats)
    for flag in flags:
        matched = None
        for cheat in open_cheats:
            cards_agree = bool(set(cheat.cards) & set(flag.cards)) or not (cheat.cards or flag.cards)
            if cheat.seat == flag.seat and cheat.rule == flag.rule and cards_agree:
                matched = cheat
                break
        if matched is not None:
            matched.flagged = True
            open_cheats.remove(matched)
        out.append(
            {
                "id": flag.id,
                "seat": flag.seat,
                "rule": flag.rule,
                "cards": list(flag.cards),
                "message": flag.message,
                "state": flag.state,
                "matched": matched is not None,
            }
        )
    return out
