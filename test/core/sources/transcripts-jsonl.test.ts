/**
 * The JSONL transcript source against a real SQLite store: what is stored equals
 * what the fixture generator says it wrote, mentions of errors outside assistant
 * messages never count, archives are skipped unless asked for, the backfill
 * cutoff holds, and a restart re-reads nothing.
 */
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../main/core/runtime/log.js';
import type { TranscriptRecord } from '../../../main/core/sources/transcript-record.js';
import {
  agentIdOf,
  forEachRecord,
  type JsonlSourceOptions,
  JsonlTranscriptSource,
  sessionIdOf,
  transcriptRole,
} from '../../../main/core/sources/transcripts-jsonl.js';
import { Store } from '../../../main/core/store/db.js';
import {
  allCalls,
  appendLines,
  expectedSummary,
  type GeneratedSession,
  generateSession,
  jsonl,
  lineCount,
  MENTIONS,
  sessionsDir,
  sessionUuid,
  until,
  writeSession,
  writeStateDir,
} from '../../helpers/transcripts.js';

const START = Date.parse('2026-07-01T08:00:00.000Z');
const AGENTS = ['main', 'ops'] as const;

describe('transcriptRole', () => {
  const S = '/state/agents/main/sessions';
  it.each([
    [`${S}/0b6c5d2e.jsonl`, 'follow', 'follow'],
    [`${S}/0b6c5d2e-topic-42.jsonl`, 'follow', 'follow'],
    [`${S}/0b6c5d2e.jsonl.reset.2026-07-01T08-00-00.000Z`, 'continue', 'follow'],
    [`${S}/0b6c5d2e.jsonl.deleted.2026-07-01T08-00-00.000Z`, 'continue', 'follow'],
    [`${S}/0b6c5d2e.corrupt-1751356800.jsonl`, 'continue', 'follow'],
    [`${S}/0b6c5d2e.jsonl.bak`, 'continue', 'follow'],
    [`${S}/0b6c5d2e.jsonl.bak-2`, 'continue', 'follow'],
    [`${S}/0b6c5d2e.trajectory.jsonl`, 'ignore', 'ignore'],
    [`${S}/0b6c5d2e.trajectory-path.json`, 'ignore', 'ignore'],
    [`${S}/sessions.json`, 'ignore', 'ignore'],
    ['/state/agents/main/agent/notes.jsonl', 'ignore', 'ignore'],
    ['/state/agents/main/0b6c5d2e.jsonl', 'ignore', 'ignore'],
  ])('%s is %s (with archives: %s)', (path, normally, withArchives) => {
    expect(transcriptRole(path, false)).toBe(normally);
    expect(transcriptRole(path, true)).toBe(withArchives);
  });
});

describe('agentIdOf and sessionIdOf', () => {
  it('takes the agent from the directory above `sessions`', () => {
    expect(agentIdOf('/state/agents/ops/sessions/s.jsonl')).toBe('ops');
  });

  it('takes the session id from the header line, else from the file name', () => {
    const path = '/state/agents/main/sessions/abc-topic-7.jsonl.reset.2026-07-01';
    const header = Buffer.from('{"type":"session","version":3,"id":"real-id","timestamp":"2026-07-01T08:00:00Z"}');
    expect(sessionIdOf(path, header)).toBe('real-id');
    expect(sessionIdOf(path, Buffer.from('{"type":"message","id":"m1"}'))).toBe('abc-topic-7');
    expect(sessionIdOf(path, Buffer.from('{"type":"session","id":'))).toBe('abc-topic-7');
    expect(sessionIdOf(path, null)).toBe('abc-topic-7');
  });
});

describe('forEachRecord', () => {
  it('counts lines and malformed lines; blank lines are not lines; oversized lines are malformed', () => {
    const text = [
      '{"type":"session","version":3,"id":"s1"}',
      '',
      '   ',
      '{"type":"message","id":"u1","timestamp":"2026-07-01T08:00:00Z","message":{"role":"user","content":"429"}}',
      '{"type":"message","id":"a1","timestamp":"2026-07-01T08:00:02Z","message":{"role":"assistant","stopReason":"stop","provider":"p","model":"m","content":[]}}',
      '{"type":"message","id":"a2","message":{"role":"assist',
      'not json at all',
    ];
    const buf = Buffer.from(jsonl(text));
    const lineStarts: number[] = [];
    const lineEnds: number[] = [];
    for (let start = 0; start < buf.length; ) {
      const end = buf.indexOf(10, start);
      lineStarts.push(start);
      lineEnds.push(end);
      start = end + 1;
    }
    const counts = { lines: 0, malformed: 0 };
    const records: TranscriptRecord[] = [];
    forEachRecord(
      { buf, lineStarts, lineEnds, oversizedLines: 2 },
      { source: 'jsonl', agentId: 'a', sessionId: 's1' },
      counts,
      (r) => records.push(r),
    );
    expect(counts).toEqual({ lines: 5 + 2, malformed: 2 + 2 });
    expect(records.map((r) => r.kind)).toEqual(['header', 'other', 'call']);
  });
});

describe('JsonlTranscriptSource with a real store', () => {
  let stateDir: string;
  let store: Store;
  const sources: JsonlTranscriptSource[] = [];

  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'bb-jsonl-'));
    store = Store.open(join(stateDir, 'breakerbar', 'breakerbar.db'));
  });

  afterEach(async () => {
    await Promise.all(sources.splice(0).map((source) => source.stop()));
    store.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  function startSource(options: Partial<JsonlSourceOptions> = {}): JsonlTranscriptSource {
    const source = new JsonlTranscriptSource({
      stateDir,
      includeArchives: false,
      sink: store,
      cutoff: 0,
      reconcileIntervalMs: 200,
      maxLineBytes: 8 * 1024 * 1024,
      log: silentLogger,
      ...options,
    });
    source.start();
    sources.push(source);
    return source;
  }

  /** Waits until the source has read `lines` lines and has nothing left queued. */
  async function caughtUp(source: JsonlTranscriptSource, lines: number): Promise<void> {
    await until(() => source.status().lines >= lines && source.caughtUp, 10_000, `${lines} lines to be read`);
    expect(source.status().lines).toBe(lines);
  }

  const corpus = () => writeStateDir(stateDir, { agents: AGENTS, sessionsPerAgent: 3, turns: 15, start: START });

  it('stores exactly the calls the transcripts of two agents hold, by outcome, dependency and tokens', async () => {
    const sessions = corpus();
    const calls = allCalls(sessions);
    // The fixture is varied enough to mean something.
    expect(new Set(calls.map((c) => c.outcome)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(calls.map((c) => c.agentId))).toEqual(new Set(AGENTS));

    const source = startSource();
    await caughtUp(source, lineCount(sessions));
    expect(store.summary()).toEqual(expectedSummary(calls));
    expect(source.status()).toMatchObject({
      inputs: sessions.length,
      calls: calls.length,
      stored: calls.length,
      duplicates: 0,
      malformed: sessions.reduce((n, s) => n + s.malformed, 0),
      pending: 0,
      lastError: null,
    });
    expect(store.counter('ingest.duplicates')).toBe(0);
  });

  it('stores each call under its agent, the session id of the header, and its own record time', async () => {
    const session = generateSession({ agentId: 'ops', sessionId: sessionUuid(1), start: START, turns: 5 });
    writeSession(stateDir, session, 'renamed-topic-9.jsonl');
    const source = startSource();
    await caughtUp(source, session.lines.length);
    const rows = store.db.prepare('SELECT agent_id, session_id, ts FROM calls ORDER BY ts').all();
    expect(rows).toEqual(session.calls.map((c) => ({ agent_id: 'ops', session_id: session.sessionId, ts: c.ts })));
  });

  /** One assistant call line (entry time `ts`) with `message` fields over a successful call's. */
  function assistantLine(id: string, ts: number, message: Record<string, unknown> = {}): Buffer {
    const entry = {
      type: 'message',
      id,
      parentId: null,
      timestamp: new Date(ts).toISOString(),
      message: {
        role: 'assistant',
        provider: 'zhipu',
        model: 'glm-5.1',
        content: [{ type: 'text', text: 'Done.' }],
        usage: { input: 10, output: 5, totalTokens: 15 },
        stopReason: 'stop',
        ...message,
      },
    };
    return Buffer.from(`${JSON.stringify(entry)}\n`);
  }

  /** `line` with the string `marker` replaced by raw bytes (which may be invalid UTF-8). */
  function withRawBytes(line: Buffer, marker: string, raw: Buffer): Buffer {
    const at = line.indexOf(marker);
    expect(at).toBeGreaterThanOrEqual(0);
    return Buffer.concat([line.subarray(0, at), raw, line.subarray(at + marker.length)]);
  }

  const header = (id: string) =>
    Buffer.from(`{"type":"session","version":3,"id":"${id}","timestamp":"2026-07-01T08:00:00.000Z","cwd":"/"}\n`);

  it('stores a call whose line is 5 MB long, and counts a line over maxLineBytes as malformed', async () => {
    const long = (text: string) => ({
      content: [
        { type: 'thinking', thinking: text },
        { type: 'text', text },
      ],
    });
    const parts = [
      header('big'),
      assistantLine('a1', START, long('a long answer with "quotes", \\ and é '.repeat(75_000))),
      assistantLine('a2', START + 1000, long('x'.repeat(5 * 1024 * 1024))),
      assistantLine('a3', START + 2000),
    ];
    expect(parts[1]?.length).toBeGreaterThan(5 * 1024 * 1024);
    expect(parts[2]?.length).toBeGreaterThan(8 * 1024 * 1024);
    writeFileSync(join(sessionsDir(stateDir, 'main'), 'big.jsonl'), Buffer.concat(parts));
    const source = startSource({ maxLineBytes: 8 * 1024 * 1024 });
    await caughtUp(source, 4);
    expect(source.status()).toMatchObject({ calls: 2, stored: 2, malformed: 1 });
    expect(store.summary().outcomes.ok).toBe(2);
  });

  it('stores every call of a file in which one holds a value SQLite cannot keep as written, and says so once', async () => {
    // Found in hardening: `"usage":{"input":1.5}` failed its whole batch against an INTEGER column, and the file
    // was retried every 5 s for good, 34 of 47 good records never stored.
    const warnings: Array<[string, unknown]> = [];
    const log = { ...silentLogger, warn: (message: string, fields?: unknown) => warnings.push([message, fields]) };
    const lines: Buffer[] = [header('odd')];
    for (let i = 0; i < 47; i++) {
      const odd =
        i === 13
          ? { usage: { input: 1.5, output: 2 ** 60, totalTokens: 7.5 }, errorRetryAfterMs: 0.5 }
          : i === 30
            ? { usage: { input: 2.5, output: 1, totalTokens: 3 } }
            : {};
      lines.push(assistantLine(`a${i}`, START + i * 1000, odd));
    }
    writeFileSync(join(sessionsDir(stateDir, 'main'), 'odd.jsonl'), Buffer.concat(lines));
    const source = startSource({ log });
    await caughtUp(source, 48);
    expect(source.status()).toMatchObject({ calls: 47, stored: 47, repaired: 2, malformed: 0, lastError: null });
    const row = store.db
      .prepare("SELECT tokens_input, tokens_output, tokens_total FROM calls WHERE event_key LIKE '%a13'")
      .get();
    expect(row).toEqual({ tokens_input: 2, tokens_output: 0, tokens_total: 8 });
    expect(warnings.filter(([message]) => /cannot be stored as written/.test(message))).toHaveLength(1);
  });

  it('reads calls whose text or error message holds invalid UTF-8', async () => {
    const bad = Buffer.from([0xff, 0xfe, 0xc3, 0x28]);
    const failed = { stopReason: 'error', content: [], errorMessage: '429 @@BAD@@ 该模型当前访问量过大' };
    writeFileSync(
      join(sessionsDir(stateDir, 'main'), 'bytes.jsonl'),
      Buffer.concat([
        header('bytes'),
        withRawBytes(assistantLine('a1', START, { content: [{ type: 'text', text: '@@BAD@@' }] }), '@@BAD@@', bad),
        withRawBytes(assistantLine('a2', START + 1000, failed), '@@BAD@@', bad),
      ]),
    );
    const source = startSource();
    await caughtUp(source, 3);
    expect(source.status()).toMatchObject({ calls: 2, malformed: 0 });
    expect(store.summary().outcomes).toMatchObject({ ok: 1, rate_limited: 1 });
  });

  it('never counts 429 / rate limit / timeout mentioned in user text, tool results, tool-call arguments or compaction summaries', async () => {
    const session = generateSession({
      agentId: 'main',
      sessionId: sessionUuid(2),
      start: START,
      turns: 12,
      failureRate: 0,
    });
    const text = jsonl(session.lines);
    for (const mention of [MENTIONS.user, MENTIONS.toolOutput, MENTIONS.compaction]) {
      expect(text).toContain(JSON.stringify(mention).slice(1, 30));
    }
    expect(text).toContain('"arguments":{"command":"grep -rn');
    writeSession(stateDir, session);
    const source = startSource();
    await caughtUp(source, session.lines.length);
    const summary = store.summary();
    expect(summary.calls).toBe(session.calls.length);
    expect(summary.outcomes.ok).toBe(session.calls.length);
    expect(summary).toEqual(expectedSummary(session.calls));
  });

  it('follows appends and new sessions live', async () => {
    const sessions = corpus();
    const source = startSource();
    await caughtUp(source, lineCount(sessions));

    const more = generateSession({
      agentId: 'main',
      sessionId: sessionUuid(99),
      start: START + 86_400_000,
      turns: 10,
      seed: 99,
    });
    const path = join(sessionsDir(stateDir, 'main'), `${more.sessionId}.jsonl`);
    appendLines(path, more.lines);
    const newAgent = generateSession({
      agentId: 'fresh',
      sessionId: sessionUuid(100),
      start: START,
      turns: 4,
      seed: 100,
    });
    writeSession(stateDir, newAgent);

    await caughtUp(source, lineCount([...sessions, more, newAgent]));
    expect(store.summary()).toEqual(expectedSummary(allCalls([...sessions, more, newAgent])));
    expect(store.counter('ingest.duplicates')).toBe(0);
  });

  describe('archives, trajectories and the session index', () => {
    /** Live sessions plus one session in each kind of archive, a trajectory and sessions.json. */
    function corpusWithArchives() {
      const live = corpus();
      const archived: GeneratedSession[] = [];
      const names = [
        '.jsonl.reset.2026-07-01T09-00-00.000Z',
        '.jsonl.deleted.2026-07-01T10-00-00.000Z',
        '.corrupt-1751356800.jsonl',
        '.jsonl.bak',
      ];
      for (const [i, suffix] of names.entries()) {
        const session = generateSession({
          agentId: AGENTS[i % 2] as string,
          sessionId: sessionUuid(200 + i),
          start: START,
          turns: 6,
          seed: 200 + i,
        });
        writeSession(stateDir, session, `${session.sessionId}${suffix}`);
        archived.push(session);
      }
      // Never transcripts: a trajectory sidecar full of call-shaped lines, and the index.
      const sidecar = generateSession({
        agentId: 'main',
        sessionId: sessionUuid(300),
        start: START,
        turns: 6,
        seed: 300,
      });
      writeSession(stateDir, sidecar, `${live[0]?.sessionId}.trajectory.jsonl`);
      writeFileSync(
        join(sessionsDir(stateDir, 'main'), 'sessions.json'),
        JSON.stringify({ 'agent:main:main': { sessionId: live[0]?.sessionId } }),
      );
      return { live, archived };
    }

    it('skips archives, trajectories and sessions.json by default', async () => {
      const { live } = corpusWithArchives();
      const source = startSource();
      await caughtUp(source, lineCount(live));
      expect(store.summary()).toEqual(expectedSummary(allCalls(live)));
      expect(source.status().inputs).toBe(live.length);
    });

    it('reads archives (but still not trajectories or sessions.json) with includeArchives', async () => {
      const { live, archived } = corpusWithArchives();
      const source = startSource({ includeArchives: true });
      await caughtUp(source, lineCount([...live, ...archived]));
      expect(store.summary()).toEqual(expectedSummary(allCalls([...live, ...archived])));
      expect(source.status().inputs).toBe(live.length + archived.length);
    });
  });

  it('stores only the calls at or after the backfill cutoff (record time decides), reading all of them', async () => {
    const sessions = corpus();
    const calls = allCalls(sessions);
    const times = calls.map((c) => c.ts).sort((a, b) => a - b);
    const cutoff = times[Math.floor(times.length / 2)] as number;
    const newer = calls.filter((c) => c.ts >= cutoff);
    expect(newer.length).toBeGreaterThan(0);
    expect(newer.length).toBeLessThan(calls.length);

    const source = startSource({ cutoff });
    await caughtUp(source, lineCount(sessions));
    expect(store.summary()).toEqual(expectedSummary(newer));
    expect(source.status()).toMatchObject({ calls: calls.length, stored: newer.length });
  });

  it('re-reads nothing after a restart over the same store, and goes on with what is new', async () => {
    const sessions = corpus();
    const first = startSource();
    await caughtUp(first, lineCount(sessions));
    const stored = store.summary();
    await first.stop();

    // A real restart: the database is closed and opened again.
    store.close();
    store = Store.open(join(stateDir, 'breakerbar', 'breakerbar.db'));
    const second = startSource();
    await until(() => second.caughtUp, 5000, 'the restarted source to catch up');
    expect(second.status()).toMatchObject({ lines: 0, calls: 0, duplicates: 0 });
    expect(store.summary()).toEqual(stored);

    const last = sessions.at(-1) as GeneratedSession;
    const more = generateSession({
      agentId: last.agentId,
      sessionId: last.sessionId,
      start: START + 86_400_000,
      turns: 5,
      seed: 5,
    });
    const tail = more.lines.slice(1).map((line) => line.replaceAll(`${last.sessionId.slice(0, 8)}-`, 'more-'));
    appendLines(join(sessionsDir(stateDir, last.agentId), `${last.sessionId}.jsonl`), tail);
    await caughtUp(second, tail.length);
    expect(store.summary()).toEqual(expectedSummary([...allCalls(sessions), ...more.calls]));
    expect(store.counter('ingest.duplicates')).toBe(0);
  });

  it('stores the unread tail of a transcript renamed to a reset archive while running, without duplicates', async () => {
    const session = generateSession({ agentId: 'main', sessionId: sessionUuid(7), start: START, turns: 20, seed: 7 });
    const path = join(sessionsDir(stateDir, 'main'), `${session.sessionId}.jsonl`);
    const cut = Math.floor(session.lines.length / 2);
    appendLines(path, session.lines.slice(0, cut));
    const source = startSource();
    await caughtUp(source, cut);

    // OpenClaw's /reset: the rest is written, the file renamed, a new session starts.
    appendFileSync(path, jsonl(session.lines.slice(cut)));
    renameSync(path, `${path}.reset.2026-07-01T12-00-00.000Z`);
    const next = generateSession({
      agentId: 'main',
      sessionId: sessionUuid(8),
      start: START + 3_600_000,
      turns: 3,
      seed: 8,
    });
    writeSession(stateDir, next);

    await caughtUp(source, session.lines.length + next.lines.length);
    expect(store.summary()).toEqual(expectedSummary([...session.calls, ...next.calls]));
    expect(store.counter('ingest.duplicates')).toBe(0);
  });

  it('forgets the cursor of a transcript deleted while stopped, and keeps the calls it stored', async () => {
    const sessions = corpus();
    const first = startSource();
    await caughtUp(first, lineCount(sessions));
    await first.stop();
    expect(store.cursors('jsonl')).toHaveLength(sessions.length);

    const gone = sessions[0] as GeneratedSession;
    rmSync(join(sessionsDir(stateDir, gone.agentId), `${gone.sessionId}.jsonl`));
    const second = startSource();
    await until(() => store.cursors('jsonl').length === sessions.length - 1, 5000, 'the cursor to be forgotten');
    await until(() => second.caughtUp);
    expect(store.summary()).toEqual(expectedSummary(allCalls(sessions)));
  });
});
