#!/usr/bin/env python3
"""Lists every pair of src/ files that name each other (crate::, super::, self:: and
child-module paths, in `use` lines or inline; comments and modules declared
under #[cfg(test)] left out, though not inline test modules), marking a module
and its own submodule, then every set of files that reach each other.

Run from the repository's root: python3 tools/file_cycles.py
docs/architecture.md ("Which files name each other") says which pairs may.
A rough reader of Rust, not a parser: it follows `mod` and `#[path]` from
src/lib.rs and resolves each path to the longest module prefix that is a file."""
import os, re, sys
from collections import defaultdict

ROOT = sys.argv[1] if len(sys.argv) > 1 else '.'
os.chdir(ROOT)

mods = {}      # module path tuple -> file
tests_only = set()  # files of modules declared under #[cfg(test)]: left out
files = {}     # file -> module path tuple
MOD_RE = re.compile(r'^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;')
PATH_RE = re.compile(r'#\[path\s*=\s*"([^"]+)"\]')

def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    out = []
    for line in text.split('\n'):
        # drop // comments, not inside strings (rough: only if // precedes any quote)
        i = line.find('//')
        if i >= 0 and line[:i].count('"') % 2 == 0:
            line = line[:i]
        out.append(line)
    return '\n'.join(out)

def walk(path, modpath, mod_rs):
    files[path] = modpath
    mods[modpath] = path
    d = os.path.dirname(path)
    lines = open(path).read().split('\n')
    pending = None
    test_only = False
    for line in lines:
        if line.strip() == '#[cfg(test)]':
            test_only = True
            continue
        m = PATH_RE.search(line)
        if m:
            pending = m.group(1)
            continue
        m = MOD_RE.match(line)
        if m:
            name = m.group(1)
            if pending:
                child = os.path.normpath(os.path.join(d, pending))
            elif mod_rs:
                child = os.path.join(d, name + '.rs')
                if not os.path.exists(child):
                    child = os.path.join(d, name, 'mod.rs')
            else:
                base = os.path.join(d, os.path.splitext(os.path.basename(path))[0])
                child = os.path.join(base, name + '.rs')
                if not os.path.exists(child):
                    child = os.path.join(base, name, 'mod.rs')
            pending = None
            if child.startswith('tests/') or not child.startswith('src/'):
                continue  # shared test helpers outside src
            if test_only:
                tests_only.add(child)
            test_only = False
            if os.path.exists(child):
                walk(child, modpath + (name,), child.endswith('mod.rs'))
            continue
        if line.strip() and not line.strip().startswith('#['):
            pending = None
            test_only = False

walk('src/lib.rs', (), True)
children = defaultdict(set)
for mp in mods:
    if mp:
        children[mp[:-1]].add(mp[-1])

def expand(prefix, body):
    """Expand a use tree body like a::{b, c::{d, e}} into full paths."""
    body = body.strip()
    res = []
    # split top-level at '::{'
    depth = 0
    if '{' not in body:
        return [prefix + [s for s in body.split('::') if s]]
    i = body.index('{')
    head = [s for s in body[:i].split('::') if s]
    inner = body[i+1:body.rindex('}')]
    parts, cur = [], ''
    for ch in inner:
        if ch == '{': depth += 1
        if ch == '}': depth -= 1
        if ch == ',' and depth == 0:
            parts.append(cur); cur = ''
        else:
            cur += ch
    parts.append(cur)
    for p in parts:
        p = p.strip()
        if not p:
            continue
        p = re.sub(r'\s+as\s+\w+$', '', p)
        res += expand(prefix + head, p)
    return res

def resolve(modpath, segs):
    """Resolve a path (list of segments starting with crate/super/self) to the file of the
    longest module prefix."""
    if segs[0] == 'crate':
        base, rest = (), segs[1:]
    else:
        base = modpath
        rest = list(segs)
        while rest and rest[0] in ('super', 'self'):
            if rest[0] == 'super':
                base = base[:-1]
            rest = rest[1:]
    best = base
    cur = base
    for s in rest:
        cur = cur + (s,)
        if cur in mods:
            best = cur
        else:
            break
    return mods.get(best)

edges = defaultdict(set)
for path, modpath in files.items():
    if path in tests_only:
        continue
    kids = '|'.join(sorted(children[modpath])) or 'crate'
    USE_RE = re.compile(r'\buse\s+((?:crate|super|self|' + kids + r')\b[^;]*);', re.S)
    PATH_REF = re.compile(r'(?<![\w:])((?:crate|super|' + kids + r')(?:::\w+)+)')
    text = strip_comments(open(path).read())
    # inline modules shift super::; track `mod x {` blocks by brace depth
    targets = []
    depth = 0
    inline = []  # stack of depths where inline mods opened
    for line in text.split('\n'):
        m = re.match(r'^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{', line)
        extra = len(inline)
        if m:
            inline.append(depth)
        extra_now = len(inline)
        mp = modpath + ('<inline>',) * (extra_now if m else extra)
        segs_list = []
        for u in USE_RE.finditer(line):
            segs_list += expand([], u.group(1))
        if not USE_RE.search(line):
            for r in PATH_REF.finditer(line):
                segs_list.append(r.group(1).split('::'))
        for segs in segs_list:
            # an inline mod's path: replace '<inline>' levels
            real = list(segs)
            base = mp
            if real[0] != 'crate':
                while real and real[0] in ('super', 'self') and base and base[-1] == '<inline>':
                    if real[0] == 'super':
                        base = base[:-1]
                    real = real[1:]
                base = tuple(b for b in base if b != '<inline>')
                if not real:
                    continue
                if real[0] not in ('super', 'self', 'crate'):
                    real = ['self'] + real
            t = resolve(base, real)
            if t and t != path and t not in tests_only:
                targets.append(t)
        depth += line.count('{') - line.count('}')
        while inline and depth <= inline[-1]:
            inline.pop()
    # multi-line use statements
    for u in USE_RE.finditer(text):
        if '\n' in u.group(1):
            for segs in expand([], ' '.join(u.group(1).split())):
                if segs[0] not in ('crate', 'super', 'self'):
                    segs = ['self'] + segs
                t = resolve(modpath, segs)
                if t and t != path and t not in tests_only:
                    targets.append(t)
    edges[path] |= set(targets)

print('pairs of files that refer to each other:')
seen = set()
for a in sorted(edges):
    for b in sorted(edges[a]):
        if a < b and a in edges[b]:
            fa, fb = files[a], files[b]
            kin = ' (a module and its own submodule)' if fa[:-1] == fb or fb[:-1] == fa else ''
            print(f'  {a} <-> {b}{kin}')
# strongly connected components (Tarjan)
index = {}; low = {}; stack = []; on = set(); comps = []; counter = [0]
sys.setrecursionlimit(10000)
def strong(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1:
            comps.append(sorted(comp))
for v in list(files):
    if v not in index:
        strong(v)
print('cycles (sets of files that reach each other):')
for c in sorted(comps):
    print('  {' + ', '.join(c) + '}')
