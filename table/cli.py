"""The ``cardtable`` command. Each subcommand lives in its own module, imported only when used,
so ``cardtable replay`` never pays for onnxruntime or OpenCV.

A command module provides ``configure(parser: argparse.ArgumentParser) -> None`` and
``run(args: argparse.Namespace) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from table.errors import TableError

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("table.cli_demo", "run the demo table (no hardware needed)"),
    "play": ("table.cli_play", "run a real table"),
    "replay": ("table.cli_replay", "replay a game record and print the result as JSON"),
    "history": ("table.cli_history", "list journalled games and matches"),
    "export": ("table.cli_history", "write the game record of a journalled game"),
    "journal": ("table.cli_journal", "check a journal, or go on with one refused as damaged"),
    "recognize": ("vision.cli_recognize", "find and name the cards in images or videos"),
    "watch": ("vision.cli_watch", "print table events from a camera"),
    "deck": ("vision.cli_deck", "teach the table your deck: learn, list, show, remove deck profiles"),
    "mat": ("vision.cli_mat", "draw a printable play mat"),
    "dealer-sim": ("firmware_bridge.cli_sim", "serve a simulated dealer machine"),
    "dealer": ("firmware_bridge.cli_dealer", "drive a dealer machine by hand"),
}


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardtable",
        description="Referee, dealer and scorekeeper for a real card table (Chinese Ten, Frog, Garbage).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = next((a for a in argv if not a.startswith("-")), None)
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module_name)
        if name == wanted:  # only the chosen command's module is imported
            module = importlib.import_module(module_name)
            configure = getattr(module, f"configure_{name.replace('-', '_')}", None) or module.configure
            configure(p)
            p.set_defaults(_run=getattr(module, f"run_{name.replace('-', '_')}", None) or module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list)
    args = parser.parse_args(args_list)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args))
    except TableError as exc:  # the commands handle their own; this edge keeps any other to one line
        print(f"cardtable {args.command}: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 2))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
