#!/usr/bin/env node
/**
 * Draws every icon BreakerBar ships from one drawing, the glyph below, and writes them
 * where the build and the tray code expect them:
 *
 *   main/app/assets/tray-<state>Template.png / @2x  macOS menu bar, 16 and 32 px, black + alpha only
 *   main/app/assets/tray-<state>.png                 Linux and Windows tray, 32 px, colour
 *   build/icon.png                                   the app icon, 1024 px
 *
 * The app icon is one large PNG on purpose: electron-builder makes the macOS .icns, the
 * Windows .ico and the Linux sizes from it when it packages (electron-builder.yml).
 *
 * The states are told apart by shape, not colour, because a macOS template image is
 * only an alpha mask: healthy is the plain glyph, degraded adds a dot, down adds a cross.
 *
 * Rasterising is done by Debian's Chromium through playwright-core (no downloaded
 * browser); the PNG files are then written by this script with no image library, so the
 * output is byte-for-byte reproducible for a given Chromium.
 *
 *   node scripts/make-icons.mjs                 regenerate everything
 *   node scripts/make-icons.mjs --preview FILE  also write an enlarged contact sheet
 *   CHROMIUM_PATH=/path/to/chromium …           use another Chromium binary
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync, inflateSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));

// ─── The drawing ───────────────────────────────────────────────────────────────────
// One glyph on a 32-unit grid: the schematic symbol of an open switch, i.e. a bar with
// a break in it (two terminals) and the breaker's blade tripped up from its pivot.
// A 4-unit stroke on even coordinates lands on whole pixels at 16 px (1 unit = 0.5 px)
// and at 32 px, so the menu-bar icon stays crisp. The top-right corner is kept empty
// for the state badge, centred on a pixel centre at 16 px.
const STROKE = 4;
const LEFT_BAR = 'M3 22H10';
const RIGHT_BAR = 'M22 22H29';
const BLADE = 'M22 22L13 7';
const CONTACT = { cx: 10, cy: 22, r: 3 };
const PIVOT = { cx: 22, cy: 22, r: 3.5 };
const BADGE = { cx: 25, cy: 7 };

export const STATES = ['healthy', 'degraded', 'down'];

const circle = ({ cx, cy, r }, fill) => `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${fill}"/>`;
const line = (d, stroke) =>
  `<path d="${d}" fill="none" stroke="${stroke}" stroke-width="${STROKE}" stroke-linecap="round" stroke-linejoin="round"/>`;

/** The glyph in one colour (bars, terminals, blade). */
function glyph(color) {
  return `${line(LEFT_BAR, color)}${line(RIGHT_BAR, color)}${line(BLADE, color)}${circle(CONTACT, color)}${circle(PIVOT, color)}`;
}

/** The state badge: nothing when healthy, a dot when degraded, a cross when down. */
function badge(state, color) {
  const { cx, cy } = BADGE;
  if (state === 'degraded') return `<circle cx="${cx}" cy="${cy}" r="4.5" fill="${color}"/>`;
  if (state === 'down') {
    const d = `M${cx - 4} ${cy - 4}L${cx + 4} ${cy + 4}M${cx + 4} ${cy - 4}L${cx - 4} ${cy + 4}`;
    return `<path d="${d}" fill="none" stroke="${color}" stroke-width="3" stroke-linecap="round"/>`;
  }
  return '';
}

const svg = (size, viewBox, body) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="${viewBox}" shape-rendering="geometricPrecision">${body}</svg>`;

/** macOS template image: black on transparent, the system tints it for light and dark menu bars. */
const traySvgTemplate = (state, size) => svg(size, '0 0 32 32', `${glyph('#000')}${badge(state, '#000')}`);

/** Linux and Windows tray: a rounded tile in the state's colour, so it reads on light and dark panels. */
const TILE = { healthy: '#15803d', degraded: '#b45309', down: '#b91c1c' };
const traySvgColor = (state, size) =>
  svg(
    size,
    '0 0 32 32',
    `<rect x="0.5" y="0.5" width="31" height="31" rx="7" fill="${TILE[state]}"/>` +
      `<g transform="translate(16 16) scale(0.8) translate(-16 -16)">${glyph('#fff')}${badge(state, '#fff')}</g>`,
  );

/**
 * The application icon: the glyph on a dark slate tile following Apple's icon grid
 * (an 824-px body with a 185-px corner radius on a 1024 canvas), the blade in amber
 * and a green status light where the tray shows its badge.
 */
const appSvg = (size) =>
  svg(
    size,
    '0 0 1024 1024',
    `<defs>
      <linearGradient id="tile" x1="0" y1="0" x2="0" y2="1">
        <stop offset="0" stop-color="#334155"/><stop offset="1" stop-color="#0f172a"/>
      </linearGradient>
      <linearGradient id="amber" x1="0" y1="0" x2="1" y2="1">
        <stop offset="0" stop-color="#fcd34d"/><stop offset="1" stop-color="#f59e0b"/>
      </linearGradient>
      <radialGradient id="glow"><stop offset="0" stop-color="#4ade80" stop-opacity="0.55"/><stop offset="1" stop-color="#4ade80" stop-opacity="0"/></radialGradient>
      <filter id="shadow" x="-10%" y="-10%" width="120%" height="125%">
        <feDropShadow dx="0" dy="10" stdDeviation="14" flood-color="#000" flood-opacity="0.35"/>
      </filter>
    </defs>
    <rect x="100" y="100" width="824" height="824" rx="185" fill="url(#tile)" filter="url(#shadow)"/>
    <rect x="102" y="102" width="820" height="820" rx="183" fill="none" stroke="#fff" stroke-opacity="0.08" stroke-width="4"/>
    <g transform="translate(192 212) scale(20)">
      ${line(LEFT_BAR, '#e2e8f0')}${line(RIGHT_BAR, '#e2e8f0')}${circle(CONTACT, '#e2e8f0')}
      ${line(BLADE, 'url(#amber)')}${circle(PIVOT, '#f59e0b')}
      ${circle({ ...BADGE, r: 8 }, 'url(#glow)')}${circle({ ...BADGE, r: 3.5 }, '#22c55e')}
    </g>`,
  );

// ─── What gets written ─────────────────────────────────────────────────────────────
const ASSETS = 'main/app/assets';
const TRAY_COLOR_SIZE = 32;
const APP_SIZE = 1024;

// ─── PNG: decode (Chromium's screenshots) and encode (our files) ──────────────────
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function paeth(a, b, c) {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Decodes an 8-bit, non-interlaced PNG (grey, RGB, grey+alpha or RGBA) to RGBA. */
export function decodePng(buf) {
  if (!buf.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat = [];
  while (offset < buf.length) {
    const length = buf.readUInt32BE(offset);
    const type = buf.toString('latin1', offset + 4, offset + 8);
    const data = buf.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      colorType = data[9];
      if (data[8] !== 8 || data[12] !== 0) throw new Error('only 8-bit non-interlaced PNGs are supported');
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[colorType];
  if (!channels) throw new Error(`unsupported PNG colour type ${colorType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      const predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
      if (predictor === undefined) throw new Error(`bad PNG filter ${filter}`);
      pixels[y * stride + x] = (line[x] + predictor) & 0xff;
    }
  }
  const rgba = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const p = pixels.subarray(i * channels, (i + 1) * channels);
    const [r, g, b, a] =
      channels === 4
        ? p
        : channels === 3
          ? [p[0], p[1], p[2], 255]
          : channels === 2
            ? [p[0], p[0], p[0], p[1]]
            : [p[0], p[0], p[0], 255];
    rgba.set([r, g, b, a], i * 4);
  }
  return { width, height, rgba };
}

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Encodes RGBA pixels as an 8-bit RGBA PNG with no metadata (so equal pixels give equal bytes). */
export function encodePng({ width, height, rgba }) {
  const stride = width * 4;
  const rows = [];
  const zero = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const line = rgba.subarray(y * stride, (y + 1) * stride);
    const above = y > 0 ? rgba.subarray((y - 1) * stride, y * stride) : zero;
    // Try each filter and keep the one with the smallest sum of signed residuals (libpng's heuristic).
    let best = null;
    let bestScore = Number.POSITIVE_INFINITY;
    for (let filter = 0; filter < 5; filter++) {
      const out = Buffer.alloc(stride + 1);
      out[0] = filter;
      let score = 0;
      for (let x = 0; x < stride; x++) {
        const a = x >= 4 ? line[x - 4] : 0;
        const b = above[x];
        const c = x >= 4 ? above[x - 4] : 0;
        const predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
        const v = (line[x] - predictor) & 0xff;
        out[x + 1] = v;
        score += v < 128 ? v : 256 - v;
      }
      if (score < bestScore) {
        bestScore = score;
        best = out;
      }
    }
    rows.push(best);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// ─── Rasterising ───────────────────────────────────────────────────────────────────
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

async function openRenderer() {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}. On Debian: apt-get install -y chromium (or set CHROMIUM_PATH).`,
    );
  }
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  return {
    /** Renders an SVG string at its own pixel size on a transparent background, returns RGBA. */
    async render(markup, size) {
      await page.setViewportSize({ width: size, height: size });
      await page.setContent(
        `<!doctype html><html><head><style>html,body{margin:0;background:transparent}svg{display:block}</style></head><body>${markup}</body></html>`,
      );
      const shot = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
      return decodePng(shot);
    },
    async renderPage(html, width, height) {
      await page.setViewportSize({ width, height });
      await page.setContent(html);
      return page.screenshot({ fullPage: true });
    },
    close: () => browser.close(),
  };
}

/** A template image must be black + alpha only; anti-aliasing must not have left colour behind. */
function toTemplate(image) {
  const { rgba } = image;
  for (let i = 0; i < rgba.length; i += 4) {
    if (rgba[i + 3] > 0 && Math.max(rgba[i], rgba[i + 1], rgba[i + 2]) > 8) {
      throw new Error('template glyph rendered with colour; it must be drawn in black only');
    }
    rgba[i] = 0;
    rgba[i + 1] = 0;
    rgba[i + 2] = 0;
  }
  return image;
}

async function write(relative, data) {
  const file = join(root, relative);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, data);
  console.log(`wrote ${relative} (${data.length} bytes)`);
}

async function main() {
  const previewAt = process.argv.indexOf('--preview');
  const previewFile = previewAt > 0 ? process.argv[previewAt + 1] : undefined;
  const renderer = await openRenderer();
  const preview = [];
  try {
    for (const state of STATES) {
      const x1 = toTemplate(await renderer.render(traySvgTemplate(state, 16), 16));
      const x2 = toTemplate(await renderer.render(traySvgTemplate(state, 32), 32));
      await write(`${ASSETS}/tray-${state}Template.png`, encodePng(x1));
      await write(`${ASSETS}/tray-${state}Template@2x.png`, encodePng(x2));
      const color = await renderer.render(traySvgColor(state, TRAY_COLOR_SIZE), TRAY_COLOR_SIZE);
      await write(`${ASSETS}/tray-${state}.png`, encodePng(color));
      // The 16 px colour variant is only drawn for the preview: how the tray shows it at 100 % scaling.
      preview.push([`${state}Template`, x1, x2], [state, await renderer.render(traySvgColor(state, 16), 16), color]);
    }

    const app = await renderer.render(appSvg(APP_SIZE), APP_SIZE);
    await write('build/icon.png', encodePng(app));

    if (previewFile) {
      // An enlarged contact sheet (pixelated, on light and dark menu bars) for eyeballing the artwork.
      const url = (img) => `data:image/png;base64,${encodePng(img).toString('base64')}`;
      // Template images are shown the way macOS tints them: black on light, white on dark.
      const cell = (img, scale, invert = false) =>
        `<img src="${url(img)}" style="width:${img.width * scale}px;image-rendering:pixelated;margin:6px${invert ? ';filter:invert(1)' : ''}">`;
      const rows = preview
        .map(([name, a, b]) => {
          const tinted = name.endsWith('Template');
          return `<tr><td>${name}</td>${[false, true]
            .map(
              (dark) =>
                `<td style="background:${dark ? '#1e1e1e' : '#ececec'}">${[
                  [a, 8],
                  [b, 4],
                  [a, 1],
                  [b, 0.5],
                ]
                  .map(([img, scale]) => cell(img, scale, dark && tinted))
                  .join('')}</td>`,
            )
            .join('')}</tr>`;
        })
        .join('');
      const html = `<!doctype html><body style="font:12px sans-serif;margin:8px"><table>${rows}</table>${cell(app, 0.25)}</body>`;
      const sheet = await renderer.renderPage(html, 960, 400);
      await mkdir(dirname(previewFile), { recursive: true });
      await writeFile(previewFile, sheet);
      console.log(`wrote preview ${previewFile}`);
    }
  } finally {
    await renderer.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
