#!/usr/bin/env python3
"""Summarise per-CTA clocks of the stream kernels (cuda/stencil/cta_clocks.cuh).

Build with -DTILELAB_CTA_CLOCKS=ON, run e.g.
    TILELAB_CTA_CLOCKS=clocks.txt tilelab bench --size 4k --filters gaussian --mechanisms tma
then: scripts/cta-clocks.py clocks.txt

For each recorded launch: its span (first start to last end), the CTAs' durations, each SM's
last end, and the mean and worst duration by class: the CTA's launch rank on its SM (by block
index), whether its strip is at the image's left or right edge (E) and whether its segment is the
strip's first or last (T, the image's top or bottom).
"""
import collections
import statistics
import sys


def launches(path):
    """The file's launches, each with all its records (a list: a launch is complete only once the
    next header or the file's end has been read)."""
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                p = line.split()
                out.append({'kernel': ' '.join(p[1:p.index('radius')]), 'radius': int(p[p.index('radius') + 1]),
                            'grid': int(p[p.index('grid') + 1]), 'strips': int(p[p.index('strips') + 1]), 'ctas': []})
            elif line.strip() and out:
                cta, sm, strip, seg, segs, t0, t1 = map(int, line.split())
                out[-1]['ctas'].append({'cta': cta, 'sm': sm, 'strip': strip, 'seg': seg, 'segs': segs, 't0': t0, 't1': t1})
    return out


def summarise(l):
    ctas = [c for c in l['ctas'] if c['t1'] > 0]
    if not ctas:
        print(f"{l['kernel']} radius {l['radius']}: no records")
        return
    t0 = min(c['t0'] for c in ctas)
    us = lambda ns: ns / 1000.0
    dur = [us(c['t1'] - c['t0']) for c in ctas]
    print(f"== {l['kernel']} radius {l['radius']}: {l['grid']} CTAs, {l['strips']} strips, span "
          f"{us(max(c['t1'] for c in ctas) - t0):.2f} us; CTA durations min {min(dur):.2f} mean "
          f"{statistics.mean(dur):.2f} max {max(dur):.2f} us; starts within {us(max(c['t0'] for c in ctas) - t0):.2f} us")
    by_sm = collections.defaultdict(list)
    for c in ctas:
        by_sm[c['sm']].append(c)
    per_sm = collections.Counter(len(v) for v in by_sm.values())
    ends = [us(max(c['t1'] for c in v) - t0) for v in by_sm.values()]
    print(f"   {len(by_sm)} SMs ({', '.join(f'{n} with {k} CTAs' for k, n in sorted(per_sm.items()))}); "
          f"SM last end min {min(ends):.2f} mean {statistics.mean(ends):.2f} max {max(ends):.2f} us")
    rank = {}
    for v in by_sm.values():
        for r, c in enumerate(sorted(v, key=lambda c: c['cta'])):
            rank[c['cta']] = r
    classes = collections.defaultdict(list)
    for c in ctas:
        edge = 'E' if c['strip'] in (0, l['strips'] - 1) else '-'
        top = 'T' if c['seg'] in (0, c['segs'] - 1) else '-'
        classes[(rank[c['cta']], edge + top)].append(us(c['t1'] - c['t0']))
    print('   rank class  CTAs  mean   max  (durations, us)')
    for (r, k), v in sorted(classes.items()):
        print(f"   {r:4d} {k:5s} {len(v):5d} {statistics.mean(v):6.2f} {max(v):6.2f}")
    worst = sorted(by_sm.items(), key=lambda kv: -max(c['t1'] for c in kv[1]))[:4]
    for sm, v in worst:
        print(f"   SM {sm} ends {us(max(c['t1'] for c in v) - t0):.2f}: " +
              ', '.join(f"strip {c['strip']} seg {c['seg']}/{c['segs']} {us(c['t1'] - c['t0']):.2f}"
                        for c in sorted(v, key=lambda c: c['cta'])))


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: cta-clocks.py CLOCKS_FILE')
    for l in launches(sys.argv[1]):
        summarise(l)


if __name__ == '__main__':
    main()
