/**
 * OpenClaw's provider usage as BreakerBar reads it: the parser over a real `openclaw status --usage --json`
 * (OpenClaw 2026.9.6, no credentials: one provider, an error, no windows) and over a document built from
 * OpenClaw's own types (windows, group labels, a billing budget), and the reader running a real command.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseStatusOutput, QuotaParseError, QuotaReader, quotaFromStatus } from '../../../main/core/openclaw/quota.js';
import { type LogFields, silentLogger } from '../../../main/core/runtime/log.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/openclaw/${name}`, import.meta.url), 'utf8');
const READ_AT = 1_796_157_000_000;

describe('quota parser', () => {
  it('reads the real output of OpenClaw 2026.9.6 without credentials: no windows, the provider error kept', () => {
    const reading = parseStatusOutput(fixture('status-usage-2026.9.6.json'), READ_AT);
    expect(reading.windows).toEqual([]);
    expect(reading.errors).toHaveLength(1);
    expect(reading.errors[0]?.provider).toBe('openai');
    expect(reading.errors[0]?.error).toContain('codex');
  });

  it("reads windows, group labels and a provider's budget; used up means exhausted", () => {
    const { windows, errors } = parseStatusOutput(fixture('status-usage-constructed.json'), READ_AT);
    expect(windows).toEqual([
      {
        provider: 'anthropic',
        window: '5h',
        usedShare: 0.42,
        resetsAt: 1796164183184,
        exhausted: false,
        readAt: READ_AT,
      },
      {
        provider: 'anthropic',
        window: 'Week',
        usedShare: 0.715,
        resetsAt: 1796500000000,
        exhausted: false,
        readAt: READ_AT,
      },
      {
        provider: 'anthropic',
        window: 'Opus Week',
        usedShare: 1,
        resetsAt: 1796500000000,
        exhausted: true,
        readAt: READ_AT,
      },
      {
        provider: 'zai',
        window: 'Tokens (5h)',
        usedShare: 1,
        resetsAt: 1796160000000,
        exhausted: true,
        readAt: READ_AT,
      },
      { provider: 'zai', window: 'Monthly', usedShare: 0.12, resetsAt: null, exhausted: false, readAt: READ_AT },
      { provider: 'minimax', window: 'Monthly budget', usedShare: 1, resetsAt: null, exhausted: true, readAt: READ_AT },
    ]);
    expect(errors).toEqual([{ provider: 'openai', error: 'No credentials' }]);
  });

  it('skips log lines before the document, and reads a bare usage summary too', () => {
    const text = `[plugins] loading\n${fixture('status-usage-constructed.json')}`;
    expect(parseStatusOutput(text, READ_AT).windows).toHaveLength(6);
    const summary = JSON.parse(fixture('status-usage-constructed.json')).usage;
    expect(quotaFromStatus(summary, READ_AT).windows).toHaveLength(6);
  });

  it('is empty when the status has no usage, and refuses what is not a usage summary', () => {
    expect(quotaFromStatus({ gateway: {} }, READ_AT)).toEqual({ windows: [], errors: [] });
    expect(() => parseStatusOutput('no json here', READ_AT)).toThrow(QuotaParseError);
    expect(() => parseStatusOutput('{"usage": {"providers": 3}}', READ_AT)).toThrow('no "providers" list');
    expect(() => parseStatusOutput('{"usage": ', READ_AT)).toThrow('invalid JSON');
  });
});

describe('QuotaReader', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'breakerbar-quota-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  const script = (body: string) => {
    const path = join(tmp, 'fake-openclaw.mjs');
    writeFileSync(path, body);
    return [process.execPath, path];
  };

  function recordingLog() {
    const warnings: Array<{ message: string; fields?: LogFields }> = [];
    return {
      warnings,
      log: { ...silentLogger, warn: (message: string, fields?: LogFields) => warnings.push({ message, fields }) },
    };
  }

  it('runs the command and keeps the windows it printed', async () => {
    const document = join(tmp, 'status.json');
    writeFileSync(document, fixture('status-usage-constructed.json'));
    const command = script(
      `const fs = await import('node:fs'); process.stdout.write(fs.readFileSync(${JSON.stringify(document)}, 'utf8'));`,
    );
    const reader = new QuotaReader({
      command,
      intervalMs: 60_000,
      timeoutMs: 10_000,
      clock: () => READ_AT,
      log: silentLogger,
    });
    await reader.read();
    expect(reader.windows().map((w) => `${w.provider} ${w.window}`)).toEqual([
      'anthropic 5h',
      'anthropic Week',
      'anthropic Opus Week',
      'zai Tokens (5h)',
      'zai Monthly',
      'minimax Monthly budget',
    ]);
  });

  it('logs a failing command once, keeps nothing, and recovers when it works again', async () => {
    const { warnings, log } = recordingLog();
    const flag = join(tmp, 'ok');
    const command = script(
      `const fs = await import('node:fs');
       if (!fs.existsSync(${JSON.stringify(flag)})) { console.error('gateway unreachable'); process.exit(3); }
       console.log(JSON.stringify({ usage: { providers: [{ provider: 'zai', windows: [{ label: '5h', usedPercent: 50 }] }] } }));`,
    );
    const reader = new QuotaReader({ command, intervalMs: 60_000, timeoutMs: 10_000, clock: () => READ_AT, log });
    await reader.read();
    await reader.read();
    expect(reader.windows()).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.fields?.error)).toContain('exited with 3: gateway unreachable');
    writeFileSync(flag, '');
    await reader.read();
    expect(reader.windows().map((w) => w.usedShare)).toEqual([0.5]);
  });

  it('stops a command that does not answer in time', async () => {
    const { warnings, log } = recordingLog();
    const command = script('setInterval(() => {}, 1000);');
    const reader = new QuotaReader({ command, intervalMs: 60_000, timeoutMs: 300, clock: () => READ_AT, log });
    await reader.read();
    expect(reader.windows()).toEqual([]);
    expect(String(warnings[0]?.fields?.error)).toContain('timed out after 300 ms');
  });

  it('says which program could not be started', async () => {
    const { warnings, log } = recordingLog();
    const reader = new QuotaReader({
      command: [join(tmp, 'no-such-openclaw')],
      intervalMs: 60_000,
      timeoutMs: 1000,
      clock: () => READ_AT,
      log,
    });
    await reader.read();
    expect(String(warnings[0]?.fields?.error)).toContain('cannot run');
  });
});
