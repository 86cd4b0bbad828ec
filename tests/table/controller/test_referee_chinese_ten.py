"""The Chinese Ten referee on synthetic table events: each rule it enforces, named in the test,
with the flag's message naming the seat, the cards and the rule."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from table.cards import Card, parse_cards, shuffled, standard_pack
from table.chinese_ten import ChineseTenState, rules_by_name
from table.chinese_ten.referee import ChineseTenReferee, TablePhase, make_referee
from table.controller.referee import Action, Input
from table.controller.referee_base import next_question

Deck = list[Card]


def appeared(card: Card | str, track: int | None = None, candidates: tuple[tuple[str, float], ...] = ()) -> Input:
    return Input("table", "appeared", str(card), "layout", track=track, candidates=candidates)


def removed(card: Card | str, to: str | None = None) -> Input:
    return Input("table", "removed", str(card), "layout", to=to)


def press(seat: int, long: bool = False) -> Input:
    return Input("button", "long" if long else "short", seat=seat)


def dealt_referee(
    deck: Deck, *, players: int = 3, rules: str = "pagat", unread: int | None = None, **options: object
) -> ChineseTenReferee:
    """A referee whose dealer machine (with a card reader) dealt ``deck`` (top first); deal number
    ``unread`` is answered without the card (as after a restart, from the machine's card count)."""
    ref = make_referee(rules=rules, players=players, options=dict(options), card_reader=True, dealer_machine=True)
    it = iter(deck)
    deals = 0
    for action in ref.start():
        if action["do"] == "shuffle":
            ref.handle(Input("device", "shuffled", data={"id": action["id"]}))
        elif action["do"] == "deal":
            card = next(it)
            named = None if deals == unread else str(card)
            deals += 1
            ref.handle(Input("device", "dealt", named, data={"id": action["id"], "target": action["target"]}))
            if action["target"] == "layout":
                ref.handle(appeared(card))
    assert ref.phase is TablePhase.PLAY
    return ref


def flip(ref: ChineseTenReferee, card: Card) -> list[Action]:
    cmd = next(a for a in ref.pending_commands() if a.get("purpose") == "flip")
    out = ref.handle(Input("device", "dealt", str(card), data={"id": cmd["id"], "target": "layout"}))
    return out + ref.handle(appeared(card))


def find(players: int, want: Callable[[ChineseTenState, int, Card, list[Card]], bool]) -> tuple[Deck, Card, list[Card]]:
    """A seeded deck where the first player holds a card ``want`` likes: (deck, card, its targets)."""
    for seed in range(500):
        deck = shuffled(standard_pack(), seed)
        st = ChineseTenState.from_deck(rules_by_name("pagat"), deck, players=players)
        if st.phase.value != "play" or st.opening_capture:
            continue
        seat = st.to_act
        for card in st.hand(seat) or ():
            targets = st.capture_options(card)
            if want(st, seat, card, targets):
                return deck, card, targets
    raise AssertionError("no such deal in 500 seeds")


def one_target(st: ChineseTenState, seat: int, card: Card, targets: list[Card]) -> bool:
    return len(targets) == 1 and len(st.layout) >= 3


def flags(actions: list[Action]) -> list[Action]:
    return [a for a in actions if a["do"] == "flag"]


def test_play_that_captures_then_flip_is_accepted() -> None:
    """A played card's capture takes the played card and one legal target; then the stock is flipped."""
    deck, card, (target,) = find(3, one_target)
    ref = dealt_referee(deck)
    seat = ref.state.to_act  # type: ignore[union-attr]
    assert ref.handle(appeared(card)) == [] and ref.phase is TablePhase.CAPTURE
    ref.handle(removed(card))
    out = ref.handle(removed(target, to=f"capture:{seat}"))
    move = next(a for a in out if a["do"] == "move")
    assert move["move"] == {"seat": seat, "play": str(card), "take": str(target)}
    assert any(a["do"] == "deal" and a["purpose"] == "flip" for a in out)
    assert ref.leds()[seat] == "turn" and not flags(out)


def test_out_of_turn_play_is_flagged_until_taken_back() -> None:
    """Play out of turn: a card from another seat's hand (known from the card reader) is flagged."""
    deck, _, _ = find(3, one_target)
    ref = dealt_referee(deck)
    st = ref.state
    assert st is not None
    other = (st.to_act + 1) % 3
    wrong = (st.hand(other) or ())[0]
    (flag,) = flags(ref.handle(appeared(wrong)))
    assert flag["rule"] == "out-of-turn" and flag["seat"] == other
    assert f"seat {other}" in str(flag["message"]) and str(wrong) in str(flag["message"])
    assert "out of turn" in str(flag["message"])
    assert ref.leds()[other] == "error"
    out = ref.handle(removed(wrong))
    assert [a["do"] for a in out] == ["clear"] and ref.leds()[other] == "idle"
    assert st.moves_made == 0


def test_two_cards_played_is_flagged() -> None:
    """One card a turn: a second card from the same hand while the first is being captured."""
    deck, card, (target,) = find(3, one_target)
    ref = dealt_referee(deck)
    st = ref.state
    assert st is not None
    seat = st.to_act
    second = next(c for c in st.hand(seat) or () if c is not card)
    ref.handle(appeared(card))
    (flag,) = flags(ref.handle(appeared(second)))
    assert flag["rule"] == "two-cards" and flag["seat"] == seat
    assert str(second) in str(flag["message"]) and str(card) in str(flag["message"])
    assert ref.handle(removed(second))[0]["do"] == "clear"
    ref.handle(removed(card))
    assert any(a["do"] == "move" for a in ref.handle(removed(target)))


def test_compulsory_capture_left_undone_is_flagged() -> None:
    """Capture is compulsory (pagat's default): saying 'done' without taking is flagged."""
    deck, card, (target,) = find(3, one_target)
    ref = dealt_referee(deck)
    seat = ref.state.to_act  # type: ignore[union-attr]
    ref.handle(appeared(card))
    (flag,) = flags(ref.handle(press(seat)))
    assert flag["rule"] == "capture-compulsory" and flag["seat"] == seat
    assert "capture is compulsory" in str(flag["message"]) and str(target) in str(flag["message"])
    assert ref.leds()[seat] == "error"
    ref.handle(removed(card))
    out = ref.handle(removed(target))
    assert [a["do"] for a in out][:2] == ["clear", "move"] and ref.leds()[seat] == "turn"


def test_without_compulsory_capture_done_lays_the_card() -> None:
    """Option capture_compulsory=false: a card that could capture may be laid (button: done)."""
    deck, card, _ = find(3, one_target)
    ref = dealt_referee(deck, capture_compulsory=False)
    seat = ref.state.to_act  # type: ignore[union-attr]
    ref.handle(appeared(card))
    out = ref.handle(press(seat))
    assert not flags(out)
    assert next(a for a in out if a["do"] == "move")["move"] == {"seat": seat, "play": str(card), "take": []}


def test_non_matching_take_is_flagged_then_put_right() -> None:
    """A card captures only its match: taking the played card with another layout card is flagged."""
    deck, card, (target,) = find(3, one_target)
    ref = dealt_referee(deck)
    st = ref.state
    assert st is not None
    seat = st.to_act
    other = next(c for c in st.layout if c is not target)
    ref.handle(appeared(card))
    ref.handle(removed(card))
    (flag,) = flags(ref.handle(removed(other)))
    assert flag["rule"] == "non-matching" and set(flag["cards"]) == {str(card), str(other)}
    assert f"seat {seat}" in str(flag["message"]) and "does not capture" in str(flag["message"])
    ref.handle(appeared(card))
    assert ref.handle(appeared(other))[0]["do"] == "clear"
    ref.handle(removed(card))
    assert any(a["do"] == "move" for a in ref.handle(removed(target)))


def test_wrong_card_taken_is_flagged() -> None:
    """A capture takes the card just played: taking its target with another layout card is flagged."""
    deck, card, (target,) = find(3, one_target)
    ref = dealt_referee(deck)
    st = ref.state
    assert st is not None
    other = next(c for c in st.layout if c is not target)
    ref.handle(appeared(card))
    ref.handle(removed(target))
    (flag,) = flags(ref.handle(removed(other)))
    assert flag["rule"] == "wrong-card" and str(card) in str(flag["message"])
    ref.handle(appeared(target))
    assert ref.handle(appeared(other))[0]["do"] == "clear"


def test_layout_card_taken_without_a_play_is_flagged() -> None:
    deck, _, _ = find(3, one_target)
    ref = dealt_referee(deck)
    st = ref.state
    assert st is not None
    card = st.layout[0]
    (flag,) = flags(ref.handle(removed(card)))
    assert flag["rule"] == "wrong-card" and "without capturing" in str(flag["message"])
    assert ref.handle(appeared(card))[0]["do"] == "clear"


def test_misread_of_a_card_already_seen_is_corrected_by_the_unseen_cards() -> None:
    """Recognition knows the game: a card on the layout cannot appear again; the classifier's next
    best possible card is taken without asking."""
    deck, card, (target,) = find(3, one_target)
    ref = dealt_referee(deck)
    st = ref.state
    assert st is not None
    misread = str(st.layout[-1])  # the classifier says a card that already lies on the layout
    out = ref.handle(appeared(card, candidates=((misread, 0.55), (str(card), 0.44))))
    assert not any(a["do"] == "prompt" for a in out)
    assert ref.pending is card


def test_unsure_reading_asks_for_confirmation_and_a_long_press_says_no() -> None:
    deck, card, (target,) = find(3, one_target)
    ref = dealt_referee(deck)
    seat = ref.state.to_act  # type: ignore[union-attr]
    wrong = next(c for c in ref.state.hand(seat) or () if c is not card)  # type: ignore[union-attr]
    out = ref.handle(appeared(card, candidates=((str(wrong), 0.5), (str(card), 0.45))))
    prompt = next(a for a in out if a["do"] == "prompt")
    assert prompt["card"] == str(wrong) and ref.leds()[seat] == "confirm"
    assert ref.handle(removed(card)) == []  # held until the card is settled
    out = ref.handle(press(seat, long=True))
    assert next(a for a in out if a["do"] == "prompt")["card"] == str(card)
    out = ref.handle(press(seat))
    overrides = [a for a in out if a["do"] == "override"]
    assert overrides and overrides[0]["who"] == f"seat {seat}"
    assert ref.pending is card and ref.taken == [card]  # the held removal was judged after


def test_dispute_overrides_a_flag_and_is_recorded() -> None:
    deck, _, _ = find(3, one_target)
    ref = dealt_referee(deck)
    st = ref.state
    assert st is not None
    other = (st.to_act + 1) % 3
    ref.handle(appeared((st.hand(other) or ())[0]))
    out = ref.handle(Input("terminal", "dispute", seat=other, text="I was told to"))
    assert {
        "do": "override",
        "who": f"seat {other}",
        "what": "dispute flag 1 (out-of-turn)",
        "why": "I was told to",
    } in out
    assert any(a["do"] == "clear" and a["how"] == "overridden" for a in out)
    assert ref.leds()[other] == "idle" and ref.overrides[-1]["why"] == "I was told to"


def test_undo_takes_back_the_last_move() -> None:
    deck, card, (target,) = find(3, one_target)
    ref = dealt_referee(deck)
    st = ref.state
    assert st is not None
    seat = st.to_act
    ref.handle(appeared(card))
    ref.handle(removed(card))
    ref.handle(removed(target))
    flip_card = deck[28]
    flip(ref, flip_card)
    before = st.moves_made
    out = ref.handle(Input("terminal", "undo", seat=seat, text="misdeal of the flip"))
    assert any(a["do"] == "unmove" for a in out) and st.moves_made == before - 1
    assert any(a["do"] == "override" and a["why"] == "misdeal of the flip" for a in out)


def test_hand_deal_wrong_layout_count_is_reported_before_play() -> None:
    """Without a dealer machine the camera confirms the layout: three cards is a wrong deal."""
    ref = make_referee(rules="pagat", players=2, dealer_machine=False)
    ref.start()
    for c in parse_cards(["3C", "9D", "KS"]):
        ref.handle(appeared(c))
    (flag,) = flags(ref.handle(press(0)))
    assert flag["rule"] == "deal-count" and "3 cards, not 4" in str(flag["message"])
    phase = ref.phase  # read into a name: mypy would keep the narrowing of ``ref.phase`` across ``handle``
    assert phase is TablePhase.DEAL
    ref.handle(appeared("QH"))
    out = ref.handle(press(0))
    assert any(a["do"] == "clear" for a in out) and ref.phase is TablePhase.PLAY


def test_hand_flip_from_the_stock_zone() -> None:
    ref = make_referee(rules="pagat", players=2, dealer_machine=False)
    ref.start()
    for c in parse_cards(["3C", "9D", "KS", "QH"]):
        ref.handle(appeared(c))
    ref.handle(press(0))
    seat = ref.state.to_act  # type: ignore[union-attr]
    ref.handle(appeared("2D"))  # joins the layout: nothing to capture
    out = ref.handle(Input("table", "appeared", "5S", "stock", candidates=(("5S", 0.99),)))
    assert next(a for a in out if a["do"] == "move")["move"] == {"seat": seat, "flip": "5S"}


def test_special_capture_takes_all_three_of_the_first_layout() -> None:
    """G4A (seeds 001/003): the fourth king takes the three kings of the first layout."""
    hands = [[f"{r}{s}" for r in "23456789"] for s in "CDH"]  # seat 0: clubs, 1: diamonds, 2: hearts
    hands[1][0] = "KS"  # seat 1 (first to play) holds the fourth king
    layout = ["KC", "KD", "KH", "2S"]
    deal_order = [hands[(1 + i) % 3].pop(0) for i in range(24)]
    rest = [str(c) for c in standard_pack() if str(c) not in deal_order + layout]
    deck = parse_cards(deal_order + layout + rest)
    ref = dealt_referee(deck, rules="g4a")
    ref.handle(appeared("KS"))
    for c in ("KS", "KC", "KD"):
        assert not flags(ref.handle(removed(c)))
    out = ref.handle(removed("KH"))
    assert next(a for a in out if a["do"] == "move")["move"] == {"seat": 1, "play": "KS", "take": ["KC", "KD", "KH"]}


@pytest.mark.parametrize("players", [2, 4])
def test_replay_of_the_inputs_rebuilds_the_same_referee(players: int) -> None:
    """A referee is a pure function of its inputs: what resume after a kill relies on."""
    deck, card, (target,) = find(players, one_target)
    inputs: list[Input] = []
    ref = dealt_referee(deck, players=players)
    for inp in (appeared(card), removed(card), removed(target)):
        inputs.append(inp)
        ref.handle(inp)
    again = dealt_referee(deck, players=players)
    for inp in inputs:
        again.handle(inp)
    assert again.view() == ref.view() and again.pending_commands() == ref.pending_commands()


def test_out_of_turn_still_attributed_when_one_dealt_card_went_unread() -> None:
    """A restart lost one card's identity: the engine's hands are unknown, but the cards the reader
    named still say whose hand a card came from."""
    deck, _, _ = find(3, one_target)
    ref = dealt_referee(deck, unread=0)
    st = ref.state
    assert st is not None and not st.hands_known
    other = (st.to_act + 1) % 3
    wrong = next(c for c, seat in ref.owner.items() if seat == other)
    (flag,) = flags(ref.handle(appeared(wrong)))
    assert flag["rule"] == "out-of-turn" and flag["seat"] == other


def test_unreadable_layout_card_at_the_deal_is_named_by_the_card_reader() -> None:
    """The tracker could not agree on a card ("unknown"); the dealer's reader said which cards it
    dealt face up, so the one still missing from the layout is that card."""
    deck = shuffled(standard_pack(), 3)
    ref = make_referee(rules="pagat", players=3, card_reader=True, dealer_machine=True)
    it = iter(deck)
    layout = deck[24:28]
    for action in ref.start():
        if action["do"] == "deal":
            card = next(it)
            ref.handle(Input("device", "dealt", str(card), data={"id": action["id"], "target": action["target"]}))
    for card in layout[:3]:
        ref.handle(appeared(card))
    out = ref.handle(
        Input(
            "table", "appeared", "unknown", "layout", track=9, candidates=((str(deck[0]), 0.45), (str(layout[3]), 0.3))
        )
    )
    assert ref.phase is TablePhase.PLAY and layout[3] in ref.physical and not any(a["do"] == "prompt" for a in out)


def play_out(ref: ChineseTenReferee, truth: ChineseTenState) -> None:
    """Play the rest of the deal on the table as the truth plays it (perfect camera events)."""
    while truth.phase.value in ("play", "flip"):
        if truth.phase.value == "play":
            seat = truth.to_act
            card = (truth.hand(seat) or ())[0]
            take = next((t for t in truth.takes(card) if t), ())
            ref.handle(appeared(card))
            truth.play(seat, card, take)
        else:
            top = truth.stock_top
            assert top is not None
            card = top
            take = next((t for t in truth.takes(card) if t), ())
            flip(ref, card)
            truth.flip(card, take)
        if take:
            for gone in (card, *take):
                ref.handle(removed(gone))


def test_restart_during_the_deal_asks_for_an_unreported_layout_card_the_camera_misreads() -> None:
    """Recognition that knows the game (issue 8: "ask for confirmation when still unsure rather
    than guess"), after kill -9 during the deal: the dealer's answer for the last face-up layout card
    was lost, and on the re-read the camera is confident of a wrong face (a stock card). The referee
    does not guess: once the re-read is over it asks, a hold says no, the next offer is the true card,
    a press confirms; the deal then starts with the true layout and the game ends with the true score."""
    from table.chinese_ten.referee import result_json

    deck, _, _ = find(3, one_target)
    layout, misread = deck[24:28], deck[40]
    journal: list[Input] = []
    ref = make_referee(rules="pagat", players=3, card_reader=True, dealer_machine=True)
    commands = [a for a in ref.start() if a["do"] in ("shuffle", "deal")]
    journal.append(Input("device", "shuffled", data={"id": commands[0]["id"]}))
    for cmd, card in zip(commands[1:-1], deck, strict=False):  # the last layout deal's answer is lost
        journal.append(Input("device", "dealt", str(card), data={"id": cmd["id"], "target": cmd["target"]}))
    journal += [appeared(card, track=i) for i, card in enumerate(layout[:3])]
    for inp in journal:
        ref.handle(inp)
    assert ref.phase is TablePhase.DEAL and len(ref.physical) == 3

    # the restart: a fresh referee rebuilt from the journal, then the camera's first view
    ref = make_referee(rules="pagat", players=3, card_reader=True, dealer_machine=True)
    ref.start()
    for inp in journal:
        ref.handle(inp)
    ref.handle(Input("control", "resync_begin"))
    for i, card in enumerate(layout[:3]):
        assert ref.handle(appeared(card, track=10 + i)) == []
    sighting = Input(
        "table", "appeared", str(misread), "layout", track=13, candidates=((str(misread), 0.93), (str(layout[3]), 0.05))
    )
    assert ref.handle(sighting) == [] and ref.prompt is None  # not guessed, not asked yet
    out = ref.handle(Input("control", "resync_end"))
    prompt = next(a for a in out if a["do"] == "prompt")
    assert prompt["card"] == str(misread) and ref.leds()[0] == "confirm" and "on the layout" in str(prompt["text"])
    # the machine's card count settles the lost answer: dealt, card unknown
    ref.handle(Input("device", "dealt", data={"id": commands[-1]["id"], "target": "layout", "recovered": True}))
    phase = ref.phase  # read into a name: mypy would keep the narrowing of ``ref.phase`` across ``handle``
    assert phase is TablePhase.DEAL  # the layout is not complete until the card is named
    out = ref.handle(press(0, long=True))
    assert next(a for a in out if a["do"] == "prompt")["card"] == str(layout[3])
    out = ref.handle(press(0))
    assert any(a["do"] == "override" and a["what"] == f"the card is {layout[3]}" for a in out)
    assert ref.phase is TablePhase.PLAY and ref.state is not None
    assert sorted(ref.state.initial_layout) == sorted(layout) and misread not in ref.physical

    truth = ChineseTenState.from_deck(rules_by_name("pagat"), deck, players=3)
    play_out(ref, truth)
    assert ref.over and ref.result() == result_json(truth)


def test_camera_misread_at_the_deal_gives_way_to_the_card_reader() -> None:
    """The camera saw a layout card before the reader's answer and read it wrong; the reader named
    all four layout cards, so its card stands and play starts with the true layout."""
    deck = shuffled(standard_pack(), 3)
    layout, misread = deck[24:28], deck[40]
    ref = make_referee(rules="pagat", players=3, card_reader=True, dealer_machine=True)
    commands = [a for a in ref.start() if a["do"] in ("shuffle", "deal")]
    ref.handle(Input("device", "shuffled", data={"id": commands[0]["id"]}))
    for cmd, card in zip(commands[1:-1], deck, strict=False):
        ref.handle(Input("device", "dealt", str(card), data={"id": cmd["id"], "target": cmd["target"]}))
    for i, card in enumerate(layout[:3]):
        ref.handle(appeared(card, track=i))
    ref.handle(Input("table", "appeared", str(misread), "layout", track=3, candidates=((str(misread), 0.97),)))
    out = ref.handle(Input("device", "dealt", str(layout[3]), data={"id": commands[-1]["id"], "target": "layout"}))
    assert ref.phase is TablePhase.PLAY and ref.state is not None and sorted(ref.state.initial_layout) == sorted(layout)
    assert any(a["do"] == "say" and str(misread) in str(a["text"]) for a in out)


def test_reread_card_played_while_down_is_not_taken_for_a_known_one_by_its_runner_up() -> None:
    """Resume after kill: a card played to the layout while the controller was down is re-read
    before the layout card its runner-up names. A sure reading of a card that may be new is that
    card; matched by the runner-up, it would take the known card's place and the known card would
    then count as a play."""
    deck, card, _ = find(3, lambda st, seat, c, targets: not targets and len(st.layout) >= 3)
    ref = dealt_referee(deck)
    layout = sorted(ref.physical, key=lambda c: c.index)
    out = ref.handle(Input("control", "resync_begin"))
    out += ref.handle(appeared(card, track=50, candidates=((str(card), 0.97), (str(layout[0]), 0.01))))
    for i, known in enumerate(layout):
        out += ref.handle(appeared(known, track=51 + i, candidates=((str(known), 0.97),)))
    out += ref.handle(Input("control", "resync_end"))
    assert flags(out) == [] and ref.prompt is None
    assert ref.physical == {*layout, card} and ref.phase is TablePhase.FLIP


def test_a_correction_that_is_not_a_card_is_answered_not_raised() -> None:
    """Bad input gets a clear error and loses nothing: answering the referee's question with
    something that is not a card (a typo at the terminal) is said so; the question stays open."""
    deck, card, _ = find(3, lambda st, seat, c, targets: not targets and len(st.layout) >= 3)
    ref = dealt_referee(deck)
    assert ref.state is not None
    other = next(c for seat in range(3) for c in ref.state.hand(seat) or () if c != card)
    ref.handle(
        Input("table", "appeared", "unknown", "layout", track=77, candidates=((str(card), 0.5), (str(other), 0.45)))
    )
    assert ref.prompt is not None
    out = ref.handle(Input("terminal", "correct", "ZZ", seat=None))
    assert any(a["do"] == "say" and "'ZZ' is not a card" in str(a["text"]) for a in out)
    assert ref.prompt is not None and ref.overrides == []
    out = ref.handle(Input("terminal", "correct", str(card)))
    assert ref.prompt is None and card in ref.physical


def test_next_question_names_three_guesses_then_asks_the_suit() -> None:
    """The order of the questions about a card nobody has named yet (`referee_base.next_question`): the
    camera's guesses by name while fewer than three were refused; then the suit of the best card left,
    in the order of each suit's best card, while more than four cards of more than one suit remain;
    once a suit is settled, or one suit is left, names again."""
    left = ["7H", "8S", "7D", "9H", "2C", "3C"]
    assert next_question(left, 2) == ("7H", None, left[1:])
    assert next_question(left, 3) == (None, "H", left)
    assert next_question(left, 3, settled=True) == ("7H", None, left[1:])
    assert next_question(["7H", "9H", "2H", "3H", "4H", "5H"], 5) == ("7H", None, ["9H", "2H", "3H", "4H", "5H"])
    assert next_question(["7H", "8S", "7D", "9H"], 3) == ("7H", None, ["8S", "7D", "9H"])  # as few as names
    assert next_question([], 3) is None


def _unknown_card_asked(ref: ChineseTenReferee, card: Card) -> tuple[int, list[str]]:
    """A card laid on the layout reported `unknown` with three wrong guesses of other suits; the player
    to act refuses them by name. Returns the seat and the guesses."""
    assert ref.state is not None
    seat = ref.state.to_act
    assert seat is not None
    held = [str(c) for s in range(3) for c in ref.state.hand(s) or () if c != card]
    wrong = [c for c in held if c[-1] != str(card)[-1]][:3]
    out = ref.handle(
        Input(
            "table",
            "appeared",
            "unknown",
            "layout",
            track=91,
            candidates=tuple((w, 0.3 - 0.01 * k) for k, w in enumerate(wrong)),
        )
    )
    asked = [next(a for a in out if a["do"] == "prompt")["card"]]
    for _ in range(2):
        asked.append(next(a for a in ref.handle(press(seat, long=True)) if a["do"] == "prompt")["card"])
    assert asked == wrong
    return seat, wrong


def test_after_three_wrong_guesses_the_suit_is_asked_then_the_cards_of_that_suit() -> None:
    """A person names the card with buttons in a few presses: after the camera's three guesses the suit
    is asked (a "no" moves to the next suit, the override log says what was refused), then the cards of
    the confirmed suit, best first, until the card is confirmed and played."""
    deck, card, _ = find(3, lambda st, seat, c, targets: not targets and len(st.layout) >= 3)
    ref = dealt_referee(deck)
    seat, wrong = _unknown_card_asked(ref, card)
    out = ref.handle(press(seat, long=True))  # not the third guess either
    prompt = next(a for a in out if a["do"] == "prompt")
    assert prompt["suit"] is not None and prompt["card"] is None and "correct CARD" in str(prompt["text"])
    suits_asked = []
    while prompt["suit"] is not None:
        suits_asked.append(prompt["suit"])
        yes = prompt["suit"] == str(card)[-1]
        prompt = next(a for a in ref.handle(press(seat, long=not yes)) if a["do"] == "prompt")
    assert suits_asked[-1] == str(card)[-1] or len(suits_asked) == 3  # the last suit left is not asked
    names = []
    while True:
        assert str(prompt["card"])[-1] == str(card)[-1], prompt  # only cards of the card's suit now
        names.append(prompt["card"])
        if prompt["card"] == str(card):
            break
        prompt = next(a for a in ref.handle(press(seat, long=True)) if a["do"] == "prompt")
    assert len(set(names)) == len(names) and len(suits_asked) + len(names) <= 3 + 13
    ref.handle(press(seat))
    assert ref.prompt is None and card in ref.physical
    whats = [o["what"] for o in ref.overrides]
    assert whats[:3] == [f"not {w}" for w in wrong] and whats[-1] == f"the card is {card}"
    assert sum(w.startswith("not a ") for w in whats) == len(suits_asked) - (suits_asked[-1] == str(card)[-1])


def test_a_suit_question_is_answered_by_naming_the_card_at_the_terminal() -> None:
    """The suit prompt says the card can be named at the terminal; a correction there ends the
    questions at once."""
    deck, card, _ = find(3, lambda st, seat, c, targets: not targets and len(st.layout) >= 3)
    ref = dealt_referee(deck)
    seat, _ = _unknown_card_asked(ref, card)
    ref.handle(press(seat, long=True))
    assert ref.prompt is not None and ref.prompt.suit is not None
    ref.handle(Input("terminal", "correct", str(card)))
    assert ref.prompt is None and card in ref.physical


def test_no_to_every_question_gives_the_sighting_up_and_says_so() -> None:
    """People who refuse every suit asked (the last suit left is not asked) and every card of the last
    one leave no card it can be: the sighting is ignored with a message to check the table, nothing
    else changes, within 3 names + 3 suits + 13 names."""
    deck, card, _ = find(3, lambda st, seat, c, targets: not targets and len(st.layout) >= 3)
    ref = dealt_referee(deck)
    seat, _ = _unknown_card_asked(ref, card)
    layout = list(ref.state.layout) if ref.state is not None else []
    presses = 3
    while ref.prompt is not None:
        out = ref.handle(press(seat, long=True))
        presses += 1
        assert presses <= 3 + 3 + 13
    assert any(a["do"] == "say" and "ignored" in str(a["text"]) for a in out)
    assert ref.state is not None and list(ref.state.layout) == layout and card not in ref.physical


def test_ask_order_offers_possible_cards_first_and_never_a_label_that_is_not_a_card() -> None:
    """`recognition.ask_order`, shared by the three referees: the possible cards by their posterior; when none
    is possible, the card faces among the camera's candidates (Chinese Ten offered "unknown" itself there,
    which a press would have confirmed as a card that does not parse)."""
    from table.controller.recognition import ask_order, posterior

    candidates = (("unknown", 0.5), ("7H", 0.3), ("back", 0.1), ("8S", 0.1))
    assert ask_order(posterior(candidates, {"8S", "2C"}), candidates)[:2] == ["8S", "2C"]
    assert ask_order(posterior(candidates, set()), candidates) == ["7H", "8S"]
    assert ask_order([], candidates, faces={"8S"}) == ["8S"]
