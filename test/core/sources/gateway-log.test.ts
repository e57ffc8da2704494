/**
 * The gateway log source against a real store and real files: every signal stored
 * exactly once across the daily file change, size rotation and a line split
 * across a rotation; unknown and malformed lines counted; fallback decisions
 * stored as calls only where no transcript covers the agent; a restart re-reads
 * nothing; a failed upstream answer held for its run-end is stored once, its
 * line never behind the cursor while held. And `scanGatewayLogs`, which counts
 * the same lines offline.
 */
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallEvent, GatewaySignal } from '../../../main/core/calls/events.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import {
  GatewayLogSource,
  type GatewayLogSourceOptions,
  gatewayLogPattern,
  gatewayLogRole,
  scanGatewayLogs,
} from '../../../main/core/sources/gateway-log.js';
import { Store } from '../../../main/core/store/db.js';
import {
  appendLog,
  countByKind,
  type ExpectedSignal,
  fallbackByReason,
  fallbackDecision,
  generateGatewayLog,
  LANE_ERRORS,
  type LogLine,
  laneError,
  logName,
  logText,
  malformedLines,
  signalsOf,
  unknownLines,
} from '../../helpers/gateway-log.js';
import { until } from '../../helpers/transcripts.js';

/** 2026-11-29 23:50 in Berlin (UTC+1): ten minutes before the gateway starts a new file. */
const EVENING = Date.parse('2026-11-29T22:50:00.000Z');
const DAY1 = '2026-11-29';
const DAY2 = '2026-11-30';

describe('gatewayLogRole', () => {
  const D = '/tmp/openclaw';
  it.each([
    [`${D}/openclaw-2026-11-29.log`, null, 'follow'],
    [`${D}/openclaw-2026-11-29.log.1`, null, 'follow'],
    [`${D}/openclaw-2026-11-29.log.5`, null, 'follow'],
    [`${D}/openclaw-2026-11-29.log.6`, null, 'ignore'],
    [`${D}/openclaw-work-2026-11-29.log`, null, 'ignore'],
    [`${D}/openclaw-2026-11-29.log.gz`, null, 'ignore'],
    [`${D}/openclaw.log`, null, 'ignore'],
    [`${D}/gateway.log`, null, 'ignore'],
    [`${D}/openclaw-work-2026-11-29.log`, 'work', 'follow'],
    [`${D}/openclaw-work-2026-11-29.log.2`, 'work', 'follow'],
    [`${D}/openclaw-2026-11-29.log`, 'work', 'ignore'],
    [`${D}/openclaw-home-2026-11-29.log`, 'work', 'ignore'],
    [`${D}/openclaw-a.b-2026-11-29.log`, 'a.b', 'follow'],
    [`${D}/openclaw-axb-2026-11-29.log`, 'a.b', 'ignore'],
  ])('%s with profile %s is %s', (path, profile, role) => {
    expect(gatewayLogRole(path, gatewayLogPattern(profile))).toBe(role);
  });
});

describe('GatewayLogSource with a real store', () => {
  let dir: string;
  let logDir: string;
  let dbPath: string;
  let store: Store;
  const sources: GatewayLogSource[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bb-gwlog-'));
    logDir = join(dir, 'openclaw');
    mkdirSync(logDir);
    dbPath = join(dir, 'breakerbar', 'breakerbar.sqlite');
    store = Store.open(dbPath);
  });

  afterEach(async () => {
    await Promise.all(sources.splice(0).map((source) => source.stop()));
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function startSource(options: Partial<GatewayLogSourceOptions> = {}): GatewayLogSource {
    const source = new GatewayLogSource({
      logDir,
      profile: null,
      sink: store,
      cutoff: 0,
      reconcileIntervalMs: 200,
      maxLineBytes: 1024 * 1024,
      log: silentLogger,
      transcriptsCover: () => true,
      ...options,
    });
    source.start();
    sources.push(source);
    return source;
  }

  /** Waits until the source has read `lines` lines and has nothing left queued. */
  async function caughtUp(source: GatewayLogSource, lines: number): Promise<void> {
    await until(() => source.status().lines >= lines && source.caughtUp, 10_000, `${lines} lines to be read`);
    expect(source.status().lines).toBe(lines);
  }

  const storedSignals = () =>
    store.db.prepare('SELECT * FROM signals ORDER BY ts, id').all() as Array<Record<string, unknown>>;
  const signalCount = () => (store.db.prepare('SELECT count(*) AS n FROM signals').get() as { n: number }).n;

  /** The stored rows, as the signals they were written from (key aside). */
  function storedAsExpected(): ExpectedSignal[] {
    return storedSignals().map((row) => ({
      ts: row.ts as number,
      kind: row.kind as ExpectedSignal['kind'],
      sessionId: row.session_id as string | null,
      sessionKey: row.session_key as string | null,
      runId: row.run_id as string | null,
      dep: row.dep as string | null,
      candidateDep: row.candidate_dep as string | null,
      decision: row.decision as string | null,
      reason: row.reason as string | null,
      httpStatus: row.http_status as number | null,
      finalOutcome: row.final_outcome as string | null,
      lane: row.lane as string | null,
      durationMs: row.duration_ms as number | null,
      classification: row.classification as string | null,
      detail: row.detail as string | null,
    }));
  }

  /** Order-insensitive: lines a second apart in different files may be read in any order. */
  const sortSignals = (signals: ExpectedSignal[]) =>
    [...signals].sort((a, b) => a.ts - b.ts || JSON.stringify(a).localeCompare(JSON.stringify(b)));

  function expectStoredExactly(lines: readonly LogLine[]): void {
    expect(sortSignals(storedAsExpected())).toEqual(sortSignals(signalsOf(lines)));
    expect(store.counter('ingest.duplicates')).toBe(0);
  }

  it('stores every signal of a log once, counts unknown and malformed lines, and reports by kind and reason', async () => {
    const lines = generateGatewayLog({ start: EVENING, count: 300, seed: 7 });
    const bad = malformedLines(EVENING + 400_000);
    appendLog(join(logDir, logName(DAY1)), [...lines, ...bad]);
    // The fixture is varied enough to mean something.
    const byKind = countByKind(lines);
    for (const count of Object.values(byKind)) expect(count).toBeGreaterThan(5);
    const unknown = lines.filter((l) => l.signal === null).length;
    expect(unknown).toBeGreaterThan(20);

    const source = startSource();
    await caughtUp(source, lines.length + bad.length);
    expectStoredExactly(lines);
    expect(source.gatewayStatus()).toEqual({
      files: 1,
      lines: lines.length + bad.length,
      malformed: bad.length,
      unknown,
      signals: byKind,
      fallbackDecisions: fallbackByReason(lines),
      stalls: byKind.stall,
      runTimeouts: byKind.run_timeout,
      // The generated log has signals, other subsystems' lines and malformed ones, no upstream requests.
      attemptLines: 0,
    });
    expect(source.status()).toMatchObject({
      kind: 'gatewaylog',
      roots: [logDir],
      inputs: 1,
      calls: 0,
      stored: 0,
      duplicates: 0,
      pending: 0,
      lastEventAt: Math.max(...signalsOf(lines).map((s) => s.ts)),
      lastError: null,
    });
  });

  it('follows the daily file change at midnight: every signal once, and the pruned file forgotten', async () => {
    const before = generateGatewayLog({ start: EVENING, count: 40, seed: 1, stepMs: 15_000 });
    const day1 = join(logDir, logName(DAY1));
    appendLog(day1, before);
    const source = startSource();
    await caughtUp(source, before.length);

    // Midnight local time: the gateway writes a last line to the old file, then opens the new one.
    const midnight = Date.parse('2026-11-29T23:00:00.000Z');
    const last = generateGatewayLog({ start: midnight - 500, count: 1, seed: 2 });
    appendLog(day1, last);
    const day2 = join(logDir, logName(DAY2));
    const after: LogLine[] = [];
    for (let i = 0; i < 5; i++) {
      const burst = generateGatewayLog({ start: midnight + i * 60_000, count: 20, seed: 10 + i });
      appendLog(day2, burst);
      after.push(...burst);
      await until(() => source.status().lines > before.length + i * 20, 5000, 'the new day to be read');
    }
    const all = [...before, ...last, ...after];
    await caughtUp(source, all.length);
    expectStoredExactly(all);
    expect(source.status().inputs).toBe(2);
    expect(store.cursors('gatewaylog')).toHaveLength(2);

    // OpenClaw prunes yesterday's log: its cursor goes, nothing else changes.
    unlinkSync(day1);
    await until(() => store.cursors('gatewaylog').length === 1, 5000, 'the pruned file to be forgotten');
    expect(store.cursors('gatewaylog')[0]?.path).toBe(day2);
    expect(signalCount()).toBe(signalsOf(all).length);
  });

  it('follows size rotation while the gateway keeps writing: the line cut by the rename arrives once, whole', async () => {
    const live = join(logDir, logName(DAY1));
    // An older rotation is already there and is read too.
    const older = generateGatewayLog({ start: EVENING - 3_600_000, count: 30, seed: 3 });
    appendLog(`${live}.1`, older);
    const first = generateGatewayLog({ start: EVENING, count: 50, seed: 4 });
    appendLog(live, first);
    const source = startSource();
    await caughtUp(source, older.length + first.length);

    // The gateway holds the file open: half a line is written, the file is renamed away
    // (and the older rotation shifted), then the line is finished through the same descriptor.
    const cut = laneError(EVENING + 60_000, 'text', {
      lane: 'main',
      durationMs: 65_602,
      error: LANE_ERRORS[0]?.error ?? '',
    });
    const bytes = Buffer.from(`${cut.line}\n`);
    const at = bytes.indexOf('rate limit');
    const fd = openSync(live, 'a');
    let open = true;
    try {
      writeSync(fd, bytes.subarray(0, at));
      // The tailer has seen the half line (it is pending) and left it unread.
      await until(() => source.status().pending > 0 && source.caughtUp, 5000, 'the half line to be looked at');
      renameSync(`${live}.1`, `${live}.2`);
      renameSync(live, `${live}.1`);
      const during = generateGatewayLog({ start: EVENING + 61_000, count: 10, seed: 5 });
      appendLog(live, during);
      writeSync(fd, bytes.subarray(at));
      const tail = generateGatewayLog({ start: EVENING + 62_000, count: 10, seed: 6 });
      writeSync(fd, logText(tail));
      closeSync(fd);
      open = false;
      const more = generateGatewayLog({ start: EVENING + 80_000, count: 25, seed: 8 });
      appendLog(live, more);

      const all = [...older, ...first, cut, ...during, ...tail, ...more];
      await caughtUp(source, all.length);
      expectStoredExactly(all);
      expect(storedSignals().filter((s) => s.detail === LANE_ERRORS[0]?.error && s.ts === cut.signal?.ts)).toHaveLength(
        1,
      );
      expect(source.status()).toMatchObject({ inputs: 3, malformed: 0 });
    } finally {
      // Never closed twice: the number may already belong to a descriptor the tailer holds.
      if (open) closeSync(fd);
    }
  });

  it('completes a line split across a rotation that happened while BreakerBar was not running', async () => {
    const live = join(logDir, logName(DAY1));
    const first = generateGatewayLog({ start: EVENING, count: 20, seed: 11 });
    const split = fallbackDecision(EVENING + 30_000, 'fields', {
      decision: 'candidate_failed',
      requested: 'zhipu/glm-5.1',
      candidate: 'zhipu/glm-5.1',
      reason: 'rate_limit',
      httpCode: 429,
      final: 'next_fallback',
      sessionKey: 'agent:main:main',
      sessionId: 's-split',
    });
    const bytes = Buffer.from(`${split.line}\n`);
    const half = Math.floor(bytes.length / 2);
    const fd = openSync(live, 'a');
    writeSync(fd, logText(first));
    writeSync(fd, bytes.subarray(0, half));
    const source = startSource();
    await caughtUp(source, first.length);
    await source.stop();

    renameSync(live, `${live}.1`);
    writeSync(fd, bytes.subarray(half));
    closeSync(fd);
    const next = generateGatewayLog({ start: EVENING + 40_000, count: 15, seed: 12 });
    appendLog(live, next);

    const restarted = startSource();
    await caughtUp(restarted, 1 + next.length);
    expectStoredExactly([...first, split, ...next]);
    expect(restarted.status().malformed).toBe(0);
  });

  it('stores no calls where transcripts cover the agent, only signals', async () => {
    const lines = generateGatewayLog({ start: EVENING, count: 200, seed: 21 });
    appendLog(join(logDir, logName(DAY1)), lines);
    const asked: Array<string | null> = [];
    const source = startSource({
      transcriptsCover: (agentId) => {
        asked.push(agentId);
        return true;
      },
    });
    await caughtUp(source, lines.length);
    expect(store.summary().calls).toBe(0);
    expectStoredExactly(lines);
    expect(source.status()).toMatchObject({ calls: 0, stored: 0 });
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked)).toEqual(new Set(['main']));
  });

  it('stores candidate_failed as failures of the candidate (outcome mapped) and candidate_succeeded as ok where no transcript is readable', async () => {
    const t = (s: number) => EVENING + s * 1000;
    const withKey = { sessionKey: 'agent:ops:telegram:direct:9', sessionId: 's-ops' };
    const lines: LogLine[] = [
      fallbackDecision(t(1), 'fields', {
        decision: 'candidate_failed',
        requested: 'zhipu/glm-5.1',
        candidate: 'zhipu/glm-5.1',
        reason: 'rate_limit',
        httpCode: 429,
        final: 'next_fallback',
        ...withKey,
      }),
      fallbackDecision(t(2), 'text', {
        decision: 'candidate_failed',
        requested: 'zhipu/glm-5.1',
        candidate: 'anthropic/claude-sonnet-4-5',
        reason: 'overloaded',
        next: 'deepseek/deepseek-v4-pro',
      }),
      fallbackDecision(t(3), 'text', {
        decision: 'skip_candidate',
        requested: 'zhipu/glm-5.1',
        candidate: 'openai-codex/gpt-5.5',
        reason: 'billing',
      }),
      fallbackDecision(t(4), 'fields', {
        decision: 'candidate_succeeded',
        requested: 'zhipu/glm-5.1',
        candidate: 'deepseek/deepseek-v4-pro',
        reason: null,
        final: 'succeeded',
        ...withKey,
      }),
      ...unknownLines(t(5)),
    ];
    appendLog(join(logDir, logName(DAY1)), lines);
    const stored: CallEvent[] = [];
    const signals: GatewaySignal[] = [];
    const source = startSource({
      transcriptsCover: () => false,
      onStored: (calls) => stored.push(...calls),
      onSignals: (batch) => signals.push(...batch),
    });
    await caughtUp(source, lines.length);
    expectStoredExactly(lines);
    const summary = store.summary();
    expect(summary.calls).toBe(3);
    expect(summary.byDependency['zhipu/glm-5.1']).toMatchObject({ rate_limited: 1 });
    expect(summary.byDependency['anthropic/claude-sonnet-4-5']).toMatchObject({ overloaded: 1 });
    expect(summary.byDependency['deepseek/deepseek-v4-pro']).toMatchObject({ ok: 1 });
    expect(summary.byDependency['openai-codex/gpt-5.5']).toBeUndefined();
    const rows = store.db
      .prepare(
        'SELECT source, agent_id, session_id, dep, outcome, phase, http_status, tokens_total FROM calls ORDER BY ts',
      )
      .all();
    expect(rows).toEqual([
      {
        source: 'gatewaylog',
        agent_id: 'ops',
        session_id: 's-ops',
        dep: 'zhipu/glm-5.1',
        outcome: 'rate_limited',
        phase: 'before_output',
        http_status: 429,
        tokens_total: 0,
      },
      {
        source: 'gatewaylog',
        agent_id: 'unknown',
        session_id: 'unknown',
        dep: 'anthropic/claude-sonnet-4-5',
        outcome: 'overloaded',
        phase: 'before_output',
        http_status: null,
        tokens_total: 0,
      },
      {
        source: 'gatewaylog',
        agent_id: 'ops',
        session_id: 's-ops',
        dep: 'deepseek/deepseek-v4-pro',
        outcome: 'ok',
        phase: 'complete',
        http_status: null,
        tokens_total: 0,
      },
    ]);
    expect(stored.map((c) => c.outcome)).toEqual(['rate_limited', 'overloaded', 'ok']);
    expect(signals.map((s) => s.decision)).toEqual([
      'candidate_failed',
      'candidate_failed',
      'skip_candidate',
      'candidate_succeeded',
    ]);
    expect(source.status()).toMatchObject({ calls: 3, stored: 3, duplicates: 0 });
  });

  it('asks about each agent: covered agents give signals only, the others calls too', async () => {
    const lines = generateGatewayLog({ start: EVENING, count: 150, seed: 31, agentId: 'ops' });
    appendLog(join(logDir, logName(DAY1)), [
      ...lines,
      ...generateGatewayLog({ start: EVENING, count: 150, seed: 32, agentId: 'main' }),
    ]);
    const source = startSource({ transcriptsCover: (agentId) => agentId === 'main' });
    await caughtUp(source, 300);
    const agents = store.db.prepare('SELECT DISTINCT agent_id FROM calls').all();
    const expectedCalls = signalsOf(lines).filter(
      (s) =>
        s.kind === 'fallback_decision' && (s.decision === 'candidate_failed' || s.decision === 'candidate_succeeded'),
    ).length;
    expect(expectedCalls).toBeGreaterThan(3);
    expect(agents).toEqual([{ agent_id: 'ops' }]);
    expect(store.summary().calls).toBe(expectedCalls);
  });

  it('reads signals older than the cutoff without storing them', async () => {
    const lines = generateGatewayLog({ start: EVENING, count: 200, seed: 41 });
    appendLog(join(logDir, logName(DAY1)), lines);
    const cutoff = EVENING + 100_000;
    const source = startSource({ cutoff, transcriptsCover: () => false });
    await caughtUp(source, lines.length);
    const newer = lines.filter((l) => l.signal && l.signal.ts >= cutoff);
    expectStoredExactly(newer);
    expect(source.gatewayStatus().signals).toEqual(countByKind(lines));
    const minTs = (store.db.prepare('SELECT min(ts) AS ts FROM calls').get() as { ts: number }).ts;
    expect(minTs).toBeGreaterThanOrEqual(cutoff);
  });

  it('re-reads nothing after a restart over the same store, and goes on with what is new', async () => {
    const path = join(logDir, logName(DAY1));
    const lines = generateGatewayLog({ start: EVENING, count: 200, seed: 51 });
    appendLog(path, lines);
    const first = startSource({ transcriptsCover: () => false });
    await caughtUp(first, lines.length);
    const signals = signalCount();
    const calls = store.summary().calls;
    expect(calls).toBeGreaterThan(0);
    await first.stop();

    // A real restart: the database is closed and opened again.
    store.close();
    store = Store.open(dbPath);
    const second = startSource({ transcriptsCover: () => false });
    await until(() => second.caughtUp, 5000, 'the restarted source to catch up');
    expect(second.status()).toMatchObject({ lines: 0, calls: 0, duplicates: 0 });
    expect(signalCount()).toBe(signals);
    expect(store.summary().calls).toBe(calls);

    const more = generateGatewayLog({ start: EVENING + 300_000, count: 50, seed: 52 });
    appendLog(path, more);
    await caughtUp(second, more.length);
    expectStoredExactly([...lines, ...more]);
    expect(store.counter('ingest.duplicates')).toBe(0);
  });

  it('follows only its profile’s files', async () => {
    const plain = generateGatewayLog({ start: EVENING, count: 40, seed: 61 });
    const work = generateGatewayLog({ start: EVENING, count: 60, seed: 62 });
    appendLog(join(logDir, logName(DAY1)), plain);
    appendLog(join(logDir, logName(DAY1, 'work')), work);
    appendLog(join(logDir, 'gateway.log'), generateGatewayLog({ start: EVENING, count: 10, seed: 63 }));

    const profiled = startSource({ profile: 'work' });
    await caughtUp(profiled, work.length);
    expectStoredExactly(work);
    expect(profiled.status().inputs).toBe(1);
    await profiled.stop();

    // Another store: the default gateway's source ignores the profiled log.
    store.close();
    store = Store.open(join(dir, 'other.sqlite'));
    const plainSource = startSource({ profile: null });
    await caughtUp(plainSource, plain.length);
    expectStoredExactly(plain);
    expect(plainSource.status().inputs).toBe(1);
  });

  it('picks up a log directory that appears after start', async () => {
    rmSync(logDir, { recursive: true });
    const source = startSource();
    await until(() => source.caughtUp, 5000, 'the source to start');
    mkdirSync(logDir);
    const lines = generateGatewayLog({ start: EVENING, count: 30, seed: 71 });
    appendLog(join(logDir, logName(DAY1)), lines);
    await caughtUp(source, lines.length);
    expectStoredExactly(lines);
  });

  describe('upstream requests ([model-fetch] and embedded_run_agent_end lines)', () => {
    const FETCH_AT = Date.parse('2026-11-29T22:55:00.000Z');
    const TRACE = 'f68a0c3e9b1d4f7a8e6c5b4a3d2e1f09';
    const SPAN = 'dff580b86c8bf778';
    const RUN = 'f3f30537-5b1e-4c55-9d0e-2a8c1b7e4d10';

    /** One tslog line of `subsystem`, on the run's trace and the attempt's span. */
    function tslog(subsystem: string, ts: number, args: Record<string, unknown>): string {
      const date = new Date(ts).toISOString();
      return JSON.stringify({
        '0': JSON.stringify({ subsystem }),
        ...args,
        _meta: { runtime: 'node', name: JSON.stringify({ subsystem }), date, logLevelId: 3, logLevelName: 'INFO' },
        time: date,
        traceId: TRACE,
        spanId: SPAN,
      });
    }

    /** The provider answered 429 (printed at the default level since 2026.9). */
    const fetch429 = `${tslog('provider-transport-fetch', FETCH_AT, {
      '1': '[model-fetch] response provider=mock api=openai-completions model=alpha status=429 elapsedMs=11',
    })}\n`;
    /** The run's end a moment later, with the provider's text (and its Retry-After) and OpenClaw's reason. */
    const runEnd429 = `${tslog('agent/embedded', FETCH_AT + 10, {
      '1': {
        event: 'embedded_run_agent_end',
        runId: RUN,
        isError: true,
        error: '⚠️ API rate limit reached. Please try again later.',
        failoverReason: 'rate_limit',
        provider: 'mock',
        model: 'alpha',
        rawErrorPreview: '429 Rate limit reached for requests.; Retry-After: 1 seconds',
      },
      '2': 'embedded run agent end',
    })}\n`;

    const attemptRows = () =>
      store.db
        .prepare(
          `SELECT event_key AS key, dep, outcome, phase, http_status AS httpStatus, retry_after_ms AS retryAfterMs,
             role, run_id AS runId FROM calls`,
        )
        .all();
    const cursorOf = (path: string) => store.cursors('gatewaylog').find((cursor) => cursor.path === path);

    it('holds a failed answer for its run-end: stored once as one attempt, the cursor never past the held line', async () => {
      const path = join(logDir, logName(DAY1));
      appendFileSync(path, fetch429);
      const stored: CallEvent[] = [];
      // The clock stands at the answer's time: the hold never runs out by itself here.
      const source = startSource({ now: () => FETCH_AT, onStored: (calls) => stored.push(...calls) });
      await until(() => source.status().lines === 1 && cursorOf(path) !== undefined, 5000, 'the answer to be read');
      expect(source.caughtUp).toBe(false);
      expect(store.summary().calls).toBe(0);
      // Read to its end, committed only up to the held line: a crash now reads it again.
      expect(cursorOf(path)).toMatchObject({ position: 0, detail: JSON.stringify({ readTo: fetch429.length }) });

      appendFileSync(path, runEnd429);
      await caughtUp(source, 2);
      const key = stored[0]?.key;
      expect(key).toMatch(/^gatewaylog\/.+@0$/);
      expect(attemptRows()).toEqual([
        {
          key,
          dep: 'mock/alpha',
          outcome: 'rate_limited',
          phase: 'before_output',
          httpStatus: 429,
          retryAfterMs: 1000,
          role: 'attempt',
          runId: RUN,
        },
      ]);
      expect(stored).toHaveLength(1);
      const end = fetch429.length + Buffer.byteLength(runEnd429);
      expect(cursorOf(path)).toMatchObject({ position: end, detail: JSON.stringify({ readTo: end }) });
      expect(source.gatewayStatus()).toMatchObject({ lines: 2, unknown: 0, malformed: 0, attemptLines: 2 });
      expect(source.status()).toMatchObject({ calls: 1, stored: 1, duplicates: 0 });
      // An upstream request is a call, not a turn: the run's transcript record is the turn.
      expect(store.summary().turns.turns).toBe(0);
    });

    it("an answer whose run-end lands in the next day's file: one call, and both files' cursors move past it", async () => {
      const day1 = join(logDir, logName(DAY1));
      const day2 = join(logDir, logName(DAY2));
      appendFileSync(day1, fetch429);
      const source = startSource({ now: () => FETCH_AT });
      await until(() => source.status().lines === 1 && cursorOf(day1) !== undefined, 5000, 'the answer to be read');
      appendFileSync(day2, runEnd429);
      await caughtUp(source, 2);
      expect(attemptRows()).toEqual([
        expect.objectContaining({ key: expect.stringMatching(/@0$/), retryAfterMs: 1000 }),
      ]);
      expect(cursorOf(day1)).toMatchObject({ position: fetch429.length });
      expect(cursorOf(day2)).toMatchObject({ position: Buffer.byteLength(runEnd429) });
    });

    it("scan reads a day's rotations oldest first: an answer and its run-end across a size rotation are one call", () => {
      writeFileSync(join(logDir, `${logName(DAY1)}.1`), fetch429);
      writeFileSync(join(logDir, logName(DAY1)), runEnd429);
      const { attempts } = scanGatewayLogs([logDir], { profile: null });
      expect(attempts.map((a) => [a.outcome, a.phase, a.retryAfterMs])).toEqual([
        ['rate_limited', 'before_output', 1000],
      ]);
    });

    it('a restart while an answer is held reads its line again: the request is stored once, not lost', async () => {
      const path = join(logDir, logName(DAY1));
      appendFileSync(path, fetch429);
      const first = startSource({ now: () => FETCH_AT });
      await until(() => first.status().lines === 1 && cursorOf(path) !== undefined, 5000, 'the answer to be read');
      await first.stop();

      store.close();
      store = Store.open(dbPath);
      appendFileSync(path, runEnd429);
      const second = startSource({ now: () => FETCH_AT });
      await caughtUp(second, 2);
      // The answer's line (offset 0) joined with its run-end: a run-end read alone would be a mid-stream call of its own.
      expect(attemptRows()).toEqual([
        expect.objectContaining({
          key: expect.stringMatching(/@0$/),
          outcome: 'rate_limited',
          phase: 'before_output',
          httpStatus: 429,
          retryAfterMs: 1000,
          runId: RUN,
        }),
      ]);
      expect(second.status()).toMatchObject({ calls: 1, stored: 1, duplicates: 0 });
      expect(store.counter('ingest.duplicates')).toBe(0);
    });

    it('an answer whose run-end does not come in time is stored when the hold runs out; the late run-end adds nothing', async () => {
      const path = join(logDir, logName(DAY1));
      appendFileSync(path, fetch429);
      // The clock is well past the answer: the hold's timer releases it the first time it looks.
      const source = startSource({ now: () => FETCH_AT + 60_000 });
      // The hold's timer runs on real time (5 s after the answer was read): the deadline must leave it room.
      await until(() => store.summary().calls === 1, 20_000, 'the held answer to be stored');
      await until(() => source.caughtUp, 5000, 'nothing to be held');
      // The status alone says rate_limited; Retry-After and the run id would have come with the run-end.
      expect(attemptRows()).toEqual([
        expect.objectContaining({
          key: expect.stringMatching(/@0$/),
          outcome: 'rate_limited',
          phase: 'before_output',
          httpStatus: 429,
          retryAfterMs: null,
          role: 'attempt',
          runId: null,
        }),
      ]);
      expect(cursorOf(path)).toMatchObject({ position: fetch429.length });

      appendFileSync(path, runEnd429);
      await caughtUp(source, 2);
      expect(store.summary().calls).toBe(1);
      expect(source.status()).toMatchObject({ calls: 1, stored: 1, duplicates: 0 });
    });
  });
});

describe('scanGatewayLogs', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bb-gwscan-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the logs in a directory and its logs/ subdirectory, one file once, with an unterminated last line malformed', () => {
    const logs = join(dir, 'logs');
    mkdirSync(logs);
    const a = generateGatewayLog({ start: EVENING, count: 120, seed: 81 });
    const b = generateGatewayLog({ start: EVENING + 200_000, count: 80, seed: 82 });
    const c = generateGatewayLog({ start: EVENING - 100_000, count: 60, seed: 83 });
    const bad = malformedLines(EVENING);
    appendLog(join(dir, logName(DAY1)), [...a, ...bad]);
    appendLog(join(logs, logName(DAY2)), b);
    appendLog(join(logs, `${logName(DAY1)}.1`), c);
    const unterminated = fallbackDecision(EVENING, 'text', {
      decision: 'candidate_failed',
      requested: 'zhipu/glm-5.1',
      candidate: 'zhipu/glm-5.1',
      reason: 'rate_limit',
    }).line.slice(0, 50);
    appendLog(join(dir, 'ignored.log'), a);
    appendLog(join(logs, logName(DAY1, 'work')), a);
    // Half a line at the end: offline, nobody will finish it.
    appendFileSync(join(logs, logName(DAY2)), unterminated);

    const all = [...a, ...b, ...c];
    const byKind = countByKind(all);
    const result = scanGatewayLogs([dir, logs], { profile: null });
    expect(result).toMatchObject({
      files: 3,
      lines: all.length + bad.length + 1,
      malformed: bad.length + 1,
      unknown: all.filter((l) => l.signal === null).length,
      signals: byKind,
      fallbackDecisions: fallbackByReason(all),
      stalls: byKind.stall,
      runTimeouts: byKind.run_timeout,
      errors: [],
    });
    const failedOrSucceeded = signalsOf(all).filter(
      (s) =>
        s.kind === 'fallback_decision' && (s.decision === 'candidate_failed' || s.decision === 'candidate_succeeded'),
    );
    expect(result.calls).toHaveLength(failedOrSucceeded.length);
    expect(new Set(result.calls.map((c) => c.key)).size).toBe(result.calls.length);
    expect(result.calls.every((c) => c.source === 'gatewaylog' && c.agentId === 'main')).toBe(true);
  });

  it('counts only signals since the given time, and only the profile’s files', () => {
    const plain = generateGatewayLog({ start: EVENING, count: 100, seed: 91 });
    const work = generateGatewayLog({ start: EVENING, count: 100, seed: 92 });
    appendLog(join(dir, logName(DAY1)), plain);
    appendLog(join(dir, logName(DAY1, 'work')), work);
    const since = EVENING + 50_000;
    const newer = work.filter((l) => l.signal === null || l.signal.ts >= since);
    const result = scanGatewayLogs([dir], { profile: 'work', since });
    expect(result).toMatchObject({
      files: 1,
      lines: work.length,
      signals: countByKind(newer),
      fallbackDecisions: fallbackByReason(newer),
    });
    expect(result.calls.every((c) => c.ts >= since)).toBe(true);
  });

  it('finds nothing, without errors, in directories without gateway logs', () => {
    expect(scanGatewayLogs([dir, join(dir, 'missing')], { profile: null })).toMatchObject({
      files: 0,
      lines: 0,
      calls: [],
      errors: [],
    });
  });
});
