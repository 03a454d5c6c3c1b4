"""Command-line interface: `todo [--file PATH] {add,list} ...`."""
import argparse
import sys

from todo.storage import Item, StorageError, load_items, save_items

DEFAULT_FILE = "data/todo.txt"


def build_parser():
    parser = argparse.ArgumentParser(prog="todo", description="A plain-text todo list.")
    parser.add_argument("--file", default=DEFAULT_FILE, help="path of the todo file")
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="add a task")
    add.add_argument("text")
    sub.add_parser("list", help="list tasks")
    done = sub.add_parser("done", help="mark tasks as done")
    done.add_argument("ids", nargs="+", type=int, metavar="ID", help="task number as shown by list")
    return parser


def cmd_add(args):
    text = args.text.strip()
    if not text:
        print("error: empty task", file=sys.stderr)
        return 1
    items = load_items(args.file)
    items.append(Item(text))
    save_items(args.file, items)
    print(f"added {len(items)}")
    return 0


def cmd_list(args):
    for number, item in enumerate(load_items(args.file), start=1):
        print(f"{number:>3} {item.render()}")
    return 0


def cmd_done(args):
    items = load_items(args.file)
    ids = list(dict.fromkeys(args.ids))  # each number once, in the order given
    unknown = [n for n in ids if not 1 <= n <= len(items)]
    if unknown:
        print(f"error: no task {unknown[0]}")
        return 1
    lines = []
    for n in ids:
        item = items[n - 1]
        lines.append(f"{'already done' if item.done else 'done'} {n}: {item.text}")
        item.done = True
    save_items(args.file, items)
    print("\n".join(lines))
    return 0


COMMANDS = {"add": cmd_add, "list": cmd_list, "done": cmd_done}


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except StorageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
