/**
 * `--replay DIR`: a recorded OpenClaw state directory's JSONL transcripts (and
 * gateway JSON logs, in DIR, DIR/logs or DIR/gateway-logs) replayed into the
 * rehearsal's state directory with their original inter-arrival times divided
 * by the speed. Every timestamp is rewritten to the replay's wall clock (start
 * + scaled offset), and Retry-After values are scaled like the policy.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { gatewayLogPath } from '../simulator/gateway-log-lines.js';

interface ReplayLine {
  /** Original time (epoch ms), or null for a line without one (kept with the line before it). */
  ts: number;
  kind: 'transcript' | 'gatewaylog';
  /** Transcript: path relative to the state directory. */
  path: string;
  record: Record<string, unknown>;
}

export interface ReplayPlan {
  dir: string;
  lines: ReplayLine[];
  first: number;
  last: number;
  transcripts: number;
  gatewayLogs: number;
  /** Recorded span in seconds. */
  spanSec: number;
}

const GATEWAY_LOG = /^openclaw(?:-[A-Za-z0-9_-]+)?-\d{4}-\d{2}-\d{2}\.log$/;

function walk(dir: string, out: string[], depth = 0): void {
  if (depth > 6) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out, depth + 1);
    else if (entry.isFile()) out.push(path);
  }
}

function timeOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

export class ReplayError extends Error {
  override name = 'ReplayError';
}

/** Reads DIR's transcripts and gateway logs, in time order. */
export function planReplay(dir: string): ReplayPlan {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ReplayError(`${dir}: not a directory`);
  const files: string[] = [];
  walk(dir, files);
  const lines: ReplayLine[] = [];
  let transcripts = 0;
  let gatewayLogs = 0;
  for (const file of files) {
    const name = basename(file);
    const isTranscript = name.endsWith('.jsonl') && relative(dir, file).split(/[\\/]/).includes('sessions');
    const isLog = GATEWAY_LOG.test(name);
    if (!isTranscript && !isLog) continue;
    if (isTranscript) transcripts++;
    else gatewayLogs++;
    let previous: number | null = null;
    for (const text of readFileSync(file, 'utf8').split('\n')) {
      if (text.trim() === '') continue;
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue; // a malformed line: the real reader would skip it too
      }
      if (typeof record !== 'object' || record === null || Array.isArray(record)) continue;
      const meta = record._meta as Record<string, unknown> | undefined;
      const ts = isTranscript ? timeOf(record.timestamp) : (timeOf(record.time) ?? timeOf(meta?.date));
      const at: number | null = ts ?? previous;
      if (at === null) continue;
      previous = at;
      lines.push({ ts: at, kind: isTranscript ? 'transcript' : 'gatewaylog', path: relative(dir, file), record });
    }
  }
  if (lines.length === 0)
    throw new ReplayError(`${dir}: no OpenClaw transcripts (agents/*/sessions/*.jsonl) or gateway logs found`);
  lines.sort((a, b) => a.ts - b.ts);
  const first = lines[0]?.ts ?? 0;
  const last = lines[lines.length - 1]?.ts ?? first;
  return { dir, lines, first, last, transcripts, gatewayLogs, spanSec: Math.max(1, (last - first) / 1000) };
}

const iso = (ts: number) => new Date(ts).toISOString();

/** The line with its times moved to `ts` (and a Retry-After divided by the speed). */
function retimed(line: ReplayLine, ts: number, speed: number): string {
  const record = structuredClone(line.record);
  if (line.kind === 'transcript') {
    if ('timestamp' in record) record.timestamp = iso(ts);
    const message = record.message as Record<string, unknown> | undefined;
    if (message && typeof message === 'object') {
      if (typeof message.timestamp === 'number') message.timestamp = ts;
      if (typeof message.errorRetryAfterMs === 'number') {
        message.errorRetryAfterMs = Math.max(1, Math.round(message.errorRetryAfterMs / speed));
      }
    }
  } else {
    if ('time' in record) record.time = iso(ts);
    const meta = record._meta as Record<string, unknown> | undefined;
    if (meta && typeof meta === 'object' && 'date' in meta) meta.date = iso(ts);
  }
  return JSON.stringify(record);
}

/** Writes the plan's lines as their (scaled) time comes, into a state directory and a gateway log directory. */
export class ReplayWriter {
  private next = 0;
  written = 0;
  calls = 0;

  constructor(
    private readonly plan: ReplayPlan,
    private readonly target: { openclawDir: string; logDir: string },
    private readonly speed: number,
  ) {}

  /** Writes every line due at `sec` scenario seconds (original seconds since the first line) of a replay started at `startWall`. */
  writeUntil(sec: number, startWall: number): void {
    const batches = new Map<string, string[]>();
    while (this.next < this.plan.lines.length) {
      const line = this.plan.lines[this.next] as ReplayLine;
      const offsetSec = (line.ts - this.plan.first) / 1000;
      if (offsetSec > sec) break;
      this.next++;
      const ts = Math.round(startWall + (offsetSec * 1000) / this.speed);
      const path =
        line.kind === 'transcript' ? join(this.target.openclawDir, line.path) : gatewayLogPath(this.target.logDir, ts);
      const batch = batches.get(path) ?? [];
      batch.push(retimed(line, ts, this.speed));
      batches.set(path, batch);
      this.written++;
      const message = line.record.message as { role?: unknown } | undefined;
      if (line.kind === 'transcript' && message?.role === 'assistant') this.calls++;
    }
    for (const [path, batch] of batches) {
      mkdirSync(dirname(path), { recursive: true });
      appendFileSync(path, `${batch.join('\n')}\n`);
    }
  }

  get done(): boolean {
    return this.next >= this.plan.lines.length;
  }
}

/** The scenario a replay runs as: the recorded span, no injected faults, no expectations. */
export function replayScenario(plan: ReplayPlan): import('./scenario.js').Scenario {
  return {
    name: `replay-${basename(plan.dir) || 'dir'}`,
    description: `Replay of ${plan.dir}: ${plan.transcripts} transcript file(s), ${plan.gatewayLogs} gateway log(s), ${plan.lines.length} records over ${Math.round(plan.spanSec)} s.`,
    durationSec: Math.ceil(plan.spanSec) + 1,
    rate: 0,
    agents: [],
    deps: [],
    phases: [],
    expectations: [],
  };
}
