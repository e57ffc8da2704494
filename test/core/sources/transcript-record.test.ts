/**
 * What one transcript record means: the call's identity across copies, its
 * time, and the credential fingerprint (never the auth profile itself).
 */
import { describe, expect, it } from 'vitest';
import { credentialOf, FAILED_TURN_PLACEHOLDER, readRecord } from '../../../main/core/sources/transcript-record.js';
import { assistantMessage } from '../../../main/simulator/records.js';

const context = { source: 'jsonl' as const, agentId: 'main', sessionId: 's1' };
const T = Date.parse('2026-11-30T10:00:00Z');

function read(line: string, over: Partial<typeof context> & { fallbackTs?: number } = {}) {
  const buf = Buffer.from(line);
  return readRecord(buf, 0, buf.length, { ...context, ...over });
}

function withFields(line: string, message: Record<string, unknown>, entry: Record<string, unknown> = {}): string {
  const record = JSON.parse(line) as { message: Record<string, unknown> };
  return JSON.stringify({ ...record, ...entry, message: { ...record.message, ...message } });
}

const ok = assistantMessage({ id: 'e1', parentId: null, ts: T, provider: 'zhipu', model: 'glm-5.1', outcome: 'ok' });

describe('readRecord', () => {
  it('identifies a call by agent, entry id and creation time, whatever session or source holds the copy', () => {
    const a = read(ok);
    const b = read(ok, { sessionId: 'forked-window', source: 'sqlite' } as never);
    expect(a.kind === 'call' && b.kind === 'call' && a.call.key === b.call.key).toBe(true);
    expect(a.kind === 'call' && a.call.key).toBe(`main/${T}@e1`);
  });

  it('keeps the auth profile only as a 12-hex-digit fingerprint', () => {
    const record = read(withFields(ok, { authProfileId: 'ops@example.com' }));
    expect(record.kind === 'call' && record.call.credential).toBe(credentialOf('ops@example.com'));
    expect(credentialOf('ops@example.com')).toMatch(/^[0-9a-f]{12}$/);
    expect(JSON.stringify(record)).not.toContain('example.com');
    expect(read(ok).kind === 'call' && (read(ok) as { call: { credential: unknown } }).call.credential).toBeNull();
  });

  it('repairs a value the store cannot keep as written (a fraction rounded, past 2^53 dropped), and says which', () => {
    const limited = assistantMessage({
      id: 'e9',
      parentId: null,
      ts: T,
      provider: 'zhipu',
      model: 'glm-5.1',
      outcome: 'rate_limited',
    });
    const odd = read(
      withFields(
        limited,
        {
          timestamp: T + 0.4,
          usage: { input: 1.5, output: 2 ** 60, cacheRead: 3, cacheWrite: 0, totalTokens: 7.2 },
          errorRetryAfterMs: 1500.7,
        },
        // No ISO time of the entry's own: the message's epoch-ms time is the call's.
        { timestamp: undefined },
      ),
    );
    expect(odd.kind).toBe('call');
    if (odd.kind !== 'call') return;
    expect(odd.call).toMatchObject({
      ts: T,
      usage: { input: 2, output: 0, cacheRead: 3, cacheWrite: 0, totalTokens: 7 },
      retryAfterMs: 1501,
    });
    expect(odd.repaired).toEqual([
      'timestamp',
      'usage.input',
      'usage.output',
      'usage.totalTokens',
      'errorRetryAfterMs',
    ]);
    // A record with nothing odd says nothing.
    expect(read(ok)).not.toHaveProperty('repaired');
    // A time past 2^53 is no time: the container's, else refused.
    const far = withFields(ok, { timestamp: 2 ** 60 }, { timestamp: undefined });
    expect(read(far, { fallbackTs: T })).toMatchObject({ kind: 'call', call: { ts: T } });
  });

  it("uses the SQLite row's created_at only when the record has no time of its own", () => {
    const timeless = JSON.stringify({
      type: 'message',
      id: 'e2',
      message: { role: 'assistant', stopReason: 'stop', provider: 'p', model: 'm' },
    });
    expect(read(timeless).kind).toBe('malformed');
    const record = read(timeless, { fallbackTs: T });
    expect(record.kind === 'call' && record.call.ts).toBe(T);
  });

  it("reads OpenClaw's failed-turn placeholder as no output: the failure struck before it (not mid-stream)", () => {
    const rateLimited = assistantMessage({
      id: 'e3',
      parentId: null,
      ts: T,
      provider: 'zhipu',
      model: 'glm-5.1',
      outcome: 'rate_limited',
    });
    const phase = (content: unknown[]) => {
      const record = read(withFields(rateLimited, { content }));
      return record.kind === 'call' ? [record.call.outcome, record.call.phase] : record.kind;
    };
    expect(phase([{ type: 'text', text: FAILED_TURN_PLACEHOLDER }])).toEqual(['rate_limited', 'before_output']);
    expect(phase([])).toEqual(['rate_limited', 'before_output']);
    // Text that did reach the client still makes the failure mid-stream, placeholder or not beside it.
    expect(phase([{ type: 'text', text: 'Partial ' }])).toEqual(['rate_limited', 'mid_stream']);
    expect(
      phase([
        { type: 'text', text: FAILED_TURN_PLACEHOLDER },
        { type: 'text', text: 'Partial ' },
      ]),
    ).toEqual(['rate_limited', 'mid_stream']);
  });
});
