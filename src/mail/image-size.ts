/**
 * The natural size of a picture from its first bytes (PNG, GIF, JPEG, WebP), so the e-mail
 * HTML can give every embedded image width/height attributes (Outlook on Windows sizes
 * images by them, not by CSS). Pure; null when the format is unknown or the header broken.
 */

export interface ImageSize {
  width: number;
  height: number;
}

const be16 = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
const le16 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
const be32 = (b: Uint8Array, i: number) => ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;
const ascii = (b: Uint8Array, i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));

function jpegSize(b: Uint8Array): ImageSize | null {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    // SOF0..SOF15 except DHT (c4), JPG (c8) and DAC (cc) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: be16(b, i + 5), width: be16(b, i + 7) };
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    i += 2 + be16(b, i + 2);
  }
  return null;
}

export function imageSize(b: Uint8Array): ImageSize | null {
  let s: ImageSize | null = null;
  if (b.length >= 24 && b[0] === 0x89 && ascii(b, 1, 3) === 'PNG' && ascii(b, 12, 4) === 'IHDR')
    s = { width: be32(b, 16), height: be32(b, 20) };
  else if (b.length >= 10 && ascii(b, 0, 4) === 'GIF8') s = { width: le16(b, 6), height: le16(b, 8) };
  else if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) s = jpegSize(b);
  else if (b.length >= 30 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') {
    const kind = ascii(b, 12, 4);
    if (kind === 'VP8X')
      s = {
        width: 1 + (b[24]! | (b[25]! << 8) | (b[26]! << 16)),
        height: 1 + (b[27]! | (b[28]! << 8) | (b[29]! << 16)),
      };
    else if (kind === 'VP8 ') s = { width: le16(b, 26) & 0x3fff, height: le16(b, 28) & 0x3fff };
    else if (kind === 'VP8L' && b.length >= 25) {
      const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
      s = { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
  }
  return s && s.width > 0 && s.height > 0 ? s : null;
}

/** Sizes of the pictures among `files`, by file name. */
export function imageSizes(files: readonly { filename: string; content: Uint8Array }[]): Map<string, ImageSize> {
  const out = new Map<string, ImageSize>();
  for (const f of files) {
    const s = imageSize(f.content);
    if (s) out.set(f.filename, s);
  }
  return out;
}
