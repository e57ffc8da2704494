/**
 * The committed icons (written by scripts/make-icons.mjs) are what the tray code and
 * electron-builder load, so they are checked as files: PNG signatures, chunk CRCs and
 * sizes; template images decoded and found to be black + alpha only; the three tray
 * states told apart by their alpha (the only thing a macOS template image has) and by
 * brightness in the coloured variants; the app icon one large PNG, from which
 * electron-builder makes the platform formats. The decoder here is independent of the
 * script's encoder.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { expectedIconFiles } from '../../main/app/icons.js';

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

    it(`${state}: a 32 px colour PNG for Linux and Windows`, () => {
      const png = decodePng(read(`${ASSETS}/tray-${state}.png`));
      expect([png.width, png.height]).toEqual([32, 32]);
      expect(isBlackAndAlphaOnly(png)).toBe(false);
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

describe('application icon', () => {
  it('is one 1024 px PNG, and no platform file is left beside it to go stale', () => {
    const master = decodePng(read('build/icon.png'));
    expect([master.width, master.height]).toEqual([1024, 1024]);
    // Transparent corners (the rounded tile inside Apple's icon grid), an opaque middle.
    expect(master.rgba[3]).toBe(0);
    expect(master.rgba[(512 * 1024 + 512) * 4 + 3]).toBe(255);
    // electron-builder makes .icns, .ico and the Linux sizes from the PNG when it packages.
    for (const stale of ['build/icon.icns', 'build/icon.ico', 'build/icons']) {
      expect(existsSync(join(projectDir, stale)), stale).toBe(false);
    }
  });
});

describe('tray assets', () => {
  it('are exactly the files the tray code loads', () => {
    expect(readdirSync(join(projectDir, ASSETS)).sort()).toEqual(expectedIconFiles().sort());
  });
});
