/**
 * What `openclaw gateway restart --json` answers mean, from recorded answers
 * (and ones built from the CLI's own code paths): a safe restart the gateway
 * performs later is 'pending', with its reason and how long it may take.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chooseRestart, executeRestart, interpretRestart } from '../../../main/core/gateway/control.js';
import type { CommandResult } from '../../../main/core/gateway/run-command.js';
import {
  OPENCLAW_SAFE_RESTART_MAX_DEFERRAL_MS,
  openclawPlan,
  parseCliJson,
} from '../../../main/core/gateway/strategies/openclaw-cli.js';
import { fakeExecutable } from './fake-executable.js';
import { fixture } from './service-fixtures.js';
import { type Harness, harness } from './strategy-harness.js';

const SAFE = openclawPlan('/usr/local/bin/openclaw', null, 'safe', 30);

function ran(name: string): CommandResult {
  const { stdout, stderr, exitCode } = fixture(name);
  return { exitCode, signal: null, timedOut: false, spawnError: null, stdout, stderr, durationMs: 2600 };
}

describe('openclaw CLI results', () => {
  it.each([
    ['2026.9.6', 'stdout'],
    ['2026.7.1', 'stderr'],
  ] as const)(
    'OpenClaw %s: a deferred safe restart captured from the real CLI (JSON on %s) is pending',
    (version, stream) => {
      const json = readFileSync(
        join(__dirname, '..', '..', 'fixtures', `openclaw-${version}`, 'restart', 'restart-safe-deferred.json'),
        'utf8',
      );
      const result = interpretRestart(SAFE, {
        exitCode: 0,
        signal: null,
        timedOut: false,
        spawnError: null,
        stdout: stream === 'stdout' ? json : '',
        stderr: stream === 'stderr' ? json : 'Warning: legacy systemd metadata was not refreshed',
        durationMs: 4500,
      });
      expect(result.outcome).toBe('pending');
      expect(result.pending?.kind).toBe('deferred');
    },
  );

  it('safe restart scheduled (recorded): pending, restarts momentarily, pid of the gateway that will restart', () => {
    const result = interpretRestart(SAFE, ran('openclaw safe scheduled'));
    expect(result).toEqual({
      outcome: 'pending',
      message: 'openclaw gateway restart (safe): restart scheduled, momentarily',
      pending: { kind: 'scheduled', reason: null, blockers: [], delayMs: 0, maxWaitMs: 0, pid: 29245 },
    });
  });

  it('safe restart deferred: pending until active work drains, with what is running and the bound', () => {
    const result = interpretRestart(SAFE, ran('openclaw safe deferred'));
    expect(result.outcome).toBe('pending');
    expect(result.pending).toEqual({
      kind: 'deferred',
      reason: '2 pending reply delivery operation(s); 1 active embedded run(s)',
      blockers: ['2 pending reply delivery operation(s)', '1 active embedded run(s)'],
      delayMs: 0,
      maxWaitMs: OPENCLAW_SAFE_RESTART_MAX_DEFERRAL_MS,
      pid: 48213,
    });
    expect(result.message).toBe(
      'openclaw gateway restart (safe): restart deferred until active work drains (2 pending reply delivery operation(s); 1 active embedded run(s)); forced after at most 5 min',
    );
  });

  it('joined a pending restart: pending, with its delay', () => {
    const result = interpretRestart(SAFE, ran('openclaw safe coalesced'));
    expect(result.outcome).toBe('pending');
    expect(result.pending).toMatchObject({ kind: 'coalesced', delayMs: 4000, maxWaitMs: 4000 + 300_000 });
    expect(result.message).toContain('joined a restart already pending in 4 s');
  });

  it('a restart handed to a helper from inside the service is pending too', () => {
    const plain = openclawPlan('/usr/local/bin/openclaw', null, 'plain', 30);
    const result = interpretRestart(plain, ran('openclaw handoff scheduled'));
    expect(result.outcome).toBe('pending');
    expect(result.pending?.kind).toBe('scheduled');
  });

  it('restarted (recorded): done', () => {
    const force = openclawPlan('/usr/local/bin/openclaw', null, 'force', 30);
    expect(interpretRestart(force, ran('openclaw restarted'))).toEqual({
      outcome: 'done',
      message: 'openclaw gateway restart (force): done',
      pending: null,
    });
  });

  it('exit 2: still starting, with the CLI’s words', () => {
    const force = openclawPlan('/usr/local/bin/openclaw', null, 'force', 30);
    const result = interpretRestart(force, ran('openclaw still starting'));
    expect(result.outcome).toBe('still_starting');
    expect(result.message).toBe(
      'openclaw gateway restart (force): gateway still starting: Gateway service is still starting after 64s. Last observed startup phase: plugins. Run openclaw gateway status --deep.',
    );
  });

  it('restarted but not healthy within the CLI’s wait: still starting (given the startup grace), and says it did restart', () => {
    const force = openclawPlan('/usr/local/bin/openclaw', null, 'force', 30);
    const result = interpretRestart(force, ran('openclaw health failed'));
    expect(result.outcome).toBe('still_starting');
    expect(result.message).toBe(
      'openclaw gateway restart (force): restarted, not healthy yet when OpenClaw stopped waiting (Gateway restart timed out after 60s waiting for health checks.); waiting for it to start',
    );
  });

  it('safe restart of an unreachable gateway (recorded): failed with the error object’s message', () => {
    const result = interpretRestart(SAFE, ran('openclaw safe unreachable'));
    expect(result.outcome).toBe('failed');
    expect(result.message).toMatch(
      /^openclaw gateway restart \(safe\) failed with exit code 1: Gateway not reachable at ws:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)\. Start it/,
    );
  });

  it('exit 0 with ok false is not a restart', () => {
    const result = interpretRestart(SAFE, { ...ran('openclaw restarted'), stdout: '{"ok":false,"error":"refused"}' });
    expect(result).toMatchObject({ outcome: 'failed', message: 'openclaw gateway restart (safe) failed: refused' });
  });

  it('reads the JSON after log lines the CLI printed first', () => {
    const { stdout } = fixture('openclaw safe deferred');
    expect(parseCliJson(`[plugins] loaded 3\nwarn: something\n${stdout}`)?.result).toBe('deferred');
    expect(parseCliJson('no json here')).toBeNull();
  });
});

describe('openclaw CLI through a fake executable on PATH', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.cleanup());

  it('runs `openclaw gateway restart --json --safe` once and reports it pending', async () => {
    const openclaw = fakeExecutable(h.bin, 'openclaw', {
      'gateway restart --json --safe': fixture('openclaw safe deferred'),
    });
    const env = h.environment({ platform: 'linux' });
    const { plan } = chooseRestart({ restartCommand: null, flavour: 'safe', waitSec: 30 }, env);
    if (!plan) throw new Error('expected the openclaw plan');
    const attempt = await executeRestart(plan, h.context(env));
    expect(openclaw.lines()).toEqual(['openclaw gateway restart --json --safe']);
    expect(attempt.outcome).toBe('pending');
    expect(attempt.pending?.kind).toBe('deferred');
    expect(attempt.result?.exitCode).toBe(0);
    expect(attempt.service).toBeNull();
  });
});
