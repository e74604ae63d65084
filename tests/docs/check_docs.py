#!/usr/bin/env python3
"""Holds docs/ to its shape: docs/architecture.md is a map short enough to read in ten
minutes, every page in docs/ is reachable from it, and no relative link in docs/ or README.md
points at a file that is not there.

usage: check_docs.py [--root=DIR] [--max-lines=N] [--self-test]

Checks, each violation printed as FILE:LINE: error: ...
  - docs/architecture.md has at most N lines (default 300);
  - every docs/*.md other than architecture.md is the target of a link in architecture.md;
  - every relative link target in docs/*.md and README.md (outside code) exists.
Exit status: 0 clean, 1 violations, 2 usage. --self-test builds small broken trees in a
temporary folder and fails unless each violation is reported (and a clean tree is not).
"""
import os
import re
import sys
import tempfile

LINK = re.compile(r'\]\(([^)\s]+)\)')
FENCE = re.compile(r'^\s*```')
INLINE_CODE = re.compile(r'`[^`]*`')
DEFAULT_MAX_LINES = 300


def links_of(path):
    """Yields (line number, target) for each markdown link outside code."""
    in_fence = False
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            for match in LINK.finditer(INLINE_CODE.sub('', line)):
                yield number, match.group(1)


def is_relative(target):
    return not (re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', target) or target.startswith('#'))


def check(root, max_lines):
    errors = []
    docs = os.path.join(root, 'docs')
    arch = os.path.join(docs, 'architecture.md')
    if not os.path.isfile(arch):
        return [f"{arch}: error: missing (the map every docs page is linked from)"]
    with open(arch, encoding='utf-8') as f:
        count = sum(1 for _ in f)
    if count > max_lines:
        errors.append(f"{arch}:{count}: error: {count} lines; the map must stay within "
                      f"{max_lines} (move design notes to a docs/<topic>.md)")
    linked = set()
    for _, target in links_of(arch):
        if is_relative(target):
            linked.add(os.path.normpath(os.path.join(docs, target.split('#', 1)[0])))
    pages = sorted(name for name in os.listdir(docs) if name.endswith('.md'))
    for name in pages:
        path = os.path.join(docs, name)
        if name != 'architecture.md' and os.path.normpath(path) not in linked:
            errors.append(f"{path}:1: error: not linked from docs/architecture.md")
    sources = [os.path.join(docs, name) for name in pages]
    readme = os.path.join(root, 'README.md')
    if os.path.isfile(readme):
        sources.append(readme)
    for source in sources:
        for number, target in links_of(source):
            if not is_relative(target):
                continue
            file_part = target.split('#', 1)[0]
            if not file_part:
                continue
            resolved = os.path.join(os.path.dirname(source), file_part)
            if not os.path.exists(resolved):
                errors.append(f"{source}:{number}: error: link to '{target}', which does not "
                              f"exist")
    return errors


def write(root, relative, text):
    path = os.path.join(root, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)


def self_test():
    """Each broken tree must give exactly the expected errors; the clean one none."""
    clean_map = "# map\n\n[a](a.md) and [b](b.md#part)\n"
    cases = [
        ('clean', {'docs/architecture.md': clean_map, 'docs/a.md': '# a\n[map](architecture.md)\n',
                   'docs/b.md': '# b\n', 'README.md': '[d](docs/a.md)\n'}, []),
        ('too long', {'docs/architecture.md': clean_map + 'x\n' * 8, 'docs/a.md': '',
                      'docs/b.md': ''}, ['11 lines; the map must stay within 10']),
        ('unlinked page', {'docs/architecture.md': clean_map, 'docs/a.md': '', 'docs/b.md': '',
                           'docs/c.md': ''}, ['c.md:1: error: not linked']),
        ('dangling link in docs', {'docs/architecture.md': clean_map,
                                   'docs/a.md': 'see [x](gone.md#y)\n', 'docs/b.md': ''},
         ["a.md:1: error: link to 'gone.md#y', which does not exist"]),
        ('dangling link in README', {'docs/architecture.md': clean_map, 'docs/a.md': '',
                                     'docs/b.md': '', 'README.md': '\n[d](docs/gone.md)\n'},
         ["README.md:2: error: link to 'docs/gone.md'"]),
        ('links in code are not links', {'docs/architecture.md': clean_map,
                                         'docs/a.md': '`[x](gone.md)`\n```\n[y](gone.md)\n```\n',
                                         'docs/b.md': ''}, []),
        ('no map', {'docs/a.md': ''}, ['architecture.md: error: missing']),
    ]
    failures = 0
    for name, files, expected in cases:
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, 'docs'))
            for relative, text in files.items():
                write(root, relative, text)
            errors = check(root, 10)
        unmatched = [e for e in expected if not any(e in error for error in errors)]
        if unmatched or len(errors) != len(expected):
            failures += 1
            print(f"self-test '{name}': expected {expected}, got {errors}", file=sys.stderr)
    print(f"check_docs self-test: {len(cases) - failures} of {len(cases)} cases pass")
    return 1 if failures else 0


def main(argv):
    root, max_lines = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'), \
        DEFAULT_MAX_LINES
    for arg in argv:
        if arg == '--self-test':
            return self_test()
        if arg in ('-h', '--help'):
            print(__doc__)
            return 0
        if arg.startswith('--root='):
            root = arg[len('--root='):]
        elif arg.startswith('--max-lines=') and arg[len('--max-lines='):].isdigit():
            max_lines = int(arg[len('--max-lines='):])
        else:
            print(f"check_docs: error: unknown argument '{arg}' (see --help)", file=sys.stderr)
            return 2
    errors = check(os.path.normpath(root), max_lines)
    for error in errors:
        print(error)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
