#!/usr/bin/env python3
"""Render async-profiler collapsed stacks (frame;frame;... count) as a flame graph SVG.

usage: flame.py STACKS.collapsed OUT.svg TITLE [ROOT_FRAME_SUBSTRING]
Only stacks through ROOT_FRAME_SUBSTRING are drawn, starting at that frame. Green: Turnstile
frames; blue: RocksDB; orange: the rest (Kafka, the JDK, native). The bench's --profile writes
the collapsed stacks (flame-<candidate>.collapsed) beside its HTML flame graph.
"""
import sys, html, hashlib

src, out, title = sys.argv[1], sys.argv[2], sys.argv[3]
root_match = sys.argv[4] if len(sys.argv) > 4 else None

def short(frame):
    frame = frame.split('(')[0].replace('_[j]', '').replace('_[i]', '').replace('_[k]', '')
    if '/' in frame and ' ' not in frame:
        frame = frame.replace('/', '.')
    if '.' in frame and '::' not in frame and not frame.endswith('.so'):
        parts = frame.split('.')
        # keep Class.method
        frame = '.'.join(parts[-2:]) if len(parts) >= 2 else frame
    return frame.replace('_[j]', '').replace('_[i]', '').replace('_[k]', '')

tree = {}
kind = {}  # frame name -> turnstile | rocksdb | other
total = 0
for line in open(src):
    line = line.rstrip('\n')
    if not line:
        continue
    stack, n = line.rsplit(' ', 1)
    n = int(n)
    frames = stack.split(';')
    if root_match:
        idx = [i for i, f in enumerate(frames) if root_match in f]
        if not idx:
            continue
        frames = frames[idx[0]:]
    total += n
    node = tree
    for f in frames:
        full = f.replace('/', '.')
        f = short(f)
        if f not in kind:
            kind[f] = ('turnstile' if 'dev.turnstile' in full
                       else 'rocksdb' if 'rocksdb' in full.lower()
                       else 'other')
        child = node.setdefault(f, [0, {}])
        child[0] += n
        node = child[1]

W, ROW, PAD = 1600, 16, 30
min_width = 1.0  # pixels: narrower frames are left out
rects = []
max_depth = [0]

def walk(node, x, depth, scale):
    for name, (count, children) in sorted(node.items()):
        w = count * scale
        if w >= min_width:
            rects.append((x, depth, w, name, count))
            max_depth[0] = max(max_depth[0], depth)
            walk(children, x, depth + 1, scale)
        x += w

walk(tree, 10, 0, (W - 20) / max(total, 1))
H = (max_depth[0] + 1) * ROW + PAD + 20

def colour(name):
    h = int(hashlib.md5(name.encode()).hexdigest()[:4], 16)
    if kind.get(name) == 'turnstile':
        return f"rgb({80 + h % 60},{150 + h % 80},{80 + h % 40})"
    if kind.get(name) == 'rocksdb':
        return f"rgb({60 + h % 40},{120 + h % 60},{200 + h % 55})"
    return f"rgb({205 + h % 50},{90 + h % 120},{40 + h % 40})"

with open(out, 'w') as o:
    o.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="Verdana" font-size="11">\n')
    o.write(f'<rect width="{W}" height="{H}" fill="#f8f8f8"/>\n')
    o.write(f'<text x="{W/2}" y="18" text-anchor="middle" font-size="15">{html.escape(title)}</text>\n')
    for x, depth, w, name, count in rects:
        y = H - 10 - (depth + 1) * ROW
        pct = 100.0 * count / total
        o.write(f'<g><title>{html.escape(name)} {pct:.1f}%</title>'
                f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{ROW-1}" fill="{colour(name)}" rx="2"/>')
        chars = int(w / 7)
        if chars >= 4:
            label = f"{name} {pct:.0f}%"
            if len(label) > chars:
                label = label[:chars - 2] + '..'
            o.write(f'<text x="{x+3:.1f}" y="{y+12}">{html.escape(label)}</text>')
        o.write('</g>\n')
    o.write('</svg>\n')
print(f"{out}: {total} samples, {len(rects)} frames, depth {max_depth[0]}")
