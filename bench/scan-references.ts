/**
 * Timed readers over the same corpus files, for the scan benchmark: the I/O
 * bound (`cat`) and two straightforward readers (readline + JSON.parse in Node,
 * and `jq -R 'fromjson?'`); ccusage's report is in scan-ccusage.ts. Each counts assistant messages by stopReason so the run can prove that the
 * fast reader is also an exact one.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
