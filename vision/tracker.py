"""Turn per-frame card sightings into stable table events.

Each physical card is a :class:`Track`, matched frame to frame by its position on the mat. Only
clear frames count (no hand over the table): each gives a vote per card, gated by the classifier's
confidence and its margin over the runner-up. A new card is reported once ``votes_needed`` of the
last ``window`` votes agree; a reported card changes its label only when a fresh majority says so
(hysteresis); a card missing from ``removal_frames`` consecutive clear frames is removed. Frames
with a hand in view count for nothing: a hidden card is not a removed card, and events are held
until the view clears. Removals wait for undecided newcomers so that a card carried from one zone to
another is reported as one move.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from vision.calibration import Calibration
from vision.events import BACK, UNKNOWN, EventKind, TableEvent
from vision.zones import Layout


class Observation(Protocol):
    """One card seen in one frame (``vision.recognizer.Recognition`` has this shape)."""

    @property
    def card(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def corners(self) -> np.ndarray: ...
    @property
    def probabilities(self) -> np.ndarray: ...
    @property
    def presence(self) -> float: ...


@dataclass(frozen=True)
class TrackerConfig:
    min_confidence: float = 0.55  # a vote needs this top-1 probability ...
    min_margin: float = 0.2  # ... and this lead over the runner-up
    window: int = 7  # votes kept per card (clear frames only)
    votes_needed: int = 3  # agreeing votes to report a new card
    change_votes: int = 3  # votes for a new label (since the view last cleared) to relabel a card
    removal_frames: int = 4  # consecutive clear frames without the card before it counts as removed
    match_mm: float = 32.0  # a sighting this close to a track's centre is that card
    max_wait_frames: int = 10  # a newcomer without agreement by then is reported as "unknown"
    fast_confidence: float = 0.9  # two unopposed votes this confident are enough
    min_presence: float = 0.25  # a sighting this unsure of its label starts a new track only if ...
    card_presence: float = 0.9  # ... the model is at least this sure that it is a card at all
    one_pack: bool = True  # flag a card that is already on the table


@dataclass
class Vote:
    frame: int
    label: str | None  # None: seen but not nameable this frame (gate failed)
    confidence: float
    probabilities: np.ndarray | None


@dataclass
class Track:
    id: int
    x: float
    y: float
    corners: np.ndarray  # last seen outline, image px
    first_frame: int
    votes: deque[Vote]
    label: str | None = None  # reported label; None while a candidate
    zone: str | None = None
    misses: int = 0  # consecutive clear frames without a sighting
    seen: int = 0  # clear frames with a sighting
    covered: list[str] = field(default_factory=list)  # labels of cards under this one, bottom first
    fresh: int = 0  # votes since the view last cleared
    miss_frames: list[int] = field(default_factory=list)

    @property
    def confirmed(self) -> bool:
        return self.label is not None


def _gate(obs: Observation, cfg: TrackerConfig) -> str | None:
    if obs.card == UNKNOWN:
        return None
    probs = np.asarray(obs.probabilities, np.float32)
    if probs.size >= 2:
        top2 = np.partition(probs, -2)[-2:]
        if float(top2[1] - top2[0]) < cfg.min_margin:
            return None
    return obs.card if obs.confidence >= cfg.min_confidence else None


def _starts_track(obs: Observation, cfg: TrackerConfig) -> bool:
    """A new sighting starts a track when the model names it with some confidence or, failing that, is
    sure it is a card: a clear card in an unfamiliar design can read ``unknown`` at 0.2 yet be a card
    at 0.99, while a stray outline (a mat marking, a chip) is unsure of both."""
    return obs.confidence >= cfg.min_presence or obs.presence >= cfg.card_presence


class Tracker:
    """Feed it one frame's sightings at a time with :meth:`update`; it returns the events decided at
    that frame (usually none)."""

    def __init__(self, layout: Layout, *, config: TrackerConfig | None = None) -> None:
        self.layout = layout
        self.config = config or TrackerConfig()
        self.tracks: dict[int, Track] = {}
        self._next_id = 1
        self._occluded = False
        self._deferred_since: int | None = None
        self.frames_seen = 0

    # --- public state ----------------------------------------------------------------------------

    @property
    def cards(self) -> list[Track]:
        """The reported cards now on the table (pile tops), in track order."""
        return [t for t in self.tracks.values() if t.confirmed]

    @property
    def settled(self) -> bool:
        """Nothing undecided: no newcomer, no card missing, every card re-verified since the last
        occlusion. A caller may then skip recognition on frames that did not change."""
        k = self.config.votes_needed
        return not self._occluded and all(
            t.confirmed and t.misses == 0 and t.fresh >= k and all(v.label == t.label for v in list(t.votes)[-k:])
            for t in self.tracks.values()
        )

    # --- the update ------------------------------------------------------------------------------

    def update(
        self,
        observations: Sequence[Observation] | None,
        *,
        calibration: Calibration | None,
        frame_index: int,
        timestamp: float = 0.0,
        occluded: bool = False,
    ) -> list[TableEvent]:
        """One frame. ``observations=None`` means the frame was not looked at (unchanged since the
        last one): no votes, no misses. ``occluded`` frames count for nothing and hold events."""
        self.frames_seen += 1
        if occluded:
            if not self._occluded:
                self._occluded = True
            return []
        if self._occluded:  # the view just cleared: every card must be confirmed afresh
            self._occluded = False
            for t in self.tracks.values():
                t.fresh = 0
        if observations is None or calibration is None:
            return []
        self._associate(observations, calibration, frame_index)
        return self._decide(frame_index, timestamp)

    def _associate(self, observations: Sequence[Observation], cal: Calibration, frame: int) -> None:
        c = self.config
        if observations:
            centres_px = np.array([np.asarray(o.corners, np.float64).reshape(4, 2).mean(0) for o in observations])
            centres = cal.to_mat(centres_px)
        else:
            centres = np.zeros((0, 2))
        keep = [i for i, (x, y) in enumerate(centres) if self._on_mat(float(x), float(y))]
        tracks = list(self.tracks.values())
        pairs = []
        for i in keep:
            for t in tracks:
                d = float(np.hypot(centres[i][0] - t.x, centres[i][1] - t.y))
                if d <= c.match_mm:
                    pairs.append((d, i, t.id))
        pairs.sort()
        used_obs: set[int] = set()
        used_tracks: set[int] = set()
        for _, i, tid in pairs:
            if i in used_obs or tid in used_tracks:
                continue
            used_obs.add(i)
            used_tracks.add(tid)
            self._observe(self.tracks[tid], observations[i], centres[i], frame)
        for i in keep:
            if i not in used_obs and _starts_track(observations[i], c):
                t = Track(
                    self._next_id,
                    float(centres[i][0]),
                    float(centres[i][1]),
                    np.asarray(observations[i].corners, np.float32),
                    frame,
                    deque(maxlen=c.window),
                )
                self._next_id += 1
                self.tracks[t.id] = t
                self._observe(t, observations[i], centres[i], frame)
        for t in tracks:
            if t.id not in used_tracks:
                t.misses += 1
                t.miss_frames.append(frame)

    def _on_mat(self, x: float, y: float) -> bool:
        """On the mat and not on one of its markers (a marker's white square can pass for a card)."""
        lay = self.layout
        if not (0 <= x <= lay.width_mm and 0 <= y <= lay.height_mm):
            return False
        s = lay.marker_mm
        return not any(m.x - 4 <= x <= m.x + s + 4 and m.y - 4 <= y <= m.y + s + 4 for m in lay.markers)

    def _observe(self, t: Track, obs: Observation, centre: np.ndarray, frame: int) -> None:
        a = 0.3 if t.seen else 1.0  # settle the position; a pile's top card wobbles a little
        t.x += a * (float(centre[0]) - t.x)
        t.y += a * (float(centre[1]) - t.y)
        t.corners = np.asarray(obs.corners, np.float32)
        t.misses = 0
        t.miss_frames.clear()
        t.seen += 1
        t.fresh += 1
        probs = np.asarray(obs.probabilities, np.float32) if obs.probabilities is not None else None
        t.votes.append(Vote(frame, _gate(obs, self.config), float(obs.confidence), probs))

    def _winner(self, votes: Sequence[Vote]) -> tuple[str | None, int, list[Vote]]:
        counts: dict[str, list[Vote]] = {}
        for v in votes:
            if v.label is not None:
                counts.setdefault(v.label, []).append(v)
        if not counts:
            return None, 0, []
        label, agreeing = max(counts.items(), key=lambda kv: (len(kv[1]), sum(v.confidence for v in kv[1])))
        return label, len(agreeing), agreeing

    def _agreed(self, votes: Sequence[Vote], needed: int) -> tuple[str | None, list[Vote]]:
        """The label ``needed`` votes agree on, or that two strong votes name with no dissent."""
        label, n, agreeing = self._winner(votes)
        if label is None:
            return None, []
        named = sum(v.label is not None for v in votes)
        strong = n >= 2 and n == named and min(v.confidence for v in agreeing) >= self.config.fast_confidence
        return (label, agreeing) if n >= needed or strong else (None, [])

    def _decide(self, frame: int, ts: float) -> list[TableEvent]:
        c = self.config
        removed: list[Track] = []
        appeared: list[tuple[Track, str, list[Vote]]] = []
        changed: list[tuple[Track, str, list[Vote]]] = []
        undecided = 0
        missing = {
            t.label: t
            for t in self.tracks.values()
            if t.confirmed and 0 < t.misses < c.removal_frames and t.label not in (BACK, UNKNOWN)
        }
        for t in list(self.tracks.values()):
            if not t.confirmed:
                if t.misses >= c.removal_frames:  # a flicker or a false sighting: forget it quietly
                    del self.tracks[t.id]
                    continue
                label, agreeing = self._agreed(t.votes, c.votes_needed)
                if label is not None and label in missing:
                    # the same face just vanished elsewhere: a carried card, once the old place
                    # has stayed empty for two clear frames
                    old = missing.pop(label)
                    if old.misses >= 2:
                        removed.append(old)
                        appeared.append((t, label, agreeing))
                    else:
                        undecided += 1
                elif label is not None:
                    appeared.append((t, label, agreeing))
                elif t.seen >= c.max_wait_frames:
                    appeared.append((t, UNKNOWN, [v for v in t.votes]))
                else:
                    undecided += 1
                continue
            if t.misses >= c.removal_frames and t not in removed:
                removed.append(t)
                continue
            if t.misses == 0 and t.fresh >= 2:
                # hysteresis: a reported card changes label only when, among its votes since the
                # view cleared, change_votes (or two strong, unopposed) name one new label and at
                # most one still names the old
                recent = list(t.votes)[-t.fresh :]
                label, agreeing = self._agreed(recent, c.change_votes)
                old_votes = sum(v.label == t.label for v in recent)
                if label is not None and label != t.label and old_votes <= 1:
                    changed.append((t, label, agreeing))
        # A removal waits (at most max_wait_frames) while a newcomer is undecided: the card may be
        # arriving elsewhere, and a carried card is one move.
        if removed and undecided:
            if self._deferred_since is None:
                self._deferred_since = frame
            if frame - self._deferred_since < c.max_wait_frames:
                paired = {id(t) for t, _, _ in appeared}
                removed = [t for t in removed if any(id(a[0]) in paired and a[1] == t.label for a in appeared)]
        if not undecided:
            self._deferred_since = None
        # Arrivals wait for cards that have not been seen since the view cleared (being taken
        # away, most likely), so an action's removals are reported before its arrivals.
        leaving = [
            t
            for t in self.tracks.values()
            if t.confirmed and t.fresh == 0 and 0 < t.misses < c.removal_frames and t not in removed
        ]
        if leaving:
            moving = {id(t) for t in removed}
            appeared = [a for a in appeared if any(id(r) in moving and r.label == a[1] for r in removed)]
        return self._emit(removed, appeared, changed, frame, ts)

    def _emit(
        self,
        removed: list[Track],
        appeared: list[tuple[Track, str, list[Vote]]],
        changed: list[tuple[Track, str, list[Vote]]],
        frame: int,
        ts: float,
    ) -> list[TableEvent]:
        events: list[TableEvent] = []
        moves: list[TableEvent] = []
        arrivals = list(appeared)
        for t in removed:
            partner = None  # backs all look alike: a face-down card leaving is a removal
            if t.label not in (BACK, UNKNOWN):
                partner = next((a for a in arrivals if a[1] == t.label), None)
            del self.tracks[t.id]
            if partner is None:
                events.append(self._event(EventKind.REMOVED, t, t.label or UNKNOWN, [], frame, ts))
                continue
            arrivals.remove(partner)
            nt, label, votes = partner
            self._confirm(nt, label)
            moves.append(self._event(EventKind.MOVED, nt, label, votes, frame, ts, from_zone=t.zone))
        events += moves
        for t, label, votes in changed:
            old = t.label or UNKNOWN
            if t.covered and label == t.covered[-1]:  # the top card was taken off the pile
                events.append(self._event(EventKind.REMOVED, t, old, [], frame, ts))
                t.covered.pop()
                self._confirm(t, label)
            elif BACK in (old, label) and UNKNOWN not in (old, label):
                self._confirm(t, label)
                events.append(self._event(EventKind.TURNED_OVER, t, label, votes, frame, ts, previous=old))
            else:  # another card laid face up on this one
                t.covered.append(old)
                dup = self._is_duplicate(label, t)
                self._confirm(t, label)
                events.append(self._event(EventKind.APPEARED, t, label, votes, frame, ts, previous=old, duplicate=dup))
        for t, label, votes in arrivals:
            dup = self._is_duplicate(label, t)
            self._confirm(t, label)
            events.append(self._event(EventKind.APPEARED, t, label, votes, frame, ts, duplicate=dup))
        return events

    def _confirm(self, t: Track, label: str) -> None:
        t.label = label
        t.zone = self.layout.zone_at(t.x, t.y)

    def _is_duplicate(self, label: str, track: Track) -> bool:
        if not self.config.one_pack or label in (BACK, UNKNOWN):
            return False
        return any(t is not track and (t.label == label or label in t.covered) for t in self.tracks.values())

    def _event(
        self,
        kind: EventKind,
        t: Track,
        label: str,
        votes: list[Vote],
        frame: int,
        ts: float,
        *,
        from_zone: str | None = None,
        previous: str | None = None,
        duplicate: bool = False,
    ) -> TableEvent:
        probs = [v.probabilities for v in votes if v.probabilities is not None]
        mean = np.mean(probs, axis=0) if probs else None
        if votes:
            considered = min(len(t.votes), t.fresh) if t.fresh else len(t.votes)
            share = len(votes) / max(1, considered, len(votes))
            conf = share * float(np.mean([v.confidence for v in votes]))
        else:  # a removal rests on the misses
            conf = 1.0
        zone = self.layout.zone_at(t.x, t.y) if kind is not EventKind.REMOVED else t.zone
        frames = tuple(v.frame for v in votes) if votes else tuple(t.miss_frames)
        return TableEvent(
            kind,
            label,
            zone,
            (t.x, t.y),
            t.id,
            frame,
            ts,
            frames,
            conf,
            mean,
            from_zone=from_zone,
            previous=previous,
            duplicate=duplicate,
        )
