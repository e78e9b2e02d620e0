/**
 * A small PNG decoder for screenshot checks (node:zlib + the PNG scanline filters): enough
 * for Chromium's screenshots, so tests read pixels without an image library.
 */
import { inflateSync } from 'node:zlib';

/** A decoded PNG: 8-bit RGB or RGBA, not interlaced (what Chromium's screenshots are). */
export interface Image {
  width: number;
  height: number;
  rgb: (x: number, y: number) => [number, number, number];
}

export function decodePng(png: Buffer): Image {
  if (png.subarray(1, 4).toString() !== 'PNG') throw new Error('not a PNG');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const [depth, colour, , , interlace] = png.subarray(24, 29);
  if (depth !== 8 || interlace !== 0 || (colour !== 2 && colour !== 6))
    throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
  const bpp = colour === 6 ? 4 : 3;
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const len = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const px = Buffer.alloc(stride * height);
  // undo each scanline's filter (PNG spec 9.2: None, Sub, Up, Average, Paeth)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let i = 0; i < stride; i++) {
      const v = raw[y * (stride + 1) + 1 + i]!;
      const a = i >= bpp ? px[y * stride + i - bpp]! : 0;
      const b = y > 0 ? px[(y - 1) * stride + i]! : 0;
      const c = i >= bpp && y > 0 ? px[(y - 1) * stride + i - bpp]! : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      px[y * stride + i] = (v + [0, a, b, (a + b) >> 1, paeth][filter]!) & 255;
    }
  }
  return {
    width,
    height,
    rgb: (x, y) => [px[y * stride + x * bpp]!, px[y * stride + x * bpp + 1]!, px[y * stride + x * bpp + 2]!],
  };
}
