"""Command-line interface: `notes [--store PATH] {add,list} ...`."""
import argparse
import sys

from notes.store import Store, StoreError

DEFAULT_STORE = "data/notes.json"


def format_note(note):
    return f"{note['id']:>3}  {note['text']}  [{','.join(note['tags'])}]"


def build_parser():
    parser = argparse.ArgumentParser(prog="notes", description="A tiny command-line notebook.")
    parser.add_argument("--store", default=DEFAULT_STORE, help="path of the JSON store")
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="add a note")
    add.add_argument("text")
    add.add_argument("--tag", action="append", default=[], help="tag the note (repeatable)")
    lst = sub.add_parser("list", help="list notes")
    lst.add_argument("--tag", action="append", default=[], type=_tag,
                     help="only notes carrying this tag (repeatable: all must match; case-insensitive)")
    return parser


def _tag(text):
    """argparse type for --tag: a non-blank tag, compared case-insensitively."""
    if not text.strip():
        raise argparse.ArgumentTypeError("tag must not be empty")
    return text.strip()


def cmd_add(store, args):
    if not args.text.strip():
        print("error: empty note", file=sys.stderr)
        return 1
    note = store.add(args.text.strip(), args.tag)
    store.save()
    print(f"added {note['id']}")
    return 0


def _matches(note, wanted):
    tags = set(note["tags"])
    return all(tag in tags for tag in wanted)


def cmd_list(store, args):
    selected = [note for note in store.notes if _matches(note, args.tag)]
    if args.tag and not selected:
        print("no matching notes", file=sys.stderr)
        return 1
    for note in selected:
        print(format_note(note))
    return 0


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        store = Store(args.store)
        return {"add": cmd_add, "list": cmd_list}[args.command](store, args)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
