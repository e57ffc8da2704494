/**
 * A 429 storm seen only in a transcript: a healthy gateway (simulated, answering its probes), no gateway log
 * in the configured directory, and a JSONL transcript (OpenClaw ≤2026.7.1) that receives 10 successful calls
 * and then 50 rate limits on one dependency over 10 s. Without the log's per-attempt lines the transcript's
 * records are the calls the breakers judge, so the storm must reach them, open an incident and lead
 * `breakerbar status`, whichever shape the failed records have.
 *
 * The records are the real ones captured from openclaw@2026.7.1 (test/fixtures/openclaw-2026.7.1), with ids,
 * times, dependency and error message varied.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Monitor } from '../../main/api/root/monitor.js';
import type { ApiStatus } from '../../main/api/types.js';
import { renderStatus } from '../../main/cli/status.js';
import { configSchema, resolveDirectories } from '../../main/core/config/index.js';
import { parseWith } from '../../main/core/config/schema.js';
import { silentLogger } from '../../main/core/runtime/log.js';
import { sessionHeader } from '../../main/simulator/records.js';
import { type SimulatedGateway, startSimulatedGateway } from '../../main/simulator/simulated-gateway.js';
import { breakerReasonLine, decodeBreakerReason } from '../../main/words/breaker-reasons.js';
import { appendLines, until } from '../helpers/transcripts.js';

interface CapturedRecord {
  id: string;
  parentId: string | null;
  timestamp: string;
  message: Record<string, unknown> & { timestamp: number };
}

const CAPTURED = readFileSync(new URL('../fixtures/openclaw-2026.7.1/records.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as CapturedRecord);

function captured(id: string): CapturedRecord {
  const found = CAPTURED.find((record) => record.id === id);
  if (!found) throw new Error(`no captured record ${id}`);
  return found;
}

/** A 429 as 2026.7.1 writes it when no fallback takes over: no content. */
const RATE_LIMITED = captured('d153decf');
/** A failed candidate of a model fallback (`failoverReason: rate_limit` in the log): OpenClaw's placeholder text. */
const FAILED_OVER = captured('ecdb5a44');
/** A stream cut after some text reached the client. */
const CUT = captured('be248989');
const OK = captured('ffc5bde1');

const DEP = { provider: 'zhipu', model: 'glm-5.1' };
const SESSION = '5e7f0c1a-0000-4000-8000-0000000000a1';
const ERROR = '429 Too Many Requests; Retry-After: 120 seconds';

/** `template` as another call: its own id, its times (the message's a moment before the entry's), our dependency. */
function record(template: CapturedRecord, id: string, ts: number, message: Record<string, unknown> = {}): string {
  const copy = structuredClone(template);
  copy.id = id;
  copy.parentId = null;
  copy.timestamp = new Date(ts).toISOString();
  Object.assign(copy.message, DEP, { timestamp: ts - 250 }, message);
  return JSON.stringify(copy);
}

const SHAPES = [
  { name: 'no content (no fallback)', content: RATE_LIMITED.message.content },
  { name: "OpenClaw's failed-turn placeholder (a fallback took over)", content: FAILED_OVER.message.content },
  // Mid-stream failures never trip a breaker, but the watchdog counts every rate limit: so must the breakers.
  { name: 'text delivered before the 429 (mid-stream)', content: CUT.message.content },
];

let root: string;
let gateway: SimulatedGateway;
let monitor: Monitor | null = null;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'bb-transcript-storm-'));
  gateway = await startSimulatedGateway();
});

afterEach(async () => {
  await monitor?.stop();
  monitor = null;
  await gateway.close();
  rmSync(root, { recursive: true, force: true });
});

async function start(): Promise<Monitor> {
  const config = {
    openclawDir: join(root, 'openclaw'),
    dataDir: join(root, 'data'),
    // A directory of its own that holds no gateway log: never the machine's /tmp/openclaw.
    gatewayLogDir: join(root, 'logs'),
    gatewayUrl: gateway.baseUrl,
    gatewayMetrics: { enabled: false },
    ingest: { reconcileIntervalMs: 200 },
    health: { intervalSec: 1, connectTimeoutSec: 1, readTimeoutMinSec: 1, readTimeoutMaxSec: 1 },
    notifications: { desktop: false },
    // The default grace (60 s) is a blip filter; a second keeps the case short and still exercises it.
    incidents: { graceSec: 1 },
    server: { port: 0 },
  };
  mkdirSync(join(root, 'logs'), { recursive: true });
  const loaded = resolveDirectories(parseWith(configSchema, config), null, {
    env: {},
    home: root,
    platform: process.platform,
  });
  monitor = new Monitor(loaded, { log: silentLogger, incidentsEvaluateMs: 100 });
  await monitor.start();
  return monitor;
}

async function status(m: Monitor): Promise<ApiStatus> {
  return (await (await fetch(`${m.apiUrl}/api/status`)).json()) as ApiStatus;
}

function query<T>(sql: string): T[] {
  const db = new Database(join(root, 'data', 'breakerbar.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

describe('a 429 storm in a transcript, no gateway log', () => {
  it.each(SHAPES)(
    'trips the breaker, opens an incident and leads the status: $name',
    async ({ content }) => {
      const m = await start();
      const sessions = join(root, 'openclaw', 'agents', 'main', 'sessions');
      mkdirSync(sessions, { recursive: true });
      const now = Date.now();
      const lines = [sessionHeader(SESSION, now - 20_000)];
      for (let i = 0; i < 10; i++) lines.push(record(OK, `ok${i}`, now - 15_000 + i * 500));
      for (let i = 0; i < 50; i++) {
        lines.push(
          record(RATE_LIMITED, `rl${i}`, now - 10_000 + i * 200, {
            content,
            errorMessage: ERROR,
            errorBody: undefined,
          }),
        );
      }
      appendLines(join(sessions, `${SESSION}.jsonl`), lines);

      const calls = () => query<{ outcome: string; n: number }>('SELECT outcome, COUNT(*) AS n FROM calls GROUP BY 1');
      await until(() => calls().reduce((sum, row) => sum + row.n, 0) === 60, 10_000, 'the 60 calls stored');
      expect(calls()).toEqual([
        { outcome: 'ok', n: 10 },
        { outcome: 'rate_limited', n: 50 },
      ]);

      const tripped = () =>
        query<{ to_state: string; reason: string }>(
          "SELECT to_state, reason FROM breaker_transitions WHERE dep = 'zhipu/glm-5.1' AND from_state = 'closed'",
        );
      await until(() => tripped().length > 0, 5000, 'the breaker out of closed');
      // Stored as its code and facts; read back, it is the engine's line.
      const [trip] = tripped();
      expect(trip?.to_state).toBe('throttled');
      expect(decodeBreakerReason(trip?.reason ?? '')).toEqual({
        code: 'retry-after',
        askedMs: 120_000,
        cappedMs: null,
      });
      expect(breakerReasonLine(decodeBreakerReason(trip?.reason ?? ''))).toBe('rate limited, Retry-After 120 s');

      await until(async () => ((await status(m)).incidents?.open.length ?? 0) > 0, 5000, 'an incident opened');
      const [incident] = (await status(m)).incidents?.open ?? [];
      expect(incident?.causes).toContain('breaker');
      expect(incident?.deps).toContain('zhipu/glm-5.1');

      const [first] = renderStatus(await status(m), Date.now()).split('\n');
      expect(first).toMatch(/^429 storm on zhipu\/glm-5\.1/);
      expect(first).not.toMatch(/All well/);
    },
    30_000,
  );
});
