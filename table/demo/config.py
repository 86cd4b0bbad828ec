"""One demo game's settings and its result, for every game."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from table.journal import Journal

if TYPE_CHECKING:
    from vision.deck_profile import DeckProfile

GAMES = ("chinese-ten", "frog", "garbage")
SENSES = ("vision", "direct")
DEFAULT_RULES = {"chinese-ten": "pagat", "frog": "foster-1909", "garbage": "standard"}


@dataclass
class DemoConfig:
    """``senses``: ``vision`` (the simulated table through the real camera pipeline) or ``direct`` (a perfect
    camera: a quick check of the referee). ``kill_at``: world steps at which the controller is torn down and a
    new one started in-process on the same journal (tests and benchmarks)."""

    game: str = "chinese-ten"
    rules: str | None = None  # the game's default rule set when None
    players: int = 3
    seed: int = 0
    cheat: float = 0.0  # a bot breaks a rule with this probability
    deals: int | None = None  # Frog: deals in the session (default one per player)
    fast: bool = False  # frames as fast as they go (else 15 a second)
    card_reader: bool = True
    journal: Path = Path("cardtable-demo.db")
    senses: str = "vision"
    record: str | None = None  # the camera's frames written to this video
    timeout: float = 600.0
    sim_speed: float | None = None  # the simulated machine's speed-up (default: 25 when fast, else 1)
    new: bool = False  # start a new game even when one with this key is open (else it is resumed)
    kill_at: tuple[int, ...] = ()
    dealer: int = 0  # the first dealer's seat
    match_id: int | None = None  # the match this deal belongs to (Chinese Ten matches)
    number: int = 1  # the deal's number within its match
    doubt: float = 0.0  # the camera doubts a card appearing on the layout with this probability: the referee asks
    host_answers: bool = False  # the players leave the referee's questions to the host (the table page)
    deck: DeckProfile | None = None  # the camera reads the cards against this enrolled deck (vision senses only)

    @property
    def rule_name(self) -> str:
        return self.rules or DEFAULT_RULES[self.game]

    @property
    def key(self) -> str:
        """The journal's key of this game (how a killed run finds it again). Chinese Ten's keys name the
        senses, Frog's and Garbage's the deals; both as journals already hold them."""
        if self.game == "chinese-ten":
            base = (
                f"demo:{self.game}:{self.rule_name}:{self.players}:{self.seed}:{self.cheat:g}:{self.senses}"
                f":{int(self.card_reader)}"
            )
            return base if self.match_id is None else f"{base}:deal{self.number}"
        return (
            f"demo:{self.game}:{self.rule_name}:{self.players}:{self.seed}:{self.cheat:g}:"
            f"{int(self.card_reader)}:{self.deals}"
        )

    @property
    def options(self) -> dict[str, Any]:
        """The table session's options (not the rule set's)."""
        return {"deals": self.deals} if self.game == "frog" and self.deals else {}


@dataclass
class DemoResult:
    game_id: int
    refereed: dict[str, Any] | None
    truth: dict[str, Any] | None
    agree: bool  # the refereed result equals the simulation's truth
    flags: list[dict[str, Any]]  # each flag, ``matched`` when it caught an injected cheat
    cheats: list[dict[str, Any]]  # each injected cheat, ``flagged`` when the referee caught it
    resumed: bool  # this run resumed a game a killed process left open
    seconds: float
    frames: int = 0  # frames the camera watched (ticks of the world with direct senses)
    stats: dict[str, Any] = field(default_factory=dict)
    error: str | None = None  # why the game did not finish, None when it did
    restarts: int = 0  # in-process controller restarts (``kill_at``)
    answers: int = 0  # presses answering the referee's questions about a card
    messages: list[str] = field(default_factory=list)  # the referee's last messages

    @property
    def missed(self) -> list[dict[str, Any]]:
        return [c for c in self.cheats if not c["flagged"]]

    @property
    def invented(self) -> list[dict[str, Any]]:
        return [f for f in self.flags if not f["matched"]]

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "refereed": self.refereed,
            "truth": self.truth,
            "agree": self.agree,
            "flags": self.flags,
            "cheats": self.cheats,
            "missed": len(self.missed),
            "invented": len(self.invented),
            "restarts": self.restarts,
            "resumed": self.resumed,
            "answers": self.answers,
            "seconds": round(self.seconds, 2),
            "frames": self.frames,
            "error": self.error,
        }


def resume_seed(journal_path: Path, game: str, rules: str, players: int) -> int | None:
    """The seed of the newest open demo game of this game, rule set and player count (a killed run to
    resume), None when there is none."""
    if not journal_path.exists():
        return None
    prefix = f"demo:{game}:{rules}:{players}:"
    with Journal(journal_path, read_only=True) as journal:
        for game_row in reversed(journal.games()):
            key = game_row.key
            if game_row.status == "open" and key.startswith(prefix) and key.count(":") == prefix.count(":") + 3:
                seed = game_row.meta.get("seed")
                return int(seed) if isinstance(seed, int) else None
    return None
