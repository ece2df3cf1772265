# Whether a PNG (8-bit RGB or RGBA, as browsers' screenshots are) shows something: decodes it
# with zlib and PNG's row filters (no imaging library needed) and counts its colours and the
# share of pixels that are not near white. Exits 1 for a blank-looking image.
#   png_ink.py FILE.png [MIN_COLOUR_BINS] [MIN_INK_SHARE]
import struct
import sys
import zlib

import numpy as np

path = sys.argv[1]
min_bins = int(sys.argv[2]) if len(sys.argv) > 2 else 16
min_ink = float(sys.argv[3]) if len(sys.argv) > 3 else 0.03
data = open(path, "rb").read()
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        if depth != 8 or ctype not in (2, 6):
            sys.exit(f"{path}: bit depth {depth}, colour type {ctype}: not 8-bit RGB(A)")
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
stride = w * bpp
raw = zlib.decompress(idat)
prev = np.zeros(stride, np.uint8)
rows = []
for y in range(h):
    f = raw[y * (stride + 1)]
    cur = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).copy()
    if f == 1:  # Sub: a running sum along each channel
        cur = (np.cumsum(cur.reshape(w, bpp).astype(np.int64), axis=0) & 255)
        cur = cur.astype(np.uint8).reshape(stride)
    elif f == 2:  # Up
        cur = cur + prev
    elif f in (3, 4):  # Average, Paeth: byte by byte
        r, p = cur.tolist(), prev.tolist()
        for x in range(stride):
            a = r[x - bpp] if x >= bpp else 0
            b = p[x]
            if f == 3:
                r[x] = (r[x] + (a + b) // 2) & 255
                continue
            c = p[x - bpp] if x >= bpp else 0
            q = a + b - c
            pa, pb, pc = abs(q - a), abs(q - b), abs(q - c)
            r[x] = (r[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        cur = np.array(r, np.uint8)
    rows.append(cur)
    prev = cur
px = np.stack(rows).reshape(h, w, bpp)[:, :, :3].astype(np.int32)
bins = len(np.unique((px // 16).reshape(-1, 3), axis=0))
ink = float(np.mean(px.sum(axis=2) < 3 * 235))
print(f"{path}: {w}x{h}, {bins} colour bins, {ink:.1%} of the pixels not white")
sys.exit(0 if bins >= min_bins and ink >= min_ink else 1)
