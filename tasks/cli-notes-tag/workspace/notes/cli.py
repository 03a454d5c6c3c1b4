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
    sub.add_parser("list", help="list notes")
    return parser


def cmd_add(store, args):
    if not args.text.strip():
        print("error: empty note", file=sys.stderr)
        return 1
    note = store.add(args.text.strip(), args.tag)
    store.save()
    print(f"added {note['id']}")
    return 0


def cmd_list(store, args):
    for note in store.notes:
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
