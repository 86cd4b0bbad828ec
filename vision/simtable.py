"""A simulated card table seen through a camera: the camera of the demo and of end-to-end tests.

The table holds the printed mat and physical cards (card code, mat position in mm, rotation, face
up or down, stacking order). :meth:`SimTable.render` draws them as a camera sees them: perspective
(tilt, yaw, roll), a lighting gradient, sensor noise, optional blur. Scripted actions (place a card,
take a pair to a capture pile, flip the stock, gather a trick, turn a card over) are queued and
played out frame by frame by :meth:`SimTable.next_frame`: a skin-coloured hand reaches in from the
acting seat's side, covers the card while the change happens, and withdraws.

Each action also records the table events a perfect observer would report (``Action.expected``), so
tests and benchmarks can score the tracker against the truth.

Rendering is cached: the table without hands is rebuilt only when a card changes (each card's
warped image is cached too), so a frame costs a copy, the hand polygons and the noise.
"""

from __future__ import annotations

import math
import random
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.camera import SimSource, flag_option, number_option
from vision.events import BACK, UNKNOWN
from vision.faces import render_back, render_face
from vision.mat import draw_mat
from vision.zones import Layout

Snapshot = list[tuple[int, str, str | None, float, float, int]]  # id, label, zone, x, y, order
PILE_MM = 20.0  # cards whose centres are closer than this form one pile
SKIN_TONES = ((150, 178, 228), (118, 150, 205), (92, 128, 180), (62, 92, 138))  # BGR
_FACE_PX_PER_MM = 3.0


@dataclass(frozen=True)
class SimCamera:
    """A pinhole camera looking at the mat's centre. ``tilt_deg`` leans it toward seat 1's edge
    (0 = straight down); ``yaw_deg`` turns the view about the table's vertical; ``roll_deg`` turns
    the image. The mat is scaled to fill ``fill`` of the frame."""

    width: int = 1280
    height: int = 720
    tilt_deg: float = 15.0
    yaw_deg: float = 0.0
    roll_deg: float = 0.0
    fov_deg: float = 55.0
    fill: float = 0.96
    shift_px: tuple[float, float] = (0.0, 0.0)

    def mat_to_image(self, layout: Layout) -> np.ndarray:
        w, h = layout.width_mm, layout.height_mm
        t, yaw, roll = (math.radians(v) for v in (self.tilt_deg, self.yaw_deg, self.roll_deg))
        dist = 1.2 * max(w, h)
        centre = dist * np.array([0.0, math.sin(t), -math.cos(t)])
        z = -centre / np.linalg.norm(centre)
        x = np.array([1.0, 0.0, 0.0])
        y = np.cross(z, x)
        rot = np.stack([x, y, z])
        cy, sy = math.cos(yaw), math.sin(yaw)
        rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])  # turn the world about the vertical
        rot = rot @ rz
        cr, sr = math.cos(roll), math.sin(roll)
        rot = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]]) @ rot
        centre = rz.T @ centre
        f = 0.5 * self.width / math.tan(math.radians(self.fov_deg) / 2)
        k = np.array([[f, 0, 0], [0, f, 0], [0, 0, 1.0]])
        tvec = -rot @ centre
        hom = k @ np.column_stack([rot[:, 0], rot[:, 1], tvec])
        hom = hom @ np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1.0]])
        corners = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64), hom)[0]
        lo, hi = corners.min(0), corners.max(0)
        scale = self.fill * min(self.width / (hi[0] - lo[0]), self.height / (hi[1] - lo[1]))
        mid = (lo + hi) / 2
        fit = np.array(
            [
                [scale, 0, self.width / 2 - scale * mid[0] + self.shift_px[0]],
                [0, scale, self.height / 2 - scale * mid[1] + self.shift_px[1]],
                [0, 0, 1.0],
            ]
        )
        out: np.ndarray = fit @ hom
        out /= out[2, 2]
        return out


def default_camera(layout: Layout) -> SimCamera:
    """1280x720 for mats up to A2; 1920x1080 for the big cloths, where a 720p camera would see
    cards only about 70 px wide (too small to name reliably; see docs/zones.md)."""
    if layout.width_mm > 700:
        return SimCamera(width=1920, height=1080)
    return SimCamera()


@dataclass
class SimCard:
    id: int
    card: str  # "QH"
    x: float  # centre on the mat, mm
    y: float
    angle: float  # degrees, counter-clockwise
    face_up: bool
    zone: str | None
    order: int  # stacking: higher lies on top

    @property
    def label(self) -> str:
        return self.card if self.face_up else BACK


@dataclass(frozen=True)
class ExpectedEvent:
    """What a perfect observer reports for an action (same vocabulary as :mod:`vision.events`)."""

    kind: str  # "appeared" | "removed" | "moved" | "turned_over"
    card: str  # visible label after the event ("back" for a face-down card)
    zone: str | None
    from_zone: str | None = None


@dataclass
class Action:
    """A queued scripted change. ``expected`` and the frame indices are filled in as it plays."""

    name: str
    seat: int | None
    card_ids: tuple[int, ...] = ()
    expected: list[ExpectedEvent] = field(default_factory=list)
    first_frame: int = -1
    settled_frame: int = -1  # first frame with the final table and no hand in view
    hand_frames: int = 0  # frames with the hand in view (counted as they are rendered)
    changes_left: int = 0
    total_frames: int = 0


@dataclass(frozen=True)
class SimFrame:
    image: np.ndarray
    index: int
    timestamp: float  # simulated seconds: index / fps
    hand: bool  # a hand is in view (some of it inside the frame)
    finished: tuple[Action, ...] = ()  # actions whose table became final and clear at this frame


@dataclass
class _Plan:
    """One frame of an action: where the hand is and which state change happens before drawing."""

    hand: tuple[float, float] | None  # palm centre, mm
    entry: tuple[float, float] | None
    change: Callable[[], None] | None = None
    action: Action | None = None
    last: bool = False


class SimTable:
    """The simulated table. Card positions are mat millimetres; zones come from ``layout``."""

    def __init__(
        self,
        layout: Layout,
        *,
        seed: int = 0,
        camera: SimCamera | None = None,
        fps: float = 15.0,
        noise: float = 3.0,
        blur: float = 0.0,
        light: float = 0.25,
        face_style: int = 0,
        back_style: int = 0,
        jitter_mm: float = 1.5,
        jitter_deg: float = 2.5,
        approach_frames: int = 3,
        hold_frames: int = 2,
        retreat_frames: int = 3,
        settle_frames: int = 6,
        skin: int | None = None,
    ) -> None:
        self.layout = layout
        self.camera = camera or default_camera(layout)
        self.fps = fps
        self.rng = random.Random(seed)
        self._np_rng = np.random.default_rng(seed % 2**32)
        self.face_style, self.back_style = face_style, back_style
        self.jitter_mm, self.jitter_deg = jitter_mm, jitter_deg
        self.approach_frames, self.hold_frames = approach_frames, hold_frames
        self.retreat_frames, self.settle_frames = retreat_frames, settle_frames
        self.blur = blur
        self.skin = SKIN_TONES[skin if skin is not None else self.rng.randrange(len(SKIN_TONES))]
        self.mat_to_image = self.camera.mat_to_image(layout)
        self.cards: dict[int, SimCard] = {}
        self._next_id = 1
        self._order = 0
        self._lock = threading.RLock()
        self._queue: deque[_Plan] = deque()
        self._in_hand: dict[int, SimCard] = {}  # cards lifted by a hand, between two frames
        self._before: Snapshot = []
        self._frame_index = 0
        self._idle_since_action: Action | None = None
        self._static: np.ndarray | None = None
        self._patches: dict[tuple[int, float, float, float, bool], tuple[int, int, np.ndarray, np.ndarray]] = {}
        self._light = self._light_map(light)
        self._base = self._render_base()
        self._noise = self._noise_patterns(noise)

    def set_camera(self, camera: SimCamera) -> None:
        """Move the camera (a nudge, a bumped tripod): the next frames show the new view."""
        with self._lock:
            self.camera = camera
            self.mat_to_image = camera.mat_to_image(self.layout)
            self._patches.clear()
            self._static = None
            if (camera.height, camera.width) != self._light.shape:
                self._light = self._light_map(0.25)
            self._base = self._render_base()

    # --- state ---------------------------------------------------------------------------------------

    def _new_card(self, card: str, x: float, y: float, angle: float, face_up: bool, zone: str | None) -> SimCard:
        c = SimCard(self._next_id, card, x, y, angle, face_up, zone, self._bump())
        self._next_id += 1
        self.cards[c.id] = c
        self._static = None
        return c

    def _bump(self) -> int:
        self._order += 1
        return self._order

    def _pose_in(self, zone: str, slot: int | None, *, exclude: Iterable[int] = ()) -> tuple[float, float, float]:
        z = self.layout.zone(zone)
        skip = set(exclude)
        taken = [c for c in self.cards.values() if c.id not in skip]
        if slot is None:
            if z.kind in ("capture", "stock", "discard") or not z.slots:  # piles stack on one spot
                slot = 0
            else:
                free = [
                    i
                    for i, s in enumerate(z.slots)
                    if not any(math.hypot(c.x - s.x, c.y - s.y) < PILE_MM for c in taken)
                ]
                slot = free[0] if free else len(z.slots) - 1
        if z.slots:
            s = z.slots[slot % len(z.slots)]
            x, y, a = s.x, s.y, s.angle
        else:
            x, y = z.centre
            a = 0.0
        jx, jy = (self.rng.uniform(-1, 1) * self.jitter_mm for _ in range(2))
        return x + jx, y + jy, a + self.rng.uniform(-1, 1) * self.jitter_deg

    def lay(self, card: str, x: float, y: float, angle: float = 0.0, *, face_up: bool = True) -> int:
        """Put ``card`` at mat position (``x``, ``y``) mm, turned ``angle`` degrees, in no zone, at once (no hand).
        Returns the card id."""
        with self._lock:
            return self._new_card(card, x, y, angle, face_up, None).id

    def card_in(self, zone: str) -> list[SimCard]:
        """Cards lying in ``zone``, bottom first."""
        with self._lock:
            return sorted((c for c in self.cards.values() if c.zone == zone), key=lambda c: c.order)

    def visible(self) -> list[SimCard]:
        """The top card of every pile (what a camera can see)."""
        with self._lock:
            tops: list[SimCard] = []
            for c in sorted(self.cards.values(), key=lambda c: -c.order):
                if not any(math.hypot(c.x - t.x, c.y - t.y) < PILE_MM for t in tops):
                    tops.append(c)
            return tops

    # --- scripted actions (queued; played by next_frame) ---------------------------------------------

    def place(
        self,
        card: str,
        zone: str,
        *,
        face_up: bool = True,
        slot: int | None = None,
        seat: int | None = None,
        animate: bool = True,
    ) -> int:
        """Put ``card`` into ``zone`` (next free slot, or on the zone's pile). Returns the card id.
        With ``animate`` a hand brings it in over the next frames; otherwise it is there at once."""
        with self._lock:
            cid = self._next_id
            self._next_id += 1

            def change() -> None:
                x, y, a = self._pose_in(zone, slot)
                c = SimCard(cid, card, x, y, a, face_up, zone, self._bump())
                self.cards[cid] = c
                self._static = None

            if not animate:
                change()
                return cid
            target = self._slot_centre(zone, slot)
            self._enqueue(Action("place", seat, (cid,)), [(target, change)], seat)
            return cid

    def move(
        self,
        card_id: int,
        zone: str,
        *,
        face_up: bool | None = None,
        slot: int | None = None,
        seat: int | None = None,
        animate: bool = True,
    ) -> None:
        """Carry a card to another zone (optionally turning it)."""
        self.take([card_id], zone, face_up=face_up, slot=slot, seat=seat, animate=animate, name="move")

    def take(
        self,
        card_ids: Sequence[int],
        to_zone: str | None,
        *,
        face_up: bool | None = False,
        slot: int | None = None,
        seat: int | None = None,
        animate: bool = True,
        name: str = "take",
    ) -> None:
        """Pick up the cards one after the other and lay them on ``to_zone``'s pile (a capture:
        the played card and its partner to the seat's capture pile, face down by default), or off
        the table when ``to_zone`` is None."""
        with self._lock:
            ids = tuple(card_ids)
            for cid in ids:
                self._require(cid)
            steps: list[tuple[tuple[float, float], Callable[[], None]]] = []
            for cid in ids:
                steps.append(((self.cards[cid].x, self.cards[cid].y), self._lift(cid)))
            if to_zone is not None:
                steps.append((self._slot_centre(to_zone, slot), self._drop(ids, to_zone, face_up, slot)))
            if not animate:
                for _, ch in steps:
                    ch()
                return
            self._enqueue(Action(name, seat, ids), steps, seat)

    def remove(self, card_id: int, *, seat: int | None = None, animate: bool = True) -> None:
        """Take a card off the table."""
        self.take([card_id], None, seat=seat, animate=animate, name="remove")

    def gather(self, card_ids: Sequence[int], to_zone: str, *, seat: int | None = None, animate: bool = True) -> None:
        """Gather a trick into a seat's pile, face down."""
        self.take(card_ids, to_zone, face_up=False, seat=seat, animate=animate, name="gather")

    def turn_over(self, card_id: int, *, seat: int | None = None, animate: bool = True) -> None:
        with self._lock:
            c = self._require(card_id)

            def change() -> None:
                c.face_up = not c.face_up
                c.order = self._bump()
                self._static = None

            if not animate:
                change()
                return
            self._enqueue(Action("turn_over", seat, (card_id,)), [((c.x, c.y), change)], seat)

    def set_stock(self, cards: Sequence[str], zone: str = "stock") -> list[int]:
        """Lay a face-down stock (first card at the bottom, last on top), at once."""
        return [self.place(c, zone, face_up=False, animate=False) for c in cards]

    def flip_stock(
        self,
        to_zone: str = "layout",
        *,
        stock: str = "stock",
        slot: int | None = None,
        seat: int | None = None,
        animate: bool = True,
    ) -> int:
        """Take the stock's top card and lay it face up in ``to_zone``; returns its id."""
        with self._lock:
            pile = [c for c in self.card_in(stock) if c.id not in self._pending_ids()]
            if not pile:
                raise ValueError(f"zone {stock!r} is empty")
            top = pile[-1]
            self.take([top.id], to_zone, face_up=True, slot=slot, seat=seat, animate=animate, name="flip_stock")
            return top.id

    def _pending_ids(self) -> set[int]:
        ids: set[int] = set()
        for p in self._queue:
            if p.action is not None:
                ids.update(p.action.card_ids)
        return ids

    def _require(self, card_id: int) -> SimCard:
        try:
            return self.cards[card_id]
        except KeyError:
            raise KeyError(f"no card {card_id} on the table") from None

    def _lift(self, cid: int) -> Callable[[], None]:
        def change() -> None:
            c = self.cards.pop(cid, None)
            if c is not None:
                self._in_hand[cid] = c
            self._static = None

        return change

    def _drop(self, ids: tuple[int, ...], zone: str, face_up: bool | None, slot: int | None) -> Callable[[], None]:
        def change() -> None:
            for cid in ids:
                c = self._in_hand.pop(cid)
                c.x, c.y, c.angle = self._pose_in(zone, slot, exclude=ids)
                c.zone = zone
                if face_up is not None:
                    c.face_up = face_up
                c.order = self._bump()
                self.cards[cid] = c
            self._static = None

        return change

    def _slot_centre(self, zone: str, slot: int | None) -> tuple[float, float]:
        x, y, _ = self._pose_in(zone, slot)
        return (x, y)

    def _entry(self, seat: int | None) -> tuple[float, float]:
        w, h = self.layout.width_mm, self.layout.height_mm
        facing = 0
        x = w * 0.75
        if seat is not None:
            try:
                z = self.layout.zone(f"seat:{seat}")
                facing, x = z.facing, z.centre[0]
            except KeyError:
                pass
        x += self.rng.uniform(-60, 60)
        return (x, -130.0) if facing == 180 else (x, h + 130.0)  # just out of view

    def _enqueue(
        self, action: Action, steps: list[tuple[tuple[float, float], Callable[[], None]]], seat: int | None
    ) -> None:
        """Turn the hand's stops into frames: approach, hold (the change happens under the hand),
        travel to the next stop, ..., retreat, then a few settled frames."""
        entry = self._entry(seat)
        plans: list[_Plan] = []
        pos = entry
        for target, change in steps:
            n = self.approach_frames if pos is entry else max(2, self.approach_frames - 1)
            for k in range(1, n + 1):
                t = k / n
                plans.append(_Plan((pos[0] + (target[0] - pos[0]) * t, pos[1] + (target[1] - pos[1]) * t), entry))
            for k in range(self.hold_frames):
                plans.append(_Plan(target, entry, change if k == 0 else None))
            pos = target
        for k in range(1, self.retreat_frames + 1):
            t = k / (self.retreat_frames + 1)
            plans.append(_Plan((pos[0] + (entry[0] - pos[0]) * t, pos[1] + (entry[1] - pos[1]) * t), entry))
        for k in range(self.settle_frames):
            plans.append(_Plan(None, None, last=(k == self.settle_frames - 1)))
        for p in plans:
            p.action = action
        action.changes_left = len(steps)
        action.total_frames = len(plans)
        self._queue.extend(plans)

    @property
    def busy(self) -> bool:
        """True while queued action frames remain."""
        with self._lock:
            return bool(self._queue)

    def next_frame(self) -> SimFrame:
        """Render the next frame: the next step of the queued actions, or the still table."""
        with self._lock:
            plan = self._queue.popleft() if self._queue else None
            finished: tuple[Action, ...] = ()
            hand = None
            if plan is not None:
                action = plan.action
                assert action is not None
                if action.first_frame < 0:
                    action.first_frame = self._frame_index
                    action.expected = []
                    self._before = self._snapshot()
                if plan.change is not None:
                    plan.change()
                    action.changes_left -= 1
                if plan.hand is not None and plan.entry is not None:
                    hand = (plan.hand, plan.entry)
                if plan.last:
                    finished = (action,)
            image, in_view = self._render(hand)
            if plan is not None and plan.action is not None:
                action = plan.action
                action.hand_frames += in_view
                if not in_view and action.changes_left == 0 and action.settled_frame < 0:
                    # the table is final and no hand is in view: from here an observer can know
                    action.settled_frame = self._frame_index
                    action.expected = expected_events(self._before, self._snapshot())
            frame = SimFrame(image, self._frame_index, self._frame_index / self.fps, in_view, finished)
            self._frame_index += 1
            return frame

    def play(self, extra_frames: int = 0) -> Iterator[SimFrame]:
        """Like :meth:`run`, one frame at a time (the table changes as you iterate)."""
        while self.busy:
            yield self.next_frame()
        for _ in range(extra_frames):
            yield self.next_frame()

    def run(self, extra_frames: int = 0) -> list[SimFrame]:
        """Play every queued action, then ``extra_frames`` still frames."""
        frames = []
        while self.busy:
            frames.append(self.next_frame())
        frames.extend(self.next_frame() for _ in range(extra_frames))
        return frames

    def _snapshot(self) -> Snapshot:
        return [(c.id, c.label, c.zone, c.x, c.y, c.order) for c in self.cards.values()]

    # --- rendering -----------------------------------------------------------------------------------

    def card_corners_mm(self, card: SimCard) -> np.ndarray:
        """(4, 2) float64: ``card``'s corners on the mat (mm), as it is drawn."""
        cw, ch = self.layout.card_mm
        a = math.radians(card.angle)
        ca, sa = math.cos(a), math.sin(a)
        return np.array(
            [
                (card.x + dx * ca + dy * sa, card.y - dx * sa + dy * ca)
                for dx, dy in ((-cw / 2, -ch / 2), (cw / 2, -ch / 2), (cw / 2, ch / 2), (-cw / 2, ch / 2))
            ]
        )

    def card_corners(self, card: SimCard) -> np.ndarray:
        """(4, 2) float64: ``card``'s corners in the camera's image (pixels)."""
        out: np.ndarray = cv2.perspectiveTransform(self.card_corners_mm(card)[None], self.mat_to_image)[0]
        return out

    def _light_map(self, strength: float) -> np.ndarray:
        h, w = self.camera.height, self.camera.width
        a = self.rng.uniform(0, 2 * math.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        grad = (xx / w - 0.5) * math.cos(a) + (yy / h - 0.5) * math.sin(a)
        r2 = (xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2
        light: np.ndarray = (1.0 + strength * grad - 0.5 * strength * r2).astype(np.float32)
        return light

    def _render_base(self) -> np.ndarray:
        h, w = self.camera.height, self.camera.width
        table = np.empty((h, w, 3), np.uint8)
        table[:] = (52, 60, 74)  # a dark wooden table around the mat
        grain = cv2.resize(
            self._np_rng.normal(0, 6, (h // 8, w)).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR
        )
        table = np.clip(table + grain[..., None], 0, 255).astype(np.uint8)
        scale = min(4.0, max(1.5, 1.5 * self._max_scale()))
        mat = draw_mat(self.layout, px_per_mm=scale)
        hom = self.mat_to_image @ np.diag([1 / scale, 1 / scale, 1.0])
        cv2.warpPerspective(
            mat,
            hom,
            (w, h),
            dst=table,
            flags=cv2.INTER_AREA if scale > 2 else cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_TRANSPARENT,
        )
        return _apply_light(table, self._light)

    def _max_scale(self) -> float:
        w, h = self.layout.width_mm, self.layout.height_mm
        pts = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64), self.mat_to_image)[0]
        return float(
            max(
                np.linalg.norm(pts[1] - pts[0]) / w,
                np.linalg.norm(pts[2] - pts[3]) / w,
                np.linalg.norm(pts[3] - pts[0]) / h,
                np.linalg.norm(pts[2] - pts[1]) / h,
            )
        )

    def _noise_patterns(self, sigma: float) -> list[tuple[np.ndarray, np.ndarray]]:
        h, w = self.camera.height, self.camera.width
        out = []
        for _ in range(6 if sigma > 0 else 0):
            n = self._np_rng.normal(0, sigma, (h, w, 3))
            out.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
        return out

    def _card_patch(self, c: SimCard) -> tuple[int, int, np.ndarray, np.ndarray]:
        key = (c.id, round(c.x, 3), round(c.y, 3), round(c.angle, 3), c.face_up)
        hit = self._patches.get(key)
        if hit is not None:
            return hit
        cw, ch = self.layout.card_mm
        tex = _face_texture(c.card if c.face_up else BACK, self.back_style if not c.face_up else self.face_style)
        th, tw = tex.shape[:2]
        a = math.radians(c.angle)
        ca, sa = math.cos(a), math.sin(a)
        # texture px -> mat mm: scale to mm, centre, rotate (counter-clockwise on the mat), translate
        to_mm = np.array([[ca * cw / tw, sa * ch / th, 0], [-sa * cw / tw, ca * ch / th, 0], [0, 0, 1.0]])
        to_mm[:2, 2] = [c.x - (ca * cw / 2 + sa * ch / 2), c.y - (-sa * cw / 2 + ca * ch / 2)]
        hom = self.mat_to_image @ to_mm
        corners = cv2.perspectiveTransform(np.array([[[0, 0], [tw, 0], [tw, th], [0, th]]], np.float64), hom)[0]
        x0, y0 = np.floor(corners.min(0)).astype(int) - 3
        x1, y1 = np.ceil(corners.max(0)).astype(int) + 4
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(self.camera.width, x1), min(self.camera.height, y1)
        patch: tuple[int, int, np.ndarray, np.ndarray]
        if x1 <= x0 or y1 <= y0:
            patch = (x0, y0, np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0), np.float32))
        else:
            off = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ hom
            size = (x1 - x0, y1 - y0)
            img = cv2.warpPerspective(tex, off, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            alpha = cv2.warpPerspective(_card_mask(tw, th), off, size, flags=cv2.INTER_LINEAR)
            img = _apply_light(img, self._light[y0:y1, x0:x1])
            patch = (x0, y0, img, alpha.astype(np.float32) / 255.0)
        if len(self._patches) > 512:
            self._patches.clear()
        self._patches[key] = patch
        return patch

    def _render_static(self) -> np.ndarray:
        img = self._base.copy()
        for c in sorted(self.cards.values(), key=lambda c: c.order):
            x0, y0, patch, alpha = self._card_patch(c)
            if patch.size == 0:
                continue
            ph, pw = alpha.shape
            roi = img[y0 : y0 + ph, x0 : x0 + pw]
            # a soft shadow down-right of the card, then the card
            shadow = cv2.GaussianBlur(alpha, (0, 0), 1.5)
            shadow = np.roll(shadow, (2, 2), axis=(0, 1)) * 0.45
            a3 = alpha[..., None]
            roi[:] = ((roi * (1 - shadow[..., None])) * (1 - a3) + patch * a3).astype(np.uint8)
        return img

    def render(self, *, hand: tuple[tuple[float, float], tuple[float, float]] | None = None) -> np.ndarray:
        """The current table as a 1280x720 (camera size) BGR frame, with a hand at ``(palm, entry)``
        in mat mm when given."""
        return self._render(hand)[0]

    def _render(self, hand: tuple[tuple[float, float], tuple[float, float]] | None) -> tuple[np.ndarray, bool]:
        with self._lock:
            if self._static is None:
                self._static = self._render_static()
            frame = self._static.copy()
            in_view = False
            if hand is not None:
                in_view = self._draw_hand(frame, *hand)
            if self.blur > 0:
                frame = cv2.GaussianBlur(frame, (0, 0), self.blur)
            if self._noise:
                plus, minus = self._noise[self._frame_index % len(self._noise)]
                cv2.add(frame, plus, dst=frame)
                cv2.subtract(frame, minus, dst=frame)
            return frame, in_view

    def _draw_hand(self, frame: np.ndarray, palm: tuple[float, float], entry: tuple[float, float]) -> bool:
        """Draw the arm and hand; True when any of it is in view."""
        px, py = palm
        dx, dy = px - entry[0], py - entry[1]
        d = math.hypot(dx, dy) or 1.0
        ux, uy = dx / d, dy / d  # along the arm, toward the fingertips
        nx, ny = -uy, ux

        def poly(points: list[tuple[float, float]]) -> np.ndarray:
            pts = cv2.perspectiveTransform(np.array([points], np.float64), self.mat_to_image)[0]
            out: np.ndarray = np.round(pts * 16).astype(np.int32)
            return out

        def capsule(a: tuple[float, float], b: tuple[float, float], r: float, n: int = 8) -> list[tuple[float, float]]:
            ang = math.atan2(b[1] - a[1], b[0] - a[0])
            pts = [
                (b[0] + r * math.cos(ang + t), b[1] + r * math.sin(ang + t))
                for t in np.linspace(-math.pi / 2, math.pi / 2, n)
            ]
            pts += [
                (a[0] + r * math.cos(ang + t), a[1] + r * math.sin(ang + t))
                for t in np.linspace(math.pi / 2, 3 * math.pi / 2, n)
            ]
            return pts

        skin = self.skin
        dark = tuple(int(v * 0.8) for v in skin)
        wrist = (px - ux * 55, py - uy * 55)
        shapes = [capsule(entry, wrist, 36)]  # forearm
        palm_pts = [
            (
                px + 48 * math.cos(t) * ux * 1.0 + 42 * math.sin(t) * nx,
                py + 48 * math.cos(t) * uy + 42 * math.sin(t) * ny,
            )
            for t in np.linspace(0, 2 * math.pi, 24)
        ]
        shapes.append(palm_pts)
        for k, off in enumerate((-27, -9, 9, 27)):
            base = (px + ux * 30 + nx * off, py + uy * 30 + ny * off)
            length = (50, 62, 60, 45)[k]
            tip = (base[0] + ux * length, base[1] + uy * length)
            shapes.append(capsule(base, tip, 8.5))
        thumb_base = (px + nx * 38, py + ny * 38)
        shapes.append(capsule(thumb_base, (thumb_base[0] + (ux + nx) * 32, thumb_base[1] + (uy + ny) * 32), 10))
        h, w = frame.shape[:2]
        frame_rect = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        in_view = False
        for s in shapes:
            pts = poly(s)
            if not in_view:  # every shape is convex: does it overlap the frame?
                area, _ = cv2.intersectConvexConvex(pts.astype(np.float32) / 16, frame_rect)
                in_view = area > 1.0
            cv2.fillPoly(frame, [pts], skin, cv2.LINE_AA, shift=4)
        cv2.polylines(frame, [poly(shapes[1])], True, dark, 2, cv2.LINE_AA, shift=4)
        return in_view


def _apply_light(img: np.ndarray, light: np.ndarray) -> np.ndarray:
    return cv2.multiply(img.astype(np.float32), cv2.merge([light, light, light])).clip(0, 255).astype(np.uint8)


@lru_cache(maxsize=128)
def _face_texture(label: str, style: int) -> np.ndarray:
    w, h = round(63 * _FACE_PX_PER_MM), round(88 * _FACE_PX_PER_MM)
    img = (
        render_back(width=w, height=h, style=style)
        if label == BACK
        else render_face(label, width=w, height=h, style=style)
    )
    img.setflags(write=False)
    return img


@lru_cache(maxsize=8)
def _card_mask(w: int, h: int) -> np.ndarray:
    mask = np.zeros((h, w), np.uint8)
    r = round(3.0 * _FACE_PX_PER_MM)  # 3 mm corner radius
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def visible_tops(cards: Snapshot) -> Snapshot:
    tops: Snapshot = []
    for c in sorted(cards, key=lambda c: -c[5]):
        if not any(math.hypot(c[3] - t[3], c[4] - t[4]) < PILE_MM for t in tops):
            tops.append(c)
    return tops


def expected_events(before_all: Snapshot, after_all: Snapshot) -> list[ExpectedEvent]:
    """The events a perfect observer reports between two states of the table (every card as
    id, label, zone, x, y, stacking order). Only pile tops are seen. Removals first, then moves,
    turns, arrivals; a card that left one pile and shows on another with the same label is a move."""
    before, after = visible_tops(before_all), visible_tops(after_all)
    ids_before = {c[0] for c in before_all}
    ids_after = {c[0] for c in after_all}

    def pile(x: float, y: float, view: Snapshot) -> int | None:
        for i, c in enumerate(view):
            if math.hypot(c[3] - x, c[4] - y) < PILE_MM:
                return i
        return None

    removed: list[tuple[int, str, str | None]] = []
    appeared: list[tuple[int, str, str | None]] = []
    turned: list[ExpectedEvent] = []
    for cid, label, zone, x, y, _ in before:
        j = pile(x, y, after)
        if j is None:
            removed.append((cid, label, zone))
            continue
        cid2, label2, zone2 = after[j][:3]
        if label2 == label:
            continue  # same look (another back on a face-down pile): nothing to see
        if cid2 == cid:
            turned.append(ExpectedEvent("turned_over", label2, zone2))
            continue
        if cid2 in ids_before and cid not in ids_after:
            removed.append((cid, label, zone))  # the top was taken and uncovered a card seen before
        else:
            appeared.append((cid2, label2, zone2))  # a card laid on the pile (the old top under it)
    for c in after:
        if pile(c[3], c[4], before) is None:
            appeared.append((c[0], c[1], c[2]))
    out: list[ExpectedEvent] = []
    moved: list[ExpectedEvent] = []
    for cid, label, zone in removed:
        # a face seen leaving one place and arriving at another is a move; backs all look alike
        partner = None if label == BACK else next((a for a in appeared if a[0] == cid and a[1] == label), None)
        if partner is not None:
            appeared.remove(partner)
            moved.append(ExpectedEvent("moved", label, partner[2], zone))
        else:
            out.append(ExpectedEvent("removed", label, zone))
    out += moved + turned
    out += [ExpectedEvent("appeared", label, zone) for _, label, zone in appeared]
    return out


class SimOracle:
    """A stand-in recogniser that reads the simulator's truth: every visible card with its true
    outline and label, with optional misreads (a confident wrong label), weak reads (below the
    tracker's gate) and dropouts. For testing the tracker's logic apart from the classifier; the
    end-to-end tests and the demo use the real :class:`vision.recognizer.Recognizer`."""

    def __init__(
        self, sim: SimTable, *, misread: float = 0.0, weak: float = 0.0, dropout: float = 0.0, seed: int = 0
    ) -> None:
        self.sim = sim
        self.misread, self.weak, self.dropout = misread, weak, dropout
        self.rng = random.Random(seed)

    def recognize(
        self, frame_bgr: np.ndarray, *, plane: np.ndarray | None = None, ignore: Sequence[np.ndarray] = ()
    ) -> list[Recognition]:
        return [r for c in self.sim.visible() if self.rng.random() >= self.dropout for r in [self._read(c)]]

    def recognize_regions(
        self,
        frame_bgr: np.ndarray,
        regions: Sequence[tuple[int, int, int, int]],
        known: Sequence[np.ndarray],
        *,
        plane: np.ndarray | None = None,
        ignore: Sequence[np.ndarray] = (),
        readings: Sequence[Recognition] = (),
    ) -> list[Recognition]:
        """``Recognizer.recognize_regions`` read from the truth: the known outlines not wholly inside a region, read
        as ``classify_quads`` reads them (one on no card is dropped) or, where no region touches them and
        ``readings`` are given, as they were read last, and the visible cards wholly inside one, with ``recognize``'s
        dropouts."""
        from vision.change_regions import inside, kept_and_reused, quad_box

        kept, reused = kept_and_reused(known, regions, readings)
        found = [
            self._read(c)
            for c in self.sim.visible()
            if any(inside(quad_box(self.sim.card_corners(c)), r) for r in regions) and self.rng.random() >= self.dropout
        ]
        return reused + [r for r in self.classify_quads(frame_bgr, kept) if r.presence > 0] + found

    def classify_quads(self, frame_bgr: np.ndarray, quads: Sequence[np.ndarray]) -> list[Recognition]:
        """One reading per outline: the visible card whose centre is nearest (within 20 px), else
        ``unknown``."""
        from vision.recognizer import LABELS, Recognition

        cards = self.sim.visible()
        centres = np.array([self.sim.card_corners(c).mean(0) for c in cards]) if cards else np.zeros((0, 2))
        out = []
        for q in quads:
            q = np.asarray(q, np.float32).reshape(4, 2)
            d = np.linalg.norm(centres - q.mean(0), axis=1) if len(cards) else np.zeros(0)
            if len(d) and d.min() < 20:
                out.append(self._read(cards[int(d.argmin())]))
            else:
                probs = np.full(len(LABELS), 1 / len(LABELS), np.float32)
                out.append(Recognition(UNKNOWN, float(probs[0]), q, probs, presence=0.0))
        return out

    def _read(self, c: SimCard) -> Recognition:
        from vision.recognizer import LABELS, Recognition

        corners = self.sim.card_corners(c)
        label, conf = c.label, 0.97
        r = self.rng.random()
        if r < self.misread:
            label, conf = self.rng.choice([x for x in LABELS if x != c.label]), 0.8
        elif r < self.misread + self.weak:
            conf = 0.4
        probs = np.full(len(LABELS), (1 - conf) / (len(LABELS) - 1), np.float32)
        probs[LABELS.index(label)] = conf
        return Recognition(label, conf, corners.astype(np.float32), probs)


if TYPE_CHECKING:
    from vision.recognizer import Recognition


class DeckLayout:
    """The ``sim:`` camera's ``script=deck``: the table shows a shuffled deck face up, ``per_view`` cards at a time in
    rows across the mat's middle, a little apart and a little turned (as a user lays out a deck to enrol it:
    ``cardtable deck learn NAME --camera sim:...?script=deck``). Each :meth:`step` clears the table and lays the next
    cards; after the last the deck is shuffled again."""

    def __init__(self, sim: SimTable, *, seed: int = 0, per_view: int = 13, per_row: int = 7) -> None:
        self.sim = sim
        self.rng = random.Random(seed)
        self.per_view, self.per_row = per_view, per_row
        self.deck: list[str] = []

    def step(self) -> None:
        """Clear the table and lay the next ``per_view`` cards (at once: no hand)."""
        sim, rng = self.sim, self.rng
        for c in list(sim.cards.values()):
            sim.remove(c.id, animate=False)
        if not self.deck:
            self.deck = [r + s for s in "CDHS" for r in "A23456789TJQK"]
            rng.shuffle(self.deck)
        laid, self.deck = self.deck[: self.per_view], self.deck[self.per_view :]
        cw, ch = sim.layout.card_mm
        rows = -(-len(laid) // self.per_row)
        gap = cw * 0.3
        x0 = (sim.layout.width_mm - self.per_row * (cw + gap) + gap) / 2 + cw / 2
        y0 = (sim.layout.height_mm - rows * (ch + gap) + gap) / 2 + ch / 2
        for i, card in enumerate(laid):
            row, col = divmod(i, self.per_row)
            x = x0 + col * (cw + gap) + rng.gauss(0, 1.5)
            y = y0 + row * (ch + gap) + rng.gauss(0, 1.5)
            sim.lay(card, x, y, rng.choice((0.0, 180.0)) + rng.gauss(0, 3))


class RandomPlay:
    """Keeps a simulated table busy with plausible random plays (the ``sim:`` camera's demo
    script): cards laid in the play area, pairs taken to capture piles, the stock flipped, now and
    then a card turned over; when the pack runs out the table is cleared and dealt again."""

    def __init__(self, sim: SimTable, *, seed: int = 0) -> None:
        self.sim = sim
        self.rng = random.Random(seed)
        kinds = {z.kind: z.name for z in sim.layout.zones}
        self.play_zone = kinds.get("layout") or kinds.get("trick") or kinds.get("turnup") or sim.layout.zones[0].name
        self.stock = kinds.get("stock")
        self.piles = [z.name for z in sim.layout.zones if z.kind == "capture"]
        self.seats = sorted({z.seat for z in sim.layout.zones if z.seat is not None}) or [1]
        self.capacity = max(1, len(sim.layout.zone(self.play_zone).slots))
        self.hand: list[str] = []
        self._deal()

    def _deal(self) -> None:
        for c in list(self.sim.cards.values()):
            self.sim.remove(c.id, animate=False)
        deck = [r + s for s in "CDHS" for r in "A23456789TJQK"]
        self.rng.shuffle(deck)
        if self.stock:
            self.sim.set_stock(deck[:20], self.stock)
            deck = deck[20:]
        self.hand = deck

    def step(self) -> None:
        """Queue one action."""
        sim, rng = self.sim, self.rng
        seat = rng.choice(self.seats)
        lay = [c for c in sim.card_in(self.play_zone)]
        r = rng.random()
        if r < 0.45 and self.hand and len(lay) < min(self.capacity, 8):
            sim.place(self.hand.pop(), self.play_zone, seat=seat)
        elif r < 0.75 and len(lay) >= 2:
            pair = rng.sample(lay, 2)
            pile = f"capture:{seat}" if f"capture:{seat}" in self.piles else None
            sim.take([c.id for c in pair], pile, seat=seat)
        elif r < 0.9 and self.stock and sim.card_in(self.stock) and len(lay) < self.capacity:
            sim.flip_stock(self.play_zone, stock=self.stock, seat=seat)
        elif lay and r < 0.95:
            sim.turn_over(rng.choice(lay).id, seat=seat)
        elif not self.hand and not (self.stock and sim.card_in(self.stock)):
            self._deal()
            sim.place(self.hand.pop(), self.play_zone, seat=seat)
        elif self.hand and len(lay) < self.capacity:
            sim.place(self.hand.pop(), self.play_zone, seat=seat)
        elif lay:
            sim.take([lay[0].id], None, seat=seat)
        else:
            self._deal()


def open_sim_source(spec: str, rest: str, opts: dict[str, str]) -> SimSource:
    """The ``sim:GAME,PLAYERS`` camera (registered by scheme: the entry point ``sim`` in the group
    ``cardtable.camera_schemes``): a :class:`SimTable` of that mat, with ``seed``, ``tilt``, ``yaw``,
    ``noise``, ``blur``, ``frames`` and ``script=random|deck|none`` options."""
    from vision.zones import parse_mat_spec

    fps = number_option(opts, "fps", 15.0, spec)
    layout = parse_mat_spec(rest or "chinese-ten,3")
    if "width" not in opts and "height" not in opts:  # the camera a mat of this size needs
        width, height = default_camera(layout).width, default_camera(layout).height
    else:
        width, height = int(number_option(opts, "width", 1280, spec)), int(number_option(opts, "height", 720, spec))
    camera = SimCamera(
        width=width,
        height=height,
        tilt_deg=number_option(opts, "tilt", 15.0, spec),
        yaw_deg=number_option(opts, "yaw", 0.0, spec),
    )
    seed = int(number_option(opts, "seed", 0, spec))
    sim = SimTable(
        layout,
        seed=seed,
        camera=camera,
        fps=fps,
        noise=number_option(opts, "noise", 3.0, spec),
        blur=number_option(opts, "blur", 0.0, spec),
    )
    limit = int(number_option(opts, "frames", 0, spec)) or None
    return SimSource(
        sim,
        spec=spec,
        fps=fps,
        realtime=flag_option(opts, "realtime"),
        script=opts.get("script", "random"),
        seed=seed,
        limit=limit,
    )
