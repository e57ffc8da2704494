/**
 * The committed icons (written by scripts/make-icons.mjs) are what the tray code and
 * electron-builder load, so they are checked as files: PNG signatures, chunk CRCs and
 * sizes; template images decoded and found to be black + alpha only; the three tray
 * states told apart by their alpha (the only thing a macOS template image has) and by
 * brightness in the coloured variants; ICO and ICNS containers walked entry by entry.
 * The decoder here is independent of the script's encoder.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const projectDir = fileURLToPath(new URL('../..', import.meta.url));
const read = (relative: string) => readFileSync(join(projectDir, relative));

const STATES = ['healthy', 'degraded', 'down'] as const;
const ASSETS = 'main/app/assets';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// ─── A small PNG reader ──────────────────────────────────────────────────────────
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

interface Image {
  width: number;
  height: number;
  /** RGBA, 8 bits per channel, row by row. */
  rgba: Buffer;
}

/** Reads the IHDR of a PNG after checking its signature and every chunk's CRC. */
function pngHeader(buf: Buffer): { width: number; height: number; bitDepth: number; colorType: number } {
  if (!buf.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('bad PNG signature');
  let offset = 8;
  const types: string[] = [];
  while (offset < buf.length) {
    const length = buf.readUInt32BE(offset);
    const body = buf.subarray(offset + 4, offset + 8 + length);
    if (crc32(body) !== buf.readUInt32BE(offset + 8 + length)) throw new Error(`bad CRC in chunk ${types.length}`);
    types.push(body.toString('latin1', 0, 4));
    offset += 12 + length;
  }
  if (types[0] !== 'IHDR' || types.at(-1) !== 'IEND') throw new Error(`bad chunk order: ${types.join(',')}`);
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20), bitDepth: buf[24] ?? 0, colorType: buf[25] ?? 0 };
}

/** Decodes an 8-bit RGBA, non-interlaced PNG (the only kind the icon script writes). */
function decodePng(buf: Buffer): Image {
  const { width, height, bitDepth, colorType } = pngHeader(buf);
  if (bitDepth !== 8 || colorType !== 6 || buf[28] !== 0) throw new Error('expected 8-bit RGBA, non-interlaced');
  const idat: Buffer[] = [];
  for (let offset = 8; offset < buf.length; ) {
    const length = buf.readUInt32BE(offset);
    if (buf.toString('latin1', offset + 4, offset + 8) === 'IDAT')
      idat.push(buf.subarray(offset + 8, offset + 8 + length));
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 4;
  if (raw.length !== height * (stride + 1)) throw new Error('IDAT size does not match IHDR');
  const rgba = Buffer.alloc(height * stride);
  const at = (x: number, y: number) => (x >= 0 && y >= 0 ? (rgba[y * stride + x] as number) : 0);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const a = at(x - 4, y);
      const b = at(x, y - 1);
      const c = at(x - 4, y - 1);
      let predictor: number;
      if (filter === 0) predictor = 0;
      else if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else throw new Error(`bad filter ${filter} on row ${y}`);
      rgba[y * stride + x] = ((raw[y * (stride + 1) + 1 + x] as number) + predictor) & 0xff;
    }
  }
  return { width, height, rgba };
}

const pixels = (img: Image) =>
  Array.from({ length: img.width * img.height }, (_, i) => img.rgba.subarray(i * 4, i * 4 + 4));
const alpha = (img: Image) => pixels(img).map((p) => p[3] as number);
/** Perceived brightness weighted by coverage: what is left of an image without colour. */
const luminance = (img: Image) =>
  pixels(img).map(
    (p) =>
      ((0.2126 * (p[0] as number) + 0.7152 * (p[1] as number) + 0.0722 * (p[2] as number)) * (p[3] as number)) / 255,
  );
/** Mean absolute difference of two equally long channels, 0–255. */
const meanDiff = (a: number[], b: number[]) =>
  a.reduce((sum, v, i) => sum + Math.abs(v - (b[i] as number)), 0) / a.length;
/** Share of pixels that differ by more than a quarter of the range. */
const changed = (a: number[], b: number[]) => a.filter((v, i) => Math.abs(v - (b[i] as number)) > 64).length / a.length;
const isBlackAndAlphaOnly = (img: Image) => pixels(img).every((p) => p[0] === 0 && p[1] === 0 && p[2] === 0);

// ─── Tray icons ──────────────────────────────────────────────────────────────────
describe('tray icons', () => {
  for (const state of STATES) {
    it(`${state}: a macOS template image at 16 px with a 32 px @2x, black + alpha only`, () => {
      const x1 = decodePng(read(`${ASSETS}/tray-${state}Template.png`));
      const x2 = decodePng(read(`${ASSETS}/tray-${state}Template@2x.png`));
      expect([x1.width, x1.height, x2.width, x2.height]).toEqual([16, 16, 32, 32]);
      for (const img of [x1, x2]) {
        expect(isBlackAndAlphaOnly(img)).toBe(true);
        const a = alpha(img);
        // A glyph, not an empty or a filled square: some solid ink, mostly clear.
        expect(a.filter((v) => v === 255).length / a.length).toBeGreaterThan(0.05);
        expect(a.filter((v) => v === 0).length / a.length).toBeGreaterThan(0.5);
      }
      // The @2x is the same drawing: box-filtered down to 16 px it matches the 1x.
      const down = Array.from({ length: 256 }, (_, i) => {
        const [x, y] = [(i % 16) * 2, Math.floor(i / 16) * 2];
        const a = alpha(x2);
        return (
          ((a[y * 32 + x] as number) +
            (a[y * 32 + x + 1] as number) +
            (a[(y + 1) * 32 + x] as number) +
            (a[(y + 1) * 32 + x + 1] as number)) /
          4
        );
      });
      expect(meanDiff(down, alpha(x1))).toBeLessThan(10);
    });

    it(`${state}: a 32 px colour PNG for Linux and a 16 + 32 px ICO for Windows`, () => {
      const png = decodePng(read(`${ASSETS}/tray-${state}.png`));
      expect([png.width, png.height]).toEqual([32, 32]);
      expect(isBlackAndAlphaOnly(png)).toBe(false);
      const ico = readIco(read(`${ASSETS}/tray-${state}.ico`));
      expect(ico.map((e) => e.width)).toEqual([16, 32]);
      // The ICO's 32 px image is the same picture as the PNG.
      expect(meanDiff(luminance(ico[1]?.image as Image), luminance(png))).toBeLessThan(1);
    });
  }

  it('tells healthy, degraded and down apart without colour, at 1x and @2x', () => {
    for (const suffix of ['Template.png', 'Template@2x.png']) {
      const [healthy, degraded, down] = STATES.map((s) => alpha(decodePng(read(`${ASSETS}/tray-${s}${suffix}`))));
      const pairs: Array<[number[], number[]]> = [
        [healthy as number[], degraded as number[]],
        [healthy as number[], down as number[]],
        [degraded as number[], down as number[]],
      ];
      for (const [a, b] of pairs) expect(changed(a, b)).toBeGreaterThan(0.03);
    }
    // In the coloured variants the badge shows in brightness too, not only in hue.
    const [healthy, degraded, down] = STATES.map((s) => luminance(decodePng(read(`${ASSETS}/tray-${s}.png`))));
    for (const [a, b] of [
      [healthy, degraded],
      [healthy, down],
      [degraded, down],
    ] as Array<[number[], number[]]>) {
      expect(changed(a, b)).toBeGreaterThan(0.03);
    }
  });

  it('detects a coloured image and a bad CRC, so the checks above can fail', () => {
    expect(isBlackAndAlphaOnly(decodePng(read(`${ASSETS}/tray-healthy.png`)))).toBe(false);
    const corrupt = Buffer.from(read(`${ASSETS}/tray-healthyTemplate.png`));
    corrupt[40] = (corrupt[40] as number) ^ 0xff;
    expect(() => decodePng(corrupt)).toThrow(/CRC/);
    const same = alpha(decodePng(read(`${ASSETS}/tray-downTemplate.png`)));
    expect(changed(same, same)).toBe(0);
  });
});

// ─── ICO and ICNS ────────────────────────────────────────────────────────────────
interface IcoEntry {
  width: number;
  height: number;
  format: 'png' | 'bmp';
  image: Image;
}

/** Walks an ICO: ICONDIR, ICONDIRENTRYs, then PNG or 32-bit BMP images that fit the file exactly. */
function readIco(buf: Buffer): IcoEntry[] {
  if (buf.readUInt16LE(0) !== 0 || buf.readUInt16LE(2) !== 1) throw new Error('not an ICO (reserved 0, type 1)');
  const count = buf.readUInt16LE(4);
  let expectedOffset = 6 + 16 * count;
  const entries: IcoEntry[] = [];
  for (let i = 0; i < count; i++) {
    const e = 6 + 16 * i;
    const width = buf[e] || 256;
    const height = buf[e + 1] || 256;
    const size = buf.readUInt32LE(e + 8);
    const offset = buf.readUInt32LE(e + 12);
    if (buf.readUInt16LE(e + 4) !== 1 || buf.readUInt16LE(e + 6) !== 32) throw new Error(`entry ${i}: not 32 bpp`);
    if (offset !== expectedOffset) throw new Error(`entry ${i}: data at ${offset}, expected ${expectedOffset}`);
    const data = buf.subarray(offset, offset + size);
    expectedOffset = offset + size;
    if (data.subarray(0, 8).equals(PNG_SIGNATURE)) {
      const image = decodePng(data);
      if (image.width !== width || image.height !== height) throw new Error(`entry ${i}: PNG size differs`);
      entries.push({ width, height, format: 'png', image });
    } else {
      entries.push({ width, height, format: 'bmp', image: readIcoBmp(data, width, height) });
    }
  }
  if (expectedOffset !== buf.length) throw new Error('ICO has trailing or missing bytes');
  return entries;
}

/** A BMP icon entry: BITMAPINFOHEADER (height doubled for the mask), bottom-up BGRA, 1-bit AND mask. */
function readIcoBmp(data: Buffer, width: number, height: number): Image {
  const maskStride = Math.ceil(width / 32) * 4;
  if (data.readUInt32LE(0) !== 40) throw new Error('BMP entry without BITMAPINFOHEADER');
  if (data.readInt32LE(4) !== width || data.readInt32LE(8) !== height * 2) throw new Error('BMP size differs');
  if (data.readUInt16LE(14) !== 32 || data.readUInt32LE(16) !== 0) throw new Error('BMP entry is not 32-bit BI_RGB');
  if (data.length !== 40 + width * height * 4 + maskStride * height) throw new Error('BMP entry has the wrong length');
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const src = 40 + ((height - 1 - y) * width + x) * 4;
      rgba.set(
        [data[src + 2] as number, data[src + 1] as number, data[src] as number, data[src + 3] as number],
        (y * width + x) * 4,
      );
      // The AND mask must agree with alpha: transparent where alpha is 0.
      const maskBit =
        ((data[40 + width * height * 4 + (height - 1 - y) * maskStride + (x >> 3)] as number) >> (7 - (x & 7))) & 1;
      if (maskBit !== (data[src + 3] === 0 ? 1 : 0)) throw new Error(`BMP mask disagrees with alpha at ${x},${y}`);
    }
  }
  return { width, height, rgba };
}

describe('application icon', () => {
  it('has a 1024 px master and a Linux set from 16 to 512 px', () => {
    const master = decodePng(read('build/icon.png'));
    expect([master.width, master.height]).toEqual([1024, 1024]);
    // Transparent corners (the rounded tile inside Apple's icon grid), an opaque middle.
    expect(master.rgba[3]).toBe(0);
    expect(master.rgba[(512 * 1024 + 512) * 4 + 3]).toBe(255);
    for (const size of [16, 32, 48, 64, 128, 256, 512]) {
      const { width, height } = pngHeader(read(`build/icons/${size}x${size}.png`));
      expect([width, height], `${size}x${size}.png`).toEqual([size, size]);
    }
  });

  it('has an ICNS whose entries are PNGs of the sizes their types promise', () => {
    const buf = read('build/icon.icns');
    expect(buf.toString('latin1', 0, 4)).toBe('icns');
    expect(buf.readUInt32BE(4)).toBe(buf.length);
    const expected: Record<string, number> = {
      ic07: 128,
      ic08: 256,
      ic09: 512,
      ic10: 1024,
      ic11: 32,
      ic12: 64,
      ic13: 256,
      ic14: 512,
    };
    const found: Record<string, number> = {};
    let offset = 8;
    while (offset < buf.length) {
      const type = buf.toString('latin1', offset, offset + 4);
      const length = buf.readUInt32BE(offset + 4);
      expect(length, type).toBeGreaterThan(8);
      const { width, height } = pngHeader(buf.subarray(offset + 8, offset + length));
      expect(width, type).toBe(height);
      found[type] = width;
      offset += length;
    }
    expect(offset).toBe(buf.length);
    expect(found).toEqual(expected);
  });

  it('has an ICO with 16 to 256 px images, 256 as PNG and the small ones as BMP', () => {
    const entries = readIco(read('build/icon.ico'));
    expect(entries.map((e) => [e.width, e.format])).toEqual([
      [16, 'bmp'],
      [24, 'bmp'],
      [32, 'bmp'],
      [48, 'bmp'],
      [64, 'bmp'],
      [256, 'png'],
    ]);
    // Every image is the same artwork: opaque in the middle, clear in the corner.
    for (const { width, image } of entries) {
      const mid = Math.floor(width / 2);
      expect(image.rgba[(mid * width + mid) * 4 + 3], `${width}px centre`).toBe(255);
      expect(image.rgba[3], `${width}px corner`).toBe(0);
    }
  });

  it('rejects a truncated container, so the checks above can fail', () => {
    const ico = read('build/icon.ico');
    expect(() => readIco(ico.subarray(0, ico.length - 1))).toThrow();
  });
});
