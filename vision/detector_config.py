"""The card detector's settings (``vision.detect``): one frozen dataclass, so a setting is a field that
``cardtable recognize --detector FIELD=VALUE`` and the benchmarks can change (``vision.detector_settings``)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property


@dataclass(frozen=True)
class DetectorConfig:
    scale: float = 0.5  # detection resolution relative to the frame
    min_width: float = 60.0  # card short side in full-res pixels (after tilt)
    max_width: float = 420.0
    min_aspect: float = 1.12  # long / short side; a card is ~1.4, tilt of 30 degrees changes it ~15%
    max_aspect: float = 1.85
    min_solidity: float = 0.88  # contour area / quad area
    max_side_ratio: float = 1.35  # opposite sides of a tilted card stay within this ratio
    # Canny thresholds. Grey is lower than chroma: a white card without a printed border line on a pale
    # cloth (or touching the pale table edge) differs from it by ~10 grey levels; 30/90 lost such cards,
    # and 20/60 finds them without more false outlines (docs/performance.md, detector round 5).
    grey_low: int = 20
    grey_high: int = 60
    chroma_low: int = 30
    chroma_high: int = 90
    gap_close: int = 3  # holes of the edge map dilated this much, where no card was found (see gap_pass)
    hue_pass: bool = True  # magenta-green edges where pale non-card regions are (see hue_pass)
    hue_low: int = 8
    hue_high: int = 24
    hue_gate: float = 0.1  # share of the frame that is paper outside the cards found
    # A face-down card on a striped or checked cloth: the back's printed pattern is a block of dense edges
    # even where the cloth breaks the card's outline and white border (see texture_pass).
    texture_pass: bool = True
    texture_box: int = 5  # edge density over this square, detection pixels
    texture_level: int = 90  # of 255: 35% edge pixels (a 1 px stripe line gives 20% over 5 px)
    texture_open: int = 5  # drops the stripes' edge lines from the dense mask
    texture_grow: float = 2.0  # the pattern lies inside a white border; snapping finds the card's edge
    # A card protruding from a pale region of its own colour (the table's edge): three sides are seen
    # (see tab_pass); where its far end lies on the region too, that end is placed for the proportions
    # of the cards found in the frame, or this long to wide with fewer than three (poker 88/63 = 1.40).
    tab_pass: bool = True
    tab_eps: float = 2.0  # polygon fit of the paper regions' outlines, detection pixels
    tab_aspect: float = 1.4
    tab_colour: float = 30.0  # card and region are one colour across the unseen side (BGR distance)
    tab_region: float = 4.0  # the region is this many times the card (a table edge, a cloth; not a
    # phone's screen coming out from under a card, the two of them one blob of paper)
    tab_chroma: float = 40.0  # and the card is grey (white stock under a coloured light), not a screen
    # An open outline (see consider_open) whose weakest side lies on edges for only this share of its
    # length is still a card when the other three are on edges for 0.9 and it is nearly a rectangle of a
    # card's proportions (``near_rectangle``): a white card with one side on a cloth of its colour.
    open_weak_side: float = 0.5
    # ... or when the colour steps across that side by ``open_step`` (BGR distance, 3 px either side) along
    # ``open_step_share`` of it (see step_across): a grey card on a pale blue-grey table, too faint for Canny.
    open_step: float = 10.0
    open_step_share: float = 0.8
    # A paper blob covering this share of its hull (court art cutting into it) is a card when every side of
    # the hull lies on edges for ``thin_support`` (see consider).
    thin_cover: float = 0.3
    thin_support: float = 0.95
    paper_pairs: bool = True  # two paper blobs, neither a card, whose hull is one (see paper_pairs)
    open_pairs: bool = True  # two open outlines, neither a card, that are one (see open_pairs)
    open_pair_cover: float = 0.8  # their hulls cover this share of the hull of both
    # Cards of the frame's own size whose sides are on edges but that no closed outline holds (a court figure
    # reaching the card's edge, on stripes or beside an arm): a matched filter for the deck's rectangle
    # (``vision/size_search.py``, ``size_pass_cards``), where no card was found and with two cards found to give
    # the size. On the table plane the size is the deck's within ``size_tolerance``; in a tilted image
    # perspective spreads it (``size_tolerance_image``), and the pass runs there with ``size_pass_image``: where no
    # plane is estimated (too few cards found for one), since one weaker side (``size_gap_support``);
    # before it, the image search found fewer cards for more false ones (docs/performance.md).
    size_pass: bool = True
    size_pass_image: bool = True
    # each side's share on edges of its direction, in the search: 0.7 against 0.8 found 7 hard and 8 realistic
    # cards more on the validation set, 8 and 3 hard more on the held-out (image, calibrated)
    size_level: float = 0.7
    size_tolerance: float = 0.06
    size_tolerance_image: float = 0.15
    # Every side of a rectangle the size search finds lies on the edge map (within 2 px) for this share. 0.85 (a side
    # under a glare spot) found 3-4 realistic cards more over the six held-out seeds, but on the validation sets
    # realistic -1 and hard 0 with more false cards: not taken (docs/performance.md).
    size_side_support: float = 0.9
    # ... except one side, which may lie on edges for only this share where its misses are one stretch clear of its
    # ends (a glare spot washing out part of it; ``size_pass.sides_on_edges``): this many samples at either end (the
    # exception is off at ``size_gap_end`` 0 or ``size_gap_support`` up to ``size_side_support``)
    size_gap_support: float = 0.8
    size_gap_end: int = 2
    size_band: float = 0.75  # the band just inside each side is paper for this share of it (see size_pass_cards)
    # ... or whiter than the table just outside it: the band inside each side is whiter (darkest channel) than
    # the same depth outside by this much (a pale card half in a shadow has no paper margin in the shadow, but
    # is whiter than the shadowed table there; see size_pass.card_margins)
    size_whiter: float = 20.0
    # and its inside is not the cloth around it: no more than this share of its inside has a colour of the
    # ring outside it (see inside_like_outside)
    size_cloth_share: float = 0.9
    size_cloth_tolerance: float = 15.0
    # The search's direction maps are dilated this square, so a side two pixels off its edge (a card 3 degrees
    # from the directions searched) still counts; 3 lost such cards (docs/performance.md).
    size_grow: int = 5
    # an outline whose sides on the plane are this far off the median's (one that took in the cloth beside its
    # card) is searched over again by the size pass as if it were not there, and a rectangle found over it
    # replaces it (0: off). Chosen on the validation set: 0.1, 0.15 and 0.2 measured (docs/performance.md)
    size_rescue_off: float = 0.15
    # The card directions the search tries: those the edge pixels favour most. A wood grain's or a cloth's
    # diagonal stripes can take a bin and its neighbours two apart, and 6 then left out a card of its own
    # direction. Against 6, 9 found 9 hard cards more and 3 fewer (image) and 7 more (calibrated) over the six
    # held-out seeds, realistic the same, and 16 hard more on the validation sets. Cost: the size pass's mean
    # +1.4 ms a frame on detect_stages' frames, detection's mean +0.2 ms on bench_recognition's (docs/performance.md).
    size_angles: int = 9
    # The size pass's search only where a card's area of paper (the Otsu mask, opened 5x5: ``frame_cues.paper_left``)
    # lies outside the cards found, as ``replan_gate``; without it, any paper a card's perimeter long (a coin's
    # glint, a rim the outlines leave) started a search. The same cards over the six held-out seeds (image and
    # calibrated) and on the validation sets; the size pass's median 6.4 -> 4.1 ms a frame on ``detect_stages.py``'s
    # speed frames (docs/performance.md).
    size_pass_gate: bool = True
    # Snap the outlines (``snap``) before the plane estimate and the size pass take the deck's size from them:
    # rough outlines of a design with a printed frame line lie on that line, several percent inside the card.
    snap_early: bool = True
    # The first stage again on the edge map with chroma edges at these thresholds added, where paper lies
    # outside the cards found (grey cards on a pale felt of their brightness). On, gated
    # (below): over six held-out seeds hard found +20 (image) and +14 (calibrated) cards, realistic +1 each,
    # for ~3 ms more detection a frame (docs/performance.md).
    faint_chroma_pass: bool = True
    faint_chroma_low: int = 15
    faint_chroma_high: int = 45
    # ... and only where a card's area of the paper outside the cards found is greyer, by this much chroma, than
    # that paper's median (a grey card on a pale coloured felt; a pale cloth alone is one colour): the pass then
    # runs on under half the frames and keeps 25 of its 30 held-out hard cards (docs/performance.md)
    faint_chroma_gate: float = 12.0
    faint_pass: bool = (
        False  # low-threshold Canny where nothing was found: ~6 ms for +0.2% found; the paper cues cover it
    )
    paper_pass: bool = True
    paper_nested: bool = True  # also paper blobs inside holes of others (a card's inside, within its frame line)
    local_paper_pass: bool = True
    local_block: int = 100  # neighbourhood of the local-paper threshold, full-res pixels
    local_offset: float = 16.0  # paper is this much brighter (least channel) than its neighbourhood
    snap: bool = True  # move each side onto the strongest edge at full resolution
    snap_radius: float = 0.1  # search across a side, as a fraction of the card's short side
    snap_outer: float = 0.5  # an edge's weight is 1 + this x its offset outward (-1 inner end .. 1 outer end)
    snap_max_skew: float = 1.0  # degrees: snapping may not make opposite sides less parallel than this
    # An edge with darker pixels inside it than outside (a shadow's outer edge, the cloth's beside the card) has
    # its weight multiplied by this, unless the outside is as bright as the side's paper (a printed frame line
    # within the card, whose outside is the white border). 1.0: off.
    snap_paper: float = 1.0
    snap_paper_margin: int = 24  # "as bright as the paper": within this of the brightest sample across the side
    repair_skew: bool = True  # rebuild the one corner of an outline that is off (see repair_skewed)
    # On a calibrated table every card is one rectangle: an outline off that size, or with a side off edges,
    # is moved onto the deck's rectangle whose sides lie best on edges nearby (see fit_deck).
    deck_fit: bool = True
    deck_fit_error: float = 0.06  # corner distance from the deck's rectangle, in card widths, that is off
    deck_fit_shift: float = 0.2  # how far the search moves the rectangle, in card widths
    deck_fit_turn: float = 6.0  # and turns it, degrees
    # An outline whose sides are under this share of the deck's (on the plane) is not a card's edge but a court
    # card's printed frame (or a piece of the card): the deck's rectangle around it is taken when every side
    # lies on edges, however well the outline itself does (0 turns this off). Where none fits at the
    # outline's own pose, it is searched turned a quarter too (``deck_fit_across``): a printed frame can be
    # wider than tall. Chosen on the validation set (docs/performance.md).
    deck_fit_small: float = 0.8
    deck_fit_across: bool = True
    # Where no rectangle of the deck's size fits around an outline under deck_fit_small, one whose sides differ
    # from the deck's by up to this share is searched for about the outline's centre: the deck is the median
    # outline, and a card can be a few percent larger (0 turns this off). For every outline searched with
    # ``deck_fit_sizes_all``: on the validation set +2 realistic and +5 hard cards more over four runs, for
    # 1.3-3.4 ms more a frame, not taken (docs/performance.md).
    deck_fit_sizes: float = 0.08
    deck_fit_sizes_all: bool = False
    # An outline off the deck's size (``deck_fit_error``) that lies on edges as well as the deck's rectangle (the
    # cloth's squares or the table's edge taken in beside the card, a back's printed frame line inside it) is
    # replaced too, where no rectangle lies better (``deck_fit_off_size``): by the rectangle (also resized) whose
    # sides lie on edges for 0.9, with a card's paper margin, and on every side whiter inside than outside (by
    # ``size_whiter``) for ``deck_fit_whiter`` of it: a card's edge on the table, not a printed frame line inside
    # the card with paper on both sides. On: over six held-out seeds hard found +26 (image) and
    # +19 (calibrated) cards, realistic +1 and +2; on validation (both modes) hard +44 and realistic +12, with
    # fewer false cards (docs/performance.md).
    deck_fit_off_size: bool = True
    deck_fit_whiter: float = 0.5
    # The rectangle found is then snapped onto the edges only where that moves no corner by this much (card
    # widths, on the plane): a refinement of the search's grid, not a jump onto a printed frame line inside
    # the card, which undid the fit (docs/performance.md, "The deck fit keeps the deck's size").
    deck_fit_snap: float = 0.03
    # Without a calibrated table, the plane on which the outlines found are one rectangle
    # (``vision.plane_from_cards``) stands in for it in the size pass and the deck fit.
    estimate_plane: bool = True
    size_pass_estimated: bool = True  # the size pass on that plane too (the deck fit always uses it)
    # The estimate is refused when the outlines' sides on it spread by more than this (median absolute
    # deviation over the median; ``plane_from_cards``'s ``spread``). In a frame with motion blur most outlines
    # are a few pixels off before snapping, and 0.04 refused the plane of such frames (those of
    # test_the_plane_from_motion_blurred_outlines_is_not_refused); 0.06 gave +12 hard cards found over six
    # seeds, 0.08 one fewer (docs/performance.md, "The plane from motion-blurred outlines").
    plane_spread: float = 0.06
    # Where no plane fits every outline, it is sought without one of them, in turn for each of this many
    # whose area is furthest from the median (``plane_from_cards``'s ``drop``): a court card outlined on its
    # printed frame among five to seven outlines bent the fit and the frame had no plane, so the deck fit could
    # not move that outline onto its card. Chosen on the validation set (docs/performance.md).
    plane_drop: int = 2
    # With a plane estimated from the cards, the candidates where no card was found are judged again with the
    # plane's shape tests (as on a calibrated table): a card squeezed by a strong tilt is longer than
    # ``max_aspect`` in the image but a card on the plane. Raising ``max_aspect`` instead (1.95, 2.05) found
    # as many hard cards but lost realistic ones and added false cards (docs/performance.md).
    plane_rescue: bool = True
    # Without a calibrated table (and with ``estimate_plane``), detect the frame a second time with the plane
    # estimated from the first detection's final outlines given as if calibrated (``replan``): the shape tests,
    # the repair, the size pass and the deck fit then all judge on the table, on a plane fitted to snapped and
    # fitted outlines rather than to the first look's. The second result is kept unless it has fewer outlines
    # (the stricter shape tests on a plane a little off can refuse a card). Chosen on the validation set (image
    # sets: realistic named +6 and 0, hard named +7 and -1); over the six held-out seeds hard named 8,459 ->
    # 8,472, realistic +1, hard false cards fewer. It costs a second detection of each such frame; a calibrated table
    # (the table watcher's) has
    # nothing to estimate and is not affected (docs/performance.md).
    replan: bool = True
    # ``replan`` only where a card's area of paper (the Otsu mask, opened 5x5) lies outside the first detection's
    # outlines: where none does (felt or wood with every card found; 18 of ``detect_stages.py``'s 40 speed frames)
    # the second detection has no card to find (docs/performance.md).
    replan_gate: bool = True
    # How far perspective can turn a card's opposite sides apart: sine of the angle between them per pixel
    # of their distance. A camera 30 degrees off vertical with a ~65-degree lens gives about 0.0006; the
    # generated scenes' cards reach 0.0005, outlines with one corner off 0.0006-0.0026.
    max_perspective: float = 0.0007
    # Of one card's outlines, the largest whose weakest side lies on edges within this much of the best
    # one's wins. 0.15 let an outline with a corner off the card win on a patterned cloth once grey edges
    # were traced lower (round 5); 0.1 is as good or better on every measured frame set.
    pick_margin: float = 0.1
    # Two card-shaped outlines filling a larger one are two cards (closed into one outline) only where their
    # facing sides lie on edges; else they are pieces of one card's paper (``outline_candidates._apart``).
    halves_apart: bool = True
    faint_low: int = 12
    faint_high: int = 36
    max_corner_cos: float = 0.4  # corners within about 66..114 degrees
    # The table plane, when the table is calibrated: a homography (9 floats, row-major) from full-resolution
    # image pixels to any metric plane coordinates (the mat's millimetres). The shape tests (aspect,
    # opposite sides, corner angles) are then made on the table, where every card is a rectangle, instead
    # of in the image, where a far-side card of a tilted camera reads 0.9..2.1 (``detect_cards(plane=)``).
    plane: tuple[float, ...] | None = None
    plane_min_aspect: float = 1.25  # poker 88/63 = 1.40, bridge 89/57 = 1.56, mini 67/44 = 1.52
    plane_max_aspect: float = 1.75
    # Opposite sides and corners: a card on the table is a rectangle, but the rough corners (before the
    # sides are snapped) of true cards reach a side ratio of 1.25 and a corner cosine of 0.26 there.
    plane_side_ratio: float = 1.3
    plane_corner_cos: float = 0.3  # corners within about 73..107 degrees
    plane_max_skew: float = 0.07  # opposite sides within 4 degrees of parallel, else a corner is off

    @cached_property  # a frozen dataclass: computed once per config, not per pass or contour
    def loose(self) -> DetectorConfig:
        """Wider limits for the rough corners, before the sides are fitted."""
        return replace(
            self,
            min_aspect=self.min_aspect * 0.9,
            max_aspect=self.max_aspect * 1.1,
            min_solidity=self.min_solidity * 0.95,
            max_corner_cos=self.max_corner_cos + 0.1,
            max_side_ratio=self.max_side_ratio * 1.1,
            plane_min_aspect=self.plane_min_aspect * 0.9,
            plane_max_aspect=self.plane_max_aspect * 1.1,
            plane_side_ratio=self.plane_side_ratio * 1.1,
            plane_corner_cos=self.plane_corner_cos + 0.1,
        )

    @cached_property
    def near_rectangle(self) -> DetectorConfig:
        """Tighter shape limits for an outline with a side not seen on edges: opposite sides within 12-15%,
        corners within ~7-12 degrees of square (rough corners, before snapping), proportions of real cards
        (poker 1.40, bridge 1.56) rather than of any oblong."""
        return replace(
            self,
            max_side_ratio=1.15,
            max_corner_cos=0.2,
            plane_side_ratio=1.12,
            plane_corner_cos=0.12,
            min_aspect=1.2,
            max_aspect=1.7,
            plane_min_aspect=1.3,
            plane_max_aspect=1.65,
        )


DEFAULT_CONFIG = DetectorConfig()
