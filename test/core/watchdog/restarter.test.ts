/**
 * The Restarter the watchdog holds: `plan`, `execute` (all outcomes,
 * 'pending' included), `restart` (for a policy without 'pending') and
 * `verify`, with fake launchctl/systemctl/openclaw on PATH.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Restarter, type RestarterSettings } from '../../../main/core/watchdog/restarter.js';
import { fakeExecutable } from '../gateway/fake-executable.js';
import { ownerFixture } from '../gateway/owner-fixtures.js';
import { fixture } from '../gateway/service-fixtures.js';
import { type Harness, harness } from '../gateway/strategy-harness.js';

let h: Harness;
let clock = 0;
let slept = 0;
beforeEach(() => {
  h = harness('breakerbar-restarter-');
  clock = 0;
  slept = 0;
});
afterEach(() => h.cleanup());

const SETTINGS: RestarterSettings = {
  restartCommand: null,
  restartTimeoutMs: 30_000,
  manualRestart: 'safe',
  healthRestart: 'force',
  stormRestart: 'wait',
  stormWaitSec: 30,
};

const virtual = {
  now: () => clock,
  sleep: async (ms: number) => {
    clock += ms;
    slept += ms;
  },
};

const manual = { trigger: 'manual' as const, evidence: 'manual' as const, reason: 'test', deps: [], probeClass: null };
const health = {
  trigger: 'health' as const,
  evidence: 'dead' as const,
  reason: 'dead',
  deps: [],
  probeClass: 'refused',
};

const LABEL = 'ai.openclaw.gateway';
const TARGET = (uid: number) => `gui/${uid}/${LABEL}`;

describe('Restarter', () => {
  it('execute reports a deferred safe restart as pending', async () => {
    const openclaw = fakeExecutable(h.bin, 'openclaw', {
      'gateway restart --json --safe': fixture('openclaw safe deferred'),
    });
    const restarter = new Restarter(SETTINGS, h.environment({ platform: 'linux' }), undefined, virtual);
    const executed = await restarter.execute(manual);
    expect(executed.outcome).toBe('pending');
    expect(executed.pending).toMatchObject({ kind: 'deferred', maxWaitMs: 300_000 });
    expect(executed.plan?.strategy).toBe('openclaw');
    expect(executed.steps.map((s) => s.argv)).toEqual([[openclaw.path, 'gateway', 'restart', '--json', '--safe']]);
    expect(executed.message).toContain('restart deferred until active work drains');
  });

  it('the flavour follows the trigger: a dead gateway gets --force, and a restarted answer is done', async () => {
    const openclaw = fakeExecutable(h.bin, 'openclaw', {
      'gateway restart --json --force': fixture('openclaw restarted'),
    });
    const restarter = new Restarter(SETTINGS, h.environment({ platform: 'linux' }), undefined, virtual);
    const executed = await restarter.execute(health);
    expect(openclaw.lines()).toEqual(['openclaw gateway restart --json --force']);
    expect(executed.outcome).toBe('done');
    expect(executed.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('an unloaded LaunchAgent through the restarter: bootstrap, kickstart, verified running', async () => {
    const uid = 501;
    const plist = h.file(join(h.home, 'Library', 'LaunchAgents', `${LABEL}.plist`), '<plist/>');
    const launchctl = fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET(uid)}`]: [
        fixture('launchctl print not loaded'),
        fixture('launchctl print spawn scheduled'),
        fixture('launchctl print running'),
      ],
      [`print-disabled gui/${uid}`]: fixture('launchctl print-disabled enabled'),
      [`bootstrap gui/${uid} ${plist}`]: { exitCode: 0 },
      [`kickstart ${TARGET(uid)}`]: { exitCode: 0 },
    });
    const restarter = new Restarter(SETTINGS, h.environment({ uid }), undefined, virtual);
    expect(restarter.plan(health).plan?.argv).toEqual([launchctl.path, 'kickstart', '-k', TARGET(uid)]);
    const executed = await restarter.execute(health);
    expect(launchctl.lines()).toEqual([
      `launchctl print ${TARGET(uid)}`,
      `launchctl print-disabled gui/${uid}`,
      `launchctl bootstrap gui/${uid} ${plist}`,
      `launchctl kickstart ${TARGET(uid)}`,
      `launchctl print ${TARGET(uid)}`,
      `launchctl print ${TARGET(uid)}`,
    ]);
    expect(executed.outcome).toBe('done');
    expect(executed.service?.health).toBe('running');
    expect(slept).toBe(500);
    // What the watchdog stores: one result with every step's output.
    expect(executed.result?.stdout.split('\n').filter((l) => l.startsWith('$ '))).toHaveLength(6);
  });

  it('a wedged launchctl is stopped at the restart timeout, and the restart fails saying so', async () => {
    h.file(join(h.home, 'Library', 'LaunchAgents', `${LABEL}.plist`), '<plist/>');
    fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET(501)}`]: fixture('launchctl print parked'),
      [`kickstart -k ${TARGET(501)}`]: { hangSec: 30 },
    });
    const restarter = new Restarter(
      // Enough for the inspecting `print` on a loaded machine; the hung kickstart exhausts the rest.
      { ...SETTINGS, restartTimeoutMs: 3000 },
      h.environment({ uid: 501 }),
      undefined,
      virtual,
    );
    const executed = await restarter.execute(health);
    expect(executed.outcome).toBe('failed');
    expect(executed.message).toMatch(
      /^`kickstart -k gui\/501\/ai\.openclaw\.gateway` still running after \d+\.\d s: stopped it \(timeout\)$/,
    );
    expect(executed.result?.timedOut).toBe(true);
  });

  it('no plan at all: failed with the problem, nothing run', async () => {
    const restarter = new Restarter(SETTINGS, h.environment({ platform: 'linux' }), undefined, virtual);
    const executed = await restarter.execute(manual);
    expect(executed).toEqual({
      plan: null,
      outcome: 'failed',
      message: 'no openclaw CLI and no systemctl on PATH: set watchdog.restartCommand',
      result: null,
      durationMs: 0,
      pending: null,
      steps: [],
      service: null,
    });
  });

  it('an external supervisor holds every restart without restartCommand: verify says why, execute runs nothing', async () => {
    const plist = h.file(join(h.home, 'Library', 'LaunchAgents', `${LABEL}.plist`), '<plist/>');
    const openclaw = fakeExecutable(h.bin, 'openclaw', {});
    fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET(501)}`]: { stdout: fixture('launchctl print running').stdout.replaceAll('/Users/ada', h.home) },
    });
    fakeExecutable(h.bin, 'plutil', {
      [`-extract EnvironmentVariables json -o - ${plist}`]: {
        stdout: ownerFixture('plutil-environment-external.json'),
      },
    });
    const restarter = new Restarter({ ...SETTINGS, gatewayPort: 18789 }, h.environment(), undefined, virtual);
    const verified = await restarter.verify(true);
    expect(verified.runnable).toBe(false);
    expect(verified.owner).toMatchObject({ owner: 'external-supervisor', supervisor: `LaunchAgent ${LABEL}` });
    expect(verified.problem).toContain('the gateway runs under an external supervisor');
    const executed = await restarter.execute(manual);
    expect(executed.outcome).toBe('failed');
    expect(executed.message).toContain('not restarting: the gateway runs under an external supervisor');
    expect(openclaw.calls()).toEqual([]);

    // With a restartCommand the user says how to go through the supervisor: allowed.
    const own = new Restarter(
      { ...SETTINGS, gatewayPort: 18789, restartCommand: [openclaw.path, 'gateway', 'restart'] },
      h.environment(),
      undefined,
      virtual,
    );
    expect((await own.verify(true)).ownerBlock).toBeNull();
  });

  it('verify answers for the configured strategy without restarting anything', async () => {
    const systemctl = fakeExecutable(h.bin, 'systemctl', {
      '--user show openclaw-gateway.service --property=LoadState,LoadError,ActiveState,SubState,Result,MainPID,NRestarts,ExecMainStatus,UnitFileState,FragmentPath':
        fixture('systemctl show not found'),
    });
    const restarter = new Restarter(SETTINGS, h.environment({ platform: 'linux' }), undefined, virtual);
    const verification = await restarter.verify();
    expect(verification).toMatchObject({ runnable: false, strategy: 'systemd', program: systemctl.path });
    expect(verification.problem).toContain('not installed as a systemd user unit');
    expect(systemctl.lines()).toHaveLength(1);

    const own = new Restarter(
      { ...SETTINGS, restartCommand: [process.execPath, '-e', 'process.exit(0)'] },
      h.environment({ platform: 'linux' }),
      undefined,
      virtual,
    );
    expect(await own.verify()).toMatchObject({ runnable: true, strategy: 'command', program: process.execPath });
  });
});
