#!/usr/bin/env python3
"""PNG checks for the app tests with only the standard library (no PIL in CI).

png_check.py FILE size W H                 the image is W x H
png_check.py FILE nonblank                 many distinct colours and real contrast
png_check.py FILE has-color R G B TOL X0 Y0 X1 Y1
                                           some pixel in [X0,X1) x [Y0,Y1) is within TOL of (R,G,B)
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or interlace != 0 or color not in (2, 6):
        raise SystemExit(f"{path}: only 8-bit non-interlaced RGB/RGBA is supported here (got depth {depth}, colour {color})")
    bpp = 4 if color == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    path, cmd = sys.argv[1], sys.argv[2]
    width, height, bpp, rows = read_png(path)
    if cmd == "size":
        want = (int(sys.argv[3]), int(sys.argv[4]))
        if (width, height) != want:
            raise SystemExit(f"{path}: size {width}x{height}, expected {want[0]}x{want[1]}")
    elif cmd == "nonblank":
        colours, lo, hi = set(), 255, 0
        for y in range(0, height, 3):
            row = rows[y]
            for x in range(0, width, 3):
                px = row[x * bpp:x * bpp + 3]
                colours.add(px)
                lum = (px[0] + px[1] + px[2]) // 3
                lo, hi = min(lo, lum), max(hi, lum)
        if len(colours) < 500 or hi - lo < 100:
            raise SystemExit(f"{path}: looks blank ({len(colours)} colours, luminance {lo}..{hi})")
        print(f"{path}: {width}x{height}, {len(colours)} colours sampled, luminance {lo}..{hi}")
    elif cmd == "has-color":
        r, g, b, tol, x0, y0, x1, y1 = map(int, sys.argv[3:11])
        for y in range(max(y0, 0), min(y1, height)):
            row = rows[y]
            for x in range(max(x0, 0), min(x1, width)):
                px = row[x * bpp:x * bpp + 3]
                if abs(px[0] - r) <= tol and abs(px[1] - g) <= tol and abs(px[2] - b) <= tol:
                    print(f"{path}: colour ({r},{g},{b}) found at ({x},{y})")
                    return
        raise SystemExit(f"{path}: no pixel near ({r},{g},{b}) in [{x0},{x1})x[{y0},{y1})")
    elif cmd == "lacks-color":
        r, g, b, tol, x0, y0, x1, y1 = map(int, sys.argv[3:11])
        for y in range(max(y0, 0), min(y1, height)):
            row = rows[y]
            for x in range(max(x0, 0), min(x1, width)):
                px = row[x * bpp:x * bpp + 3]
                if abs(px[0] - r) <= tol and abs(px[1] - g) <= tol and abs(px[2] - b) <= tol:
                    raise SystemExit(f"{path}: colour ({r},{g},{b}) found at ({x},{y}), expected none in "
                                     f"[{x0},{x1})x[{y0},{y1})")
        print(f"{path}: no pixel near ({r},{g},{b}) in [{x0},{x1})x[{y0},{y1})")
    else:
        raise SystemExit(f"unknown check {cmd}")


if __name__ == "__main__":
    main()
