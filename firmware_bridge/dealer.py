"""The dealer machine as a device object: ``Dealer.open(url)``, ``shuffle()``, ``deal(...)``, ``status()``.

Results the players can act on (hopper empty, jam, door open, a reboot mid-deal) come back as
:class:`DealResult` values with a code and a reason, not exceptions; ``result.check()`` raises
:class:`DealError` for callers who prefer that. A lost or dead link raises :class:`LinkError`.
Device events arrive on ``dealer.events`` (a queue) and at listeners added with ``add_listener``,
called from one dispatcher thread so a slow listener never stalls the link.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge.backends import Backend, resolve
from firmware_bridge.errors import DeviceError, FrameError, LinkError, ProtocolError, RequestError
from firmware_bridge.framing import Frame
from firmware_bridge.link import Link, LinkStats, NoFinalReply, RebootedWhileWaiting
from firmware_bridge.messages import (
    CARD_UNKNOWN,
    CARD_UNREADABLE,
    CardDealt,
    DealRequest,
    ErrorCode,
    Face,
    Failed,
    HelloInfo,
    LedRequest,
    MsgType,
    Pattern,
    StatusInfo,
    Target,
    Timing,
    card_from_code,
    decode_codes,
    is_card_code,
)
from table.cards import Card

REASONS = {
    ErrorCode.OK: "done",
    ErrorCode.HOPPER_EMPTY: "the hopper is empty: load cards",
    ErrorCode.JAM: "a card is stuck at the exit: open the door and clear it",
    ErrorCode.MISFEED: "no card left the hopper: check the feed wheel",
    ErrorCode.NOT_HOMED: "the machine is not homed",
    ErrorCode.DOOR_OPEN: "the door is open: close it",
    ErrorCode.BUSY: "the machine is busy with another command",
    ErrorCode.BAD_REQUEST: "the device refused the command as malformed",
    ErrorCode.STALE_BOOT: "the device rebooted before it could act on the command",
    ErrorCode.ABORTED: "stopped on request",
    ErrorCode.HOST_SILENT: "the device stopped its motors: the host went quiet",
    ErrorCode.DEVICE_REBOOTED: "the device rebooted in the middle of the command",
    ErrorCode.STALE_REQUEST: "the device refused a request id it had already acted on (not acted on again)",
    ErrorCode.TIMED_OUT: "no result in the time the command needs: the host stopped the machine",
    ErrorCode.HOMING_FAILED: "homing failed: service the carousel",
    ErrorCode.MOTOR_FAULT: "motor fault: service the machine",
    ErrorCode.INTERNAL: "internal device error",
}


# After giving up on a command, how long the host keeps asking what became of it: the answer is what
# says how many cards went out, so it is worth more patience than an ordinary reply.
SETTLE_TIMEOUTS = 3
MIN_SETTLE_S = 5.0

# What the host assumes of a device that does not state its times (HELLO_INFO without them).
UNSTATED_TIMING = Timing(card_ms=1000, move_ms=10000, shuffle_ms=30000)


# The most the host believes of a device's stated times: a machine that says a card takes a minute
# would otherwise keep a 52-card deal waiting for the best part of an hour.
MOST_BELIEVED = Timing(card_ms=10_000, move_ms=30_000, shuffle_ms=120_000)


def _believable(stated: Timing | None) -> Timing:
    if stated is None:
        return UNSTATED_TIMING
    return Timing(
        min(stated.card_ms, MOST_BELIEVED.card_ms),
        min(stated.move_ms, MOST_BELIEVED.move_ms),
        min(stated.shuffle_ms, MOST_BELIEVED.shuffle_ms),
    )


class DealError(DeviceError):
    """A command the device could not complete: ``code`` (ErrorCode), ``recoverable``, ``result``."""

    def __init__(self, message: str, code: ErrorCode, result: DealResult | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.recoverable = code.recoverable
        self.result = result


class DealInterrupted(LinkError):
    """The link was lost during a deal; ``dealt`` holds the cards reported before it went."""

    def __init__(self, message: str, dealt: tuple[DealtCard, ...]) -> None:
        super().__init__(message)
        self.dealt = dealt


# ---- values -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    protocol: int
    firmware: tuple[int, int, int]
    card_reader: bool
    seats: int
    leds: int
    boot_id: int

    @classmethod
    def from_hello(cls, hello: HelloInfo) -> DeviceInfo:
        return cls(hello.protocol, hello.firmware, hello.card_reader, hello.seats, hello.leds, hello.boot_id)


@dataclass(frozen=True, slots=True)
class DeviceStatus:
    hopper: int
    homed: bool
    door_open: bool
    busy: bool
    last_error: ErrorCode
    position: int


@dataclass(frozen=True, slots=True)
class DealtCard:
    number: int  # 1-based within its DEAL
    target: Target
    face: Face
    card: Card | None  # None when the device does not read cards (or could not read this one)
    unreadable: bool = False

    @property
    def code(self) -> int:
        """The card's code on the wire: its index, CARD_UNREADABLE or CARD_UNKNOWN."""
        if self.card is not None:
            return self.card.index
        return CARD_UNREADABLE if self.unreadable else CARD_UNKNOWN


@dataclass(frozen=True, slots=True)
class DealResult:
    target: Target
    face: Face
    requested: int
    dealt: tuple[DealtCard, ...]
    code: ErrorCode = ErrorCode.OK
    reason: str = "done"
    # After a reboot: cards in the hopper once re-homed. A card can leave the machine in the instant
    # the board dies, before it is reported; compare with the count before the deal to find it.
    hopper_after: int | None = None

    @property
    def ok(self) -> bool:
        return self.code is ErrorCode.OK

    @property
    def cards(self) -> list[Card | None]:
        return [d.card for d in self.dealt]

    def check(self) -> DealResult:
        """Return self when every card was dealt, else raise :class:`DealError`."""
        if not self.ok:
            raise DealError(
                f"deal to {self.target} stopped after {len(self.dealt)} of {self.requested}: {self.reason}",
                self.code,
                self,
            )
        return self


# events -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardDealtEvent:
    request: int
    dealt: DealtCard


@dataclass(frozen=True, slots=True)
class JamEvent:
    code: ErrorCode
    position: int


@dataclass(frozen=True, slots=True)
class HopperEmptyEvent:
    pass


@dataclass(frozen=True, slots=True)
class DoorEvent:
    open: bool


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    seat: int
    long: bool


@dataclass(frozen=True, slots=True)
class BootEvent:
    info: DeviceInfo


@dataclass(frozen=True, slots=True)
class LinkEvent:
    """``state``: "lost", "connected", "rebooted", "recovered", "silent" or "alive"."""

    state: str
    reason: str


DealerEvent = CardDealtEvent | JamEvent | HopperEmptyEvent | DoorEvent | ButtonEvent | BootEvent | LinkEvent


# ---- the device object ------------------------------------------------------------------------


@dataclass
class _Listeners:
    callbacks: list[Callable[[DealerEvent], None]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Dealer:
    """A card dealer machine with seat LEDs. Open with :meth:`open`; close with ``close()`` or ``with``."""

    def __init__(
        self,
        backend: Backend,
        *,
        timeout: float = 2.0,
        home: bool = True,
        heartbeat_s: float = 1.0,
        settle_s: float | None = None,
    ) -> None:
        self.backend = backend
        self.timeout = timeout
        # after giving up on a command, how long to keep asking what became of it
        self.settle_s = max(SETTLE_TIMEOUTS * timeout, MIN_SETTLE_S) if settle_s is None else settle_s
        self.events: queue.Queue[DealerEvent] = queue.Queue(maxsize=10000)
        self._listeners = _Listeners()
        self._dispatch: queue.SimpleQueue[DealerEvent | None] = queue.SimpleQueue()
        self._dispatcher = threading.Thread(target=self._dispatch_loop, name="dealer-events", daemon=True)
        self._dispatcher.start()
        self._command_lock = threading.RLock()
        self._needs_recovery = False
        self._needs_hello = False
        self.info: DeviceInfo | None = None
        self.timing = UNSTATED_TIMING
        self.last_status: DeviceStatus | None = None
        try:
            self.link = Link(
                backend.url,
                opener=backend.opener,
                on_event=self._on_frame,
                on_state=self._on_state,
                heartbeat_s=heartbeat_s,
            )
        except BaseException:
            self._dispatch.put(None)
            backend.close()
            raise
        try:
            self.hello()
            if home and not self.status().homed:
                self.home()
        except BaseException:
            self.close()
            raise

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        backend: str | Backend | None = None,
        timeout: float = 2.0,
        home: bool = True,
        settle_s: float | None = None,
        **sim_options: Any,
    ) -> Dealer:
        """Open a dealer: ``Dealer.open("/dev/ttyACM0")``, ``Dealer.open(backend="sim", seats=3)``.

        ``sim_options`` go to :class:`~firmware_bridge.simulator.Simulator` for the sim and mock backends.
        """
        chosen = resolve(url, backend, **sim_options)
        try:
            return cls(chosen, timeout=timeout, home=home, settle_s=settle_s)
        except BaseException:
            chosen.close()
            raise

    @property
    def simulator(self) -> Any:
        """The simulated machine behind a ``sim`` or ``mock`` backend (None for a real one)."""
        return self.backend.simulator

    @property
    def stats(self) -> LinkStats:
        return self.link.stats

    @property
    def connected(self) -> bool:
        return self.link.connected

    def close(self) -> None:
        self.link.close()
        self._dispatch.put(None)
        self._dispatcher.join(timeout=2)
        self.backend.close()

    def __enter__(self) -> Dealer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- events ---------------------------------------------------------------------------------
    def add_listener(self, callback: Callable[[DealerEvent], None]) -> None:
        with self._listeners.lock:
            self._listeners.callbacks.append(callback)

    def remove_listener(self, callback: Callable[[DealerEvent], None]) -> None:
        with self._listeners.lock, contextlib.suppress(ValueError):
            self._listeners.callbacks.remove(callback)

    def _emit(self, event: DealerEvent) -> None:
        with contextlib.suppress(queue.Full):  # nobody drains the queue: listeners still hear it
            self.events.put_nowait(event)
        self._dispatch.put(event)

    def _dispatch_loop(self) -> None:
        while (event := self._dispatch.get()) is not None:
            with self._listeners.lock:
                callbacks = list(self._listeners.callbacks)
            for callback in callbacks:
                try:
                    callback(event)
                except Exception:  # a listener's bug must not stop the others
                    logging.getLogger(__name__).exception("dealer event listener failed")

    def _on_frame(self, frame: Frame) -> None:
        """Unsolicited frames from the reader thread: turn them into events."""
        try:
            t = frame.type
            if t == MsgType.BOOT:
                info = DeviceInfo.from_hello(HelloInfo.decode(frame.payload, frame.boot))
                self._emit(BootEvent(info))
            elif t == MsgType.JAM:
                code = ErrorCode(frame.payload[0]) if frame.payload else ErrorCode.JAM
                self._emit(JamEvent(code, frame.payload[1] if len(frame.payload) > 1 else 255))
            elif t == MsgType.HOPPER_EMPTY:
                self._emit(HopperEmptyEvent())
            elif t == MsgType.DOOR and frame.payload:
                self._emit(DoorEvent(bool(frame.payload[0])))
            elif t == MsgType.BUTTON and len(frame.payload) >= 2:
                self._emit(ButtonEvent(frame.payload[0], frame.payload[1] == 2))
        except (FrameError, ValueError, IndexError):
            pass  # a well-framed but meaningless event: ignore it, as a bad frame would be

    def _on_state(self, state: str, reason: str) -> None:
        if state == "rebooted":
            self._needs_recovery = True
        elif state == "connected":
            self._needs_hello = True
        self._emit(LinkEvent(state, reason))

    # ---- commands -------------------------------------------------------------------------------
    def _request(self, mtype: MsgType, payload: bytes = b"", *, limit: float | None = None) -> Frame:
        return self.link.request(mtype, payload, timeout=self.timeout, limit=limit).final

    def _prepare(self) -> None:
        """Before an action: after a reconnect or a reboot, re-read the device and re-home it."""
        copies = self.link.reply_copies_due
        if copies is not None:
            self.link.reply_copies_due = None
            with contextlib.suppress(LinkError):
                self._request(MsgType.CONFIG, bytes([copies]))
        if self._needs_hello:
            self._needs_hello = False
            self.link.reply_copies_due = self.link.copies if self.link.copies > 1 else None
            self.hello()
        if self._needs_recovery:
            self.recover()

    def recover(self) -> DeviceStatus:
        """After a reboot: HELLO, HOME, then STATUS to re-read the hopper count."""
        with self._command_lock:
            self._needs_recovery = False
            try:
                self.hello()
                if self.link.copies > 1:
                    self._request(MsgType.CONFIG, bytes([self.link.copies]))
                self.home()
                status = self.status()
            except BaseException:
                self._needs_recovery = True
                raise
            self._emit(LinkEvent("recovered", f"re-homed; {status.hopper} cards in the hopper"))
            return status

    def hello(self) -> DeviceInfo:
        frame = self._request(MsgType.HELLO)
        if frame.type != MsgType.HELLO_INFO:
            raise ProtocolError(f"HELLO answered with {_type_name(frame.type)}, not HELLO_INFO")
        try:
            hello = HelloInfo.decode(frame.payload, frame.boot)
        except FrameError as exc:
            raise ProtocolError(f"HELLO_INFO that cannot be read: {exc}") from None
        self.info = DeviceInfo.from_hello(hello)
        self.timing = _believable(hello.timing)
        self.link.answers_query = hello.answers_query
        self.link.resync_ids(hello.newest_request)
        return self.info

    def limit(self, mtype: MsgType, count: int = 0) -> float:
        """The most seconds ``mtype`` (of ``count`` cards) may take: what the device states the work takes,
        a quarter more, plus ``timeout`` for the wire. A command past it is stopped and accounted for."""
        t = self.timing
        work_ms = {
            MsgType.HOME: t.move_ms,
            MsgType.SHUFFLE: t.shuffle_ms,
            MsgType.DEAL: t.move_ms + count * t.card_ms,
        }.get(mtype, 0)
        return 1.25 * work_ms / 1000 + self.timeout

    def status(self) -> DeviceStatus:
        frame = self._request(MsgType.STATUS)
        if frame.type != MsgType.STATUS_INFO:
            raise ProtocolError(f"STATUS answered with {_type_name(frame.type)}, not STATUS_INFO")
        s = StatusInfo.decode(frame.payload)
        self.last_status = DeviceStatus(s.hopper, s.homed, s.door_open, s.busy, s.last_error, s.position)
        return self.last_status

    def _action(self, mtype: MsgType, payload: bytes = b"") -> Frame:
        with self._command_lock:
            self._prepare()
            return self._long(mtype, payload)

    def _long(self, mtype: MsgType, payload: bytes = b"") -> Frame:
        """HOME or SHUFFLE: their final reply, or :class:`DealError` saying why there is none."""
        try:
            frame = self._request(mtype, payload, limit=self.limit(mtype))
        except RebootedWhileWaiting as exc:
            self._recover_quietly()
            raise DealError(f"{mtype.name}: {exc}", ErrorCode.DEVICE_REBOOTED) from None
        except NoFinalReply as exc:
            settled = self._settle(exc, mtype)
            if settled is None:
                raise DealError(f"{mtype.name}: {exc}; the device never acted on it", ErrorCode.TIMED_OUT) from None
            frame = settled
            if frame.type == MsgType.FAILED:
                failed = Failed.decode(frame.payload)
                code = ErrorCode.TIMED_OUT if failed.code is ErrorCode.ABORTED else failed.code
                raise DealError(f"{mtype.name}: {exc}; {REASONS.get(code, code.name)}", code) from None
        if frame.type == MsgType.FAILED:
            failed = Failed.decode(frame.payload)
            raise DealError(f"{mtype.name} failed: {REASONS.get(failed.code, failed.code.name)}", failed.code)
        if frame.type != MsgType.DONE:
            raise ProtocolError(f"{mtype.name} answered with {_type_name(frame.type)}, not DONE or FAILED")
        return frame

    def _settle(self, exc: NoFinalReply, mtype: MsgType) -> Frame | None:
        """After giving up on a long command: stop the machine (it may still be at it), then ask the device
        what became of the command. Returns its final reply (DONE, or FAILED with the cards dealt before),
        or None when the device never acted on it (and never will). Raises :class:`NoFinalReply` or
        :class:`LinkError` when the device cannot say."""
        try:
            self.stop()
        except LinkError:
            pass  # the query below says whether it matters, and stops it again while it runs
        try:
            return self.link.outcome(
                exc.request,
                mtype,
                timeout=self.settle_s,
                on_running=lambda: self.link.send(MsgType.STOP),
            )
        except LinkError as why:
            raise NoFinalReply(f"{exc}; {why}", exc.request, accepted=exc.accepted, progress=exc.progress) from None

    def home(self) -> None:
        """Find the carousel's zero position (HOME); raises :class:`DealError` if it fails."""
        with self._command_lock:
            self._long(MsgType.HOME)

    def shuffle(self) -> int:
        """Shuffle the hopper; returns the number of cards in it."""
        frame = self._action(MsgType.SHUFFLE)
        codes = decode_codes(frame.payload, "SHUFFLE") if frame.payload else ()
        return codes[0] if codes else self.status().hopper

    def stop(self) -> None:
        """Stop every motor now; a running command fails with ABORTED."""
        self._request(MsgType.STOP)

    def set_led(self, seat: int, colour: tuple[int, int, int], pattern: Pattern | str = Pattern.SOLID) -> None:
        """Raw LED control: ``seat`` 1..N or 0 for every seat, an RGB colour and a pattern."""
        try:
            p = pattern if isinstance(pattern, Pattern) else Pattern[str(pattern).upper()]
        except KeyError:
            names = ", ".join(x.name.lower() for x in Pattern)
            raise RequestError(f"LED pattern must be one of {names}, not {pattern!r}") from None
        if self.info is not None and not 0 <= seat <= self.info.seats:
            raise RequestError(f"seat {seat}: the machine has {self.info.seats} seats (0 addresses every seat)")
        frame = self._request(MsgType.LED, LedRequest(seat, p, colour).encode())
        if frame.type == MsgType.FAILED:
            failed = Failed.decode(frame.payload)
            raise DealError(f"LED command refused: {REASONS.get(failed.code, failed.code.name)}", failed.code)

    def deal(self, target: str | Target, count: int = 1, face: str | Face = "down") -> DealResult:
        """Deal ``count`` cards to ``target`` (``seat:2``, ``widow``, ``layout``, ``stock``...).

        Returns what was dealt, in order, with each card's identity when the device reads cards.
        Retries never deal twice: the device answers a repeated request id from memory.
        """
        t = Target.parse(target)
        f = Face.parse(face)
        if self.info is not None and t.kind == 0 and t.index > self.info.seats:
            raise RequestError(f"{t}: the machine has {self.info.seats} seats")
        payload = DealRequest(t, count, f).encode()
        progress: dict[int, DealtCard] = {}

        lies: list[str] = []  # progress that cannot be right: the deal's result is not trusted

        def on_progress(frame: Frame) -> None:
            try:
                cd = CardDealt.decode(frame.payload)
            except FrameError:
                return
            if not (1 <= cd.number <= count and cd.total == count and cd.target == t and cd.face == f):
                lies.append(f"CARD_DEALT {cd.number} of {cd.total} to {cd.target} for a deal of {count} to {t}")
            elif not is_card_code(cd.code):
                lies.append(f"CARD_DEALT with card code {cd.code}, outside the protocol")
            elif cd.number not in progress:
                dealt = DealtCard(cd.number, cd.target, cd.face, card_from_code(cd.code), cd.code == CARD_UNREADABLE)
                progress[cd.number] = dealt
                self._emit(CardDealtEvent(frame.request, dealt))

        with self._command_lock:
            self._prepare()
            try:
                frame = self.link.request(
                    MsgType.DEAL,
                    payload,
                    timeout=self.timeout,
                    limit=self.limit(MsgType.DEAL, count),
                    on_progress=on_progress,
                ).final
            except RebootedWhileWaiting as exc:
                dealt = tuple(progress[n] for n in sorted(progress))
                after, hopper = self._recover_quietly()
                return DealResult(t, f, count, dealt, ErrorCode.DEVICE_REBOOTED, f"{exc}; {after}", hopper)
            except NoFinalReply as exc:
                return self._deal_settled(exc, t, f, count, progress, lies)
            except LinkError as exc:
                raise DealInterrupted(f"deal to {t}: {exc}", tuple(progress[n] for n in sorted(progress))) from exc
            return self._deal_result(frame, t, f, count, progress, lies)

    def _deal_result(
        self,
        frame: Frame,
        t: Target,
        f: Face,
        count: int,
        progress: dict[int, DealtCard],
        lies: list[str],
        why: str = "",
    ) -> DealResult:
        """The result of a DEAL from its final reply, checked against the progress heard."""
        if lies:
            raise ProtocolError(f"deal to {t}: {lies[0]}")
        if frame.type == MsgType.DONE:
            codes = _checked_cards(decode_codes(frame.payload, "DONE"), count, progress, exact=True)
            return DealResult(t, f, count, self._dealt(codes, t, f))
        if frame.type == MsgType.FAILED:
            failed = Failed.decode(frame.payload)
            _checked_cards(failed.cards, count, progress, exact=False)
            code = ErrorCode.DEVICE_REBOOTED if failed.code is ErrorCode.STALE_BOOT else failed.code
            dealt = self._dealt(failed.cards, t, f)
            if code is ErrorCode.DEVICE_REBOOTED:
                dealt = tuple(progress[n] for n in sorted(progress))
                after, hopper = self._recover_quietly()
                return DealResult(t, f, count, dealt, code, f"{REASONS[code]}; {after}", hopper)
            if why and code is ErrorCode.ABORTED:  # stopped by the host when the time ran out
                code = ErrorCode.TIMED_OUT
            reason = REASONS.get(code, code.name)
            if code is ErrorCode.TIMED_OUT:
                reason = f"{why}; the host stopped the machine after {len(dealt)} of {count} cards"
            elif why:
                reason = f"{reason} ({why})"
            return DealResult(t, f, count, dealt, code, reason)
        raise ProtocolError(f"DEAL answered with {_type_name(frame.type)}, not DONE or FAILED")

    def _deal_settled(
        self,
        exc: NoFinalReply,
        t: Target,
        f: Face,
        count: int,
        progress: dict[int, DealtCard],
        lies: list[str],
    ) -> DealResult:
        """No final reply in time: stop the machine and ask what became of the deal, so the result says
        exactly how many cards went out; DealInterrupted (with the cards reported) when the device cannot say."""
        try:
            final = self._settle(exc, MsgType.DEAL)
        except LinkError as why:
            reported = tuple(progress[n] for n in sorted(progress))
            raise DealInterrupted(
                f"deal to {t}: {why}; {len(reported)} of {count} cards reported dealt, "
                "the device did not say how many went out",
                reported,
            ) from None
        if final is None:
            return DealResult(
                t, f, count, (), ErrorCode.TIMED_OUT, f"{exc}; the device never acted on it: no card went out"
            )
        return self._deal_result(final, t, f, count, progress, lies, why=str(exc))

    @staticmethod
    def _dealt(codes: tuple[int, ...], target: Target, face: Face) -> tuple[DealtCard, ...]:
        return tuple(
            DealtCard(n, target, face, card_from_code(code), code == CARD_UNREADABLE)
            for n, code in enumerate(codes, start=1)
        )

    def _recover_quietly(self) -> tuple[str, int | None]:
        try:
            status = self.recover()
        except (LinkError, DeviceError) as exc:
            return f"recovery pending ({exc})", None
        return f"re-homed; {status.hopper} cards in the hopper", status.hopper


def _type_name(mtype: int) -> str:
    try:
        return MsgType(mtype).name
    except ValueError:
        return f"type {mtype:#04x}"


def _checked_cards(
    codes: tuple[int, ...], count: int, progress: dict[int, DealtCard], *, exact: bool
) -> tuple[int, ...]:
    """The card codes of a DEAL's final reply, refused as a :class:`ProtocolError` when they cannot be
    right: more cards than asked (or, for DONE, fewer), codes outside the protocol, or a card other than
    the one its CARD_DEALT reported."""
    if len(codes) > count or (exact and len(codes) != count):
        raise ProtocolError(
            f"the device says it dealt {len(codes)} of {count} cards: a DEAL reply that cannot be right"
        )
    bad = [code for code in codes if not is_card_code(code)]
    if bad:
        raise ProtocolError(f"DEAL reply with card codes outside the protocol: {', '.join(map(str, bad))}")
    for number, code in enumerate(codes, start=1):
        seen = progress.get(number)
        if seen is not None and seen.code != code:
            raise ProtocolError(f"card {number} reported as code {seen.code}, then as {code} in the final reply")
    return codes
