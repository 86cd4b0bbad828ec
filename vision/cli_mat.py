"""``cardtable mat``: draw a printable play mat for a game and player count."""

from __future__ import annotations

import argparse
import sys

from vision.errors import VisionError
from vision.zones import available_layouts, layout_for, load_layout


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default="chinese-ten", help="chinese-ten, frog or garbage (default chinese-ten)")
    parser.add_argument("--players", type=int, default=3, help="number of players (default 3)")
    parser.add_argument("--layout", help="a layout JSON file instead of the shipped one (docs/zones.md)")
    parser.add_argument("--out", help="output file, .pdf or .png (true size)")
    parser.add_argument("--dpi", type=float, default=150.0, help="print resolution (default 150)")
    parser.add_argument("--plain", action="store_true", help="outlines on white instead of the green print")
    parser.add_argument("--list", action="store_true", help="list the shipped layouts and exit")


def run(args: argparse.Namespace) -> int:
    if args.list:
        for name, path in available_layouts().items():
            layout = load_layout(path)
            print(f"{name:16} {layout.mat_name:15} {layout.width_mm:.0f}x{layout.height_mm:.0f} mm")
        return 0
    if not args.out:
        print("cardtable mat: --out FILE.pdf|FILE.png is required", file=sys.stderr)
        return 2
    from vision.mat import write_mat

    try:
        layout = load_layout(args.layout) if args.layout else layout_for(args.game, args.players)
        if not 30 <= args.dpi <= 600:
            raise VisionError(f"--dpi must be 30..600, got {args.dpi}")
        path = write_mat(layout, args.out, dpi=args.dpi, plain=args.plain)
    except (VisionError, OSError) as exc:
        print(f"cardtable mat: {exc}", file=sys.stderr)
        return 2
    print(
        f"{path}: {layout.name} on {layout.mat_name} ({layout.width_mm:.0f} x {layout.height_mm:.0f} mm); "
        "print at 100% scale and check the 100 mm bar"
    )
    return 0
