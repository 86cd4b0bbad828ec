"""``cardtable watch CAMERA_SPEC``: print table events live (JSON Lines with ``--json``)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.errors import VisionError


def configure(parser: argparse.ArgumentParser) -> None:
    from vision.cli_recognize import add_learned_argument

    parser.add_argument(
        "camera",
        help="camera spec: picam:, usb:0, rtsp://..., file:VIDEO, folder:DIR/, "
        "sim:GAME,N[?seed=S&tilt=DEG] (see vision/camera.py)",
    )
    parser.add_argument("--mat", default=None, help="GAME,N or a layout JSON (default: the sim's, else chinese-ten,3)")
    parser.add_argument("--json", action="store_true", help="one JSON object per event per line")
    parser.add_argument("--probabilities", action="store_true", help="include the 53 class probabilities")
    parser.add_argument(
        "--annotate",
        metavar="OUT",
        help="annotated frames: 'show' (a window), a folder (one "
        "PNG per event frame) or a .mp4/.avi video of every frame",
    )
    parser.add_argument("--frames", type=int, default=None, help="stop after this many frames")
    parser.add_argument(
        "--fixed",
        metavar="X,Y,...",
        help="no markers: the 4 mat corners in the image (x0,y0,x1,y1,x2,y2,x3,y3 px, clockwise from top-left)",
    )
    parser.add_argument("--model", default=None, help="ONNX model (default models/cardnet.onnx)")
    add_learned_argument(parser)
    from vision.cli_recognize import add_deck_arguments

    add_deck_arguments(parser)
    parser.add_argument("--oracle", action="store_true", help=argparse.SUPPRESS)  # sim truth, for debugging


def run(args: argparse.Namespace) -> int:
    from vision.calibration import Calibration
    from vision.camera import SimSource, camera_for
    from vision.watcher import TableWatcher
    from vision.zones import parse_mat_spec

    try:
        source = camera_for(args.camera)
        if args.mat:
            layout = parse_mat_spec(args.mat)
        elif isinstance(source, SimSource):
            layout = source.sim.layout
        else:
            layout = parse_mat_spec("chinese-ten,3")
        fixed = None
        if args.fixed:
            vals = [float(v) for v in args.fixed.split(",")]
            if len(vals) != 8:
                raise VisionError("--fixed needs 8 numbers: the 4 mat corners x,y in the image")
            fixed = Calibration.fixed(layout, np.array(vals).reshape(4, 2))
        if args.oracle and not isinstance(source, SimSource):
            raise VisionError("--oracle needs a sim: camera")
        source.open()
        try:
            if isinstance(source, SimSource) and args.oracle:
                from vision.simtable import SimOracle

                recognizer: Any = SimOracle(source.sim)
            else:
                from vision.cli_recognize import with_deck
                from vision.events import UNKNOWN
                from vision.recognizer import Recognizer

                # a card of another deck is "unknown" to the tracker and the referee
                recognizer = with_deck(Recognizer(args.model, learned=args.learned), args, foreign=UNKNOWN)
        except BaseException:
            source.close()
            raise
    except (VisionError, OSError, ValueError) as exc:
        print(f"cardtable watch: {exc}", file=sys.stderr)
        return 2
    except NotImplementedError as exc:
        print(f"cardtable watch: the recogniser is not available yet ({exc})", file=sys.stderr)
        return 2
    watcher = TableWatcher(layout, recognizer, calibration=fixed)
    writer = _Annotator(args.annotate, source.fps) if args.annotate else None
    n_events = 0
    try:
        for frame in source.frames(args.frames):
            try:
                events = watcher.process(frame.image, frame_index=frame.index, timestamp=frame.timestamp)
            except (VisionError, ValueError, cv2.error) as exc:  # one bad frame never stops the watch
                print(f"frame {frame.index}: {exc}", file=sys.stderr)
                continue
            for e in events:
                n_events += 1
                if args.json:
                    print(json.dumps(e.to_dict(probabilities=args.probabilities)), flush=True)
                else:
                    print(f"{time.strftime('%H:%M:%S')}  {e.describe()}", flush=True)
            if writer is not None:
                writer.write(frame.image, frame.index, watcher, events)
    except VisionError as exc:
        print(f"cardtable watch: {exc}", file=sys.stderr)
        return 1
    finally:
        source.close()
        if writer is not None:
            writer.close()
    st = watcher.stats
    print(
        f"{st.frames} frames, {n_events} events, recognised {st.recognised} whole and {st.regional} around a change, "
        f"re-classified {st.reclassified}, "
        f"hand in view {st.occluded}, "
        f"unchanged {st.skipped_static}, uncalibrated {st.uncalibrated}",
        file=sys.stderr,
    )
    return 0


class _Annotator:
    def __init__(self, out: str, fps: float) -> None:
        self.path = Path(out)
        self.video: cv2.VideoWriter | None = None
        self.fps = fps
        self.show = out == "show"
        if not self.show and self.path.suffix.lower() not in (".mp4", ".avi"):
            self.path.mkdir(parents=True, exist_ok=True)

    def write(self, image: np.ndarray, index: int, watcher: Any, events: list[Any]) -> None:
        img = draw_annotations(image, watcher)
        if self.show:
            cv2.imshow("cardtable watch", img)
            if cv2.waitKey(1) & 0xFF in (ord("q"), 27):
                raise KeyboardInterrupt
        elif self.path.suffix.lower() in (".mp4", ".avi"):
            if self.video is None:
                fourcc = cv2.VideoWriter.fourcc(*("mp4v" if self.path.suffix.lower() == ".mp4" else "MJPG"))
                self.video = cv2.VideoWriter(str(self.path), fourcc, self.fps, (img.shape[1], img.shape[0]))
            self.video.write(img)
        elif events:
            cv2.imwrite(str(self.path / f"frame{index:06d}.png"), img)

    def close(self) -> None:
        if self.video is not None:
            self.video.release()
        if self.show:
            cv2.destroyAllWindows()


def draw_annotations(image: np.ndarray, watcher: Any) -> np.ndarray:
    """Outlines and names of the tracked cards, zone outlines, and the hand/occlusion state."""
    img = image.copy()
    cal = watcher.calibration
    if cal is not None:
        for z in watcher.layout.zones:
            x, y, w, h = z.rect
            pts = cal.to_image(np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]))
            cv2.polylines(img, [np.round(pts).astype(np.int32)], True, (200, 200, 0), 1, cv2.LINE_AA)
    for t in watcher.tracker.tracks.values():
        colour = (0, 220, 0) if t.confirmed else (0, 200, 255)
        quad = np.round(np.asarray(t.corners).reshape(4, 2)).astype(np.int32)
        cv2.polylines(img, [quad], True, colour, 2, cv2.LINE_AA)
        text = f"{t.label or '?'} {t.zone or ''}"
        org = (int(quad[:, 0].min()), max(12, int(quad[:, 1].min()) - 4))
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    if watcher.last_occluded:
        cv2.putText(img, "HAND: events held", (10, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 255), 2, cv2.LINE_AA)
    return img
