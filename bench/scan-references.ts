/**
 * Timed readers over the same corpus files, for the scan benchmark: the I/O
 * bound (`cat`), the two references the acceptance criterion names (readline +
 * JSON.parse in Node, and `jq -R 'fromjson?'`), and the skimming parser alone.
 * Each counts assistant messages by stopReason so the run can prove that the
 * fast reader is also an exact one.
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Elided, MALFORMED, type Skimmed, skimJson } from '../main/core/sources/json-skim.js';

export interface ScanCounts {
  assistant: number;
  byStopReason: Record<string, number>;
}

export interface Timing {
  seconds: number;
  bytes: number;
  counts: ScanCounts;
}

/** Files per spawned process: well under any argv limit. */
const BATCH = 256;

function batches<T>(xs: readonly T[], n = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

function totalBytes(files: readonly string[]): number {
  let n = 0;
  for (const f of files) n += statSync(f).size;
  return n;
}

function run(cmd: string, args: string[], onStdout?: (chunk: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', onStdout ? 'pipe' : 'ignore', 'inherit'] });
    child.stdout?.on('data', (c: Buffer) => onStdout?.(c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited with ${code}`))));
  });
}

const empty = (): ScanCounts => ({ assistant: 0, byStopReason: {} });

/** `cat files > /dev/null`: how fast the bytes can come off the page cache at all. */
export async function timeCat(files: readonly string[]): Promise<Timing> {
  const t0 = performance.now();
  for (const b of batches(files)) await run('cat', b); // stdout 'ignore' is /dev/null
  return { seconds: (performance.now() - t0) / 1000, bytes: totalBytes(files), counts: empty() };
}

/** The script sits next to this module in bench/, or two levels up when this runs from dist/bench/. */
function readlineScript(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const p of [join(here, 'scan-readline-ref.mjs'), join(here, '..', '..', 'bench', 'scan-readline-ref.mjs')]) {
    if (existsSync(p)) return p;
  }
  throw new Error(`scan-readline-ref.mjs not found near ${here}`);
}

/** readline + JSON.parse in a fresh `node` process (timed inside it, so node's startup is not counted). */
export async function timeReadlineReference(files: readonly string[]): Promise<Timing> {
  const tmp = mkdtempSync(join(tmpdir(), 'bb-ref-'));
  try {
    const list = join(tmp, 'files.txt');
    writeFileSync(list, files.join('\n'));
    let out = '';
    await run(process.execPath, [readlineScript(), list], (c) => {
      out += c.toString();
    });
    return JSON.parse(out) as Timing;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * `jq -R 'fromjson?'` keeping assistant messages, one stopReason per output
 * line, counted here. The type guards keep jq from aborting on a well-formed
 * line that is not an object.
 */
export async function timeJq(files: readonly string[]): Promise<Timing> {
  const program =
    'fromjson? | select(type == "object" and .type == "message" and (.message | type) == "object" and .message.role == "assistant") | .message.stopReason';
  const counts = empty();
  let partial = '';
  const take = (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) {
      counts.assistant++;
      counts.byStopReason[l] = (counts.byStopReason[l] ?? 0) + 1;
    }
  };
  const t0 = performance.now();
  for (const b of batches(files)) await run('jq', ['-R', '-r', program, ...b], take);
  return { seconds: (performance.now() - t0) / 1000, bytes: totalBytes(files), counts };
}

// ---- the skimmer alone ----

/**
 * Read size, like cat's. Measured on this (shared, 2-core) machine: readSync
 * into a 128 KB buffer runs at ~5 GB/s, into 1 MB at ~1.5 GB/s and into 8 MB at
 * ~2 GB/s, because a small chunk is still in cache when the parser reads it. A
 * line longer than a chunk grows the buffer, but reads stay this size.
 */
const CHUNK = 128 << 10;
const KEEP = new Set(['errorMessage']);

function field(v: Skimmed | undefined, key: string): Skimmed | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Elided) return undefined;
  return v[key];
}

/** How a stopReason prints (String(x) in the readline reference, -r in jq). */
function label(v: Skimmed | undefined): string {
  return typeof v === 'string'
    ? v
    : v === undefined
      ? 'undefined'
      : v instanceof Elided
        ? '<elided>'
        : JSON.stringify(v);
}

/**
 * skimJson over every line, reading with readSync in 128 KB chunks and splitting
 * on newline bytes, so no line ever becomes a JS string. An unterminated last
 * line is counted as malformed, as `breakerbar scan` does.
 */
export function timeSkim(files: readonly string[]): Promise<Timing & { lines: number; malformed: number }> {
  const counts = empty();
  let lines = 0;
  let malformed = 0;
  let bytes = 0;
  let buf = Buffer.allocUnsafe(CHUNK);
  const t0 = performance.now();
  const line = (a: number, b: number) => {
    lines++;
    const v = skimJson(buf, a, b, { keepKeys: KEEP });
    if (v === MALFORMED) {
      malformed++;
      return;
    }
    if (field(v, 'type') !== 'message') return;
    const m = field(v, 'message');
    if (field(m, 'role') !== 'assistant') return;
    counts.assistant++;
    const k = label(field(m, 'stopReason'));
    counts.byStopReason[k] = (counts.byStopReason[k] ?? 0) + 1;
  };
  for (const file of files) {
    const fd = openSync(file, 'r');
    try {
      bytes += fstatSync(fd).size;
      let filled = 0; // bytes in buf; [0, filled) starts at a line boundary
      for (;;) {
        if (filled === buf.length) {
          // one line longer than the buffer: grow it, keeping what we have
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf.copy(bigger, 0, 0, filled);
          buf = bigger;
        }
        const n = readSync(fd, buf, filled, Math.min(CHUNK, buf.length - filled), null);
        if (n === 0) break;
        const total = filled + n;
        let start = 0;
        for (;;) {
          const nl = buf.indexOf(10, start);
          if (nl < 0 || nl >= total) break;
          line(start, nl);
          start = nl + 1;
        }
        // carry the partial line to the front for the next read
        filled = total - start;
        if (filled > 0 && start > 0) buf.copy(buf, 0, start, total);
      }
      if (filled > 0) {
        lines++;
        malformed++;
      }
    } finally {
      closeSync(fd);
    }
  }
  return Promise.resolve({ seconds: (performance.now() - t0) / 1000, bytes, counts, lines, malformed });
}
