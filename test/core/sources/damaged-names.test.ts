/**
 * Rule: a provider or model name damaged by invalid UTF-8 or control characters never becomes a dependency:
 * the transcript record is counted as malformed with its reason (logged once), a gateway log attempt is a
 * malformed line, and a label of another program's metrics is shown escaped.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogFields, Logger } from '../../../main/core/runtime/log.js';
import { dependencyNameProblem, escapedName, nameProblem } from '../../../main/core/sources/dependency-name.js';
import { readGatewayLogLine } from '../../../main/core/sources/gateway-log-record.js';
import { JsonlTranscriptSource } from '../../../main/core/sources/transcripts-jsonl.js';
import { Store } from '../../../main/core/store/db.js';
import { sessionHeader, sessionsDir, sessionUuid, until } from '../../helpers/transcripts.js';

const START = Date.parse('2026-07-01T08:00:00.000Z');

/** An assistant record whose model name is `model` (bytes, so that invalid UTF-8 can be written). */
function assistantLine(id: string, ts: number, model: Buffer): Buffer {
  const entry = {
    type: 'message',
    id,
    timestamp: new Date(ts).toISOString(),
    message: {
      role: 'assistant',
      provider: 'zhipu',
      model: '@MODEL@',
      content: [{ type: 'text', text: 'Done.' }],
      usage: { input: 10, output: 5, totalTokens: 15 },
      stopReason: 'stop',
    },
  };
  const [before, after] = JSON.stringify(entry).split('@MODEL@') as [string, string];
  return Buffer.concat([Buffer.from(before), model, Buffer.from(`${after}\n`)]);
}

describe('names that cannot name a dependency', () => {
  it('finds U+FFFD and control characters, and nothing in ordinary names', () => {
    expect(nameProblem('glm-5.1')).toBeNull();
    expect(nameProblem('通义千问-max')).toBeNull();
    expect(nameProblem('glm-\uFFFD')).toBe('invalid UTF-8');
    expect(nameProblem('glm\u0007')).toBe('control characters');
    expect(nameProblem('glm\u0085')).toBe('control characters');
    expect(dependencyNameProblem('zhipu', 'glm-\uFFFD\uFFFD')).toBe('model name has invalid UTF-8');
    expect(dependencyNameProblem('zh\u0000ipu', 'glm')).toBe('provider name has control characters');
    expect(escapedName('zhipu/glm-\uFFFD\u0007')).toBe('zhipu/glm-\\ufffd\\u0007');
    expect(escapedName('zhipu/glm-5.1')).toBe('zhipu/glm-5.1');
  });

  it('makes a gateway log attempt with a damaged model a malformed line', () => {
    const read = (model: string) => {
      const time = '2026-07-01T08:00:00.000Z';
      const text = `[model-fetch] response provider=zhipu api=openai-completions model=${model} status=429 elapsedMs=11`;
      const buf = Buffer.from(
        JSON.stringify({
          '0': JSON.stringify({ subsystem: 'provider-transport-fetch' }),
          '1': text,
          _meta: { name: JSON.stringify({ subsystem: 'provider-transport-fetch' }), date: time, logLevelName: 'INFO' },
          time,
        }),
      );
      return readGatewayLogLine(buf, 0, buf.length, 'log@0').kind;
    };
    expect(read('glm-5.1')).toBe('attempt');
    expect(read('glm-\uFFFD\uFFFD')).toBe('malformed');
  });
});

describe('a JSONL transcript with invalid UTF-8 in a model name', () => {
  let stateDir: string;
  let store: Store;
  let source: JsonlTranscriptSource | null = null;

  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'bb-names-'));
    store = Store.open(join(stateDir, 'breakerbar', 'breakerbar.db'));
  });

  afterEach(async () => {
    await source?.stop();
    store.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('stores the good calls, counts the damaged records as malformed and says why once', async () => {
    const sessionId = sessionUuid(7);
    const path = join(sessionsDir(stateDir, 'main'), `${sessionId}.jsonl`);
    writeFileSync(
      path,
      Buffer.concat([
        Buffer.from(`${sessionHeader(sessionId, START)}\n`),
        assistantLine('a1', START + 1000, Buffer.from('glm-5.1')),
        // `glm-` followed by bytes that are not UTF-8 (a lone continuation byte, an invalid lead byte).
        assistantLine('a2', START + 2000, Buffer.from([0x67, 0x6c, 0x6d, 0x2d, 0x80, 0xff, 0xfe])),
        assistantLine('a3', START + 3000, Buffer.from([0x67, 0x6c, 0x6d, 0xc3])),
        assistantLine('a4', START + 4000, Buffer.from('glm-5.1')),
      ]),
    );
    const warnings: Array<[string, LogFields | undefined]> = [];
    const log: Logger = { debug() {}, info() {}, warn: (msg, fields) => warnings.push([msg, fields]), error() {} };
    source = new JsonlTranscriptSource({
      stateDir,
      includeArchives: false,
      sink: store,
      cutoff: 0,
      reconcileIntervalMs: 200,
      maxLineBytes: 1024 * 1024,
      log,
    });
    source.start();
    const current = source;
    await until(() => current.status().lines >= 5 && current.caughtUp, 10_000, 'the transcript to be read');

    expect(store.db.prepare('SELECT DISTINCT dep FROM calls').pluck().all()).toEqual(['zhipu/glm-5.1']);
    expect(source.status()).toMatchObject({ lines: 5, malformed: 2, calls: 2, stored: 2 });
    expect(warnings).toEqual([
      [
        'transcript record refused (counted as malformed; further ones only counted)',
        { path, reason: 'model name has invalid UTF-8' },
      ],
    ]);
  });
});
