/**
 * Providers' quota windows as OpenClaw reports them, read-only: `openclaw status --usage --json` asks each
 * configured provider's usage endpoint (with OpenClaw's own credentials) and prints, under `usage`,
 *
 *   { updatedAt, providers: [{ provider, displayName, windows: [{ label, groupLabel?, usedPercent, resetAt? }],
 *     billing?: [{ type: 'balance' | 'spend' | 'budget', … }], plan?, summary?, error? }] }
 *
 * (`usedPercent` 0..100, `resetAt` epoch ms). BreakerBar never calls those endpoints itself and never reads
 * credentials: it runs the command now and then and keeps what it printed.
 */
import { spawn } from 'node:child_process';
import type { Logger } from '../runtime/log.js';
import type { QuotaWindow } from '../spend/types.js';

export class QuotaParseError extends Error {
  override name = 'QuotaParseError';
}

export interface QuotaReading {
  windows: QuotaWindow[];
  /** Providers OpenClaw could not read, with its reason (no credentials, a plugin missing…). */
  errors: Array<{ provider: string; error: string }>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const share = (used: number) => Math.min(1, Math.max(0, used));

/**
 * The windows in OpenClaw's usage summary: the `status --usage --json` document (its `usage` key) or the
 * summary itself. A provider budget in `billing` (used of limit) is a window too; a balance is not.
 */
export function quotaFromStatus(document: unknown, readAt: number): QuotaReading {
  // A status printed without --usage has no `usage` key: nothing to read, not an error.
  if (!isObject(document)) throw new QuotaParseError('the status is not a JSON object');
  const usage = 'usage' in document ? document.usage : 'providers' in document ? document : undefined;
  if (usage === undefined || usage === null) return { windows: [], errors: [] };
  if (!isObject(usage) || !Array.isArray(usage.providers)) {
    throw new QuotaParseError('the usage summary has no "providers" list');
  }
  const windows: QuotaWindow[] = [];
  const errors: QuotaReading['errors'] = [];
  for (const entry of usage.providers) {
    if (!isObject(entry)) continue;
    const provider = text(entry.provider);
    if (provider === null) continue;
    const error = text(entry.error);
    if (error !== null) errors.push({ provider, error });
    for (const w of Array.isArray(entry.windows) ? entry.windows : []) {
      if (!isObject(w)) continue;
      const label = text(w.label);
      const usedPercent = finite(w.usedPercent);
      if (label === null) continue;
      const group = text(w.groupLabel);
      windows.push({
        provider,
        window: group === null ? label : `${group} ${label}`,
        usedShare: usedPercent === null ? null : share(usedPercent / 100),
        resetsAt: finite(w.resetAt),
        exhausted: usedPercent !== null && usedPercent >= 100,
        readAt,
      });
    }
    for (const b of Array.isArray(entry.billing) ? entry.billing : []) {
      if (!isObject(b) || b.type !== 'budget') continue;
      const used = finite(b.used);
      const limit = finite(b.limit);
      if (used === null || limit === null || limit <= 0) continue;
      windows.push({
        provider,
        window: text(b.label) ?? text(b.period) ?? 'budget',
        usedShare: share(used / limit),
        resetsAt: finite(b.resetAt),
        exhausted: used >= limit,
        readAt,
      });
    }
  }
  return { windows, errors };
}

/** The command's output as JSON; OpenClaw may print log lines before the document, so it starts at the first `{`. */
export function parseStatusOutput(stdout: string, readAt: number): QuotaReading {
  const start = stdout.indexOf('{');
  if (start < 0) throw new QuotaParseError('the command printed no JSON');
  let document: unknown;
  try {
    document = JSON.parse(stdout.slice(start));
  } catch (error) {
    throw new QuotaParseError(`the command printed invalid JSON: ${(error as Error).message}`);
  }
  return quotaFromStatus(document, readAt);
}

export const DEFAULT_QUOTA_COMMAND: readonly string[] = ['openclaw', 'status', '--usage', '--json'];
/** More than any status document; a command printing more is cut off and fails to parse. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/** Runs `argv` without a shell; resolves with its stdout, rejects on a non-zero exit, a timeout or too much output. */
export function runForOutput(
  argv: readonly string[],
  options: { timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const [program, ...args] = argv;
    if (!program) {
      reject(new Error('empty command'));
      return;
    }
    const child = spawn(program, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
      // Its own process group, so a timeout stops whatever the command started too.
      detached: process.platform !== 'win32',
    });
    const out: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let settled = false;
    const finish = (error: Error | null, value = '') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(value);
    };
    const kill = () => {
      try {
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      kill();
      finish(new Error(`timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    timer.unref?.();
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT_BYTES) {
        kill();
        finish(new Error(`printed more than ${MAX_OUTPUT_BYTES} bytes`));
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2000);
    });
    child.on('error', (error) => finish(new Error(`cannot run ${program}: ${error.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) finish(null, Buffer.concat(out).toString('utf8'));
      else {
        const last = stderr.trim().split('\n').at(-1) ?? '';
        finish(new Error(`${program} exited with ${code ?? signal}${last ? `: ${last}` : ''}`));
      }
    });
  });
}

export interface QuotaReaderOptions {
  command: readonly string[];
  intervalMs: number;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  clock: () => number;
  log: Logger;
  /** Runs the command (tests pass a fake); default `runForOutput`. */
  run?: (argv: readonly string[], options: { timeoutMs: number; env?: NodeJS.ProcessEnv }) => Promise<string>;
}

/**
 * Reads the quota windows on a timer. A failed read keeps nothing (an empty list, never stale windows
 * presented as current) and is logged once until a read succeeds again; the daemon carries on either way.
 */
export class QuotaReader {
  private current: QuotaWindow[] = [];
  private failing: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private readonly listeners = new Set<(windows: QuotaWindow[]) => void>();

  constructor(private readonly options: QuotaReaderOptions) {}

  windows(): QuotaWindow[] {
    return this.current;
  }

  /** Called after every read (with what it found, or [] when it failed). */
  onRead(listener: (windows: QuotaWindow[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (this.timer) return;
    void this.read();
    this.timer = setInterval(() => void this.read(), this.options.intervalMs);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.inFlight;
  }

  /** One read now (a read in flight is awaited instead of starting another). */
  read(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    const run = this.options.run ?? runForOutput;
    this.inFlight = run(this.options.command, { timeoutMs: this.options.timeoutMs, env: this.options.env })
      .then((stdout) => {
        const reading = parseStatusOutput(stdout, this.options.clock());
        this.current = reading.windows;
        if (this.failing !== null) this.options.log.info('quota windows readable again');
        this.failing = null;
        for (const { provider, error } of reading.errors) {
          this.options.log.debug('OpenClaw cannot read a provider quota', { provider, error });
        }
      })
      .catch((error: Error) => {
        this.current = [];
        if (this.failing === null) {
          this.options.log.warn('reading quota windows failed; will retry', {
            command: this.options.command.join(' '),
            error: error.message,
          });
        }
        this.failing = error.message;
      })
      .finally(() => {
        this.inFlight = null;
        for (const listener of this.listeners) listener(this.current);
      });
    return this.inFlight;
  }
}
