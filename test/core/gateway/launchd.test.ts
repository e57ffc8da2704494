/**
 * Restarting the gateway's LaunchAgent without the openclaw CLI: launchctl is
 * a fake on PATH answering with recorded output formats; every command and
 * its order is asserted, and a restart counts only when launchd shows the
 * gateway running afterwards.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chooseRestart, executeRestart, type RestartPlan } from '../../../main/core/gateway/control.js';
import { type FakeAnswer, fakeExecutable } from './fake-executable.js';
import { ownerFixture } from './owner-fixtures.js';
import { fixture } from './service-fixtures.js';
import { type Harness, harness } from './strategy-harness.js';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.cleanup());

const LABEL = 'ai.openclaw.gateway';
const TARGET = `gui/501/${LABEL}`;

/** A recorded answer whose paths point into this test's home. */
function at(name: string): FakeAnswer {
  const answer = fixture(name);
  return { ...answer, stdout: answer.stdout.replaceAll('/Users/ada', h.home) };
}

function plist(): string {
  return h.file(join(h.home, 'Library', 'LaunchAgents', `${LABEL}.plist`), '<?xml version="1.0"?>\n<plist/>\n');
}

function plan(): RestartPlan {
  const { plan } = chooseRestart({ restartCommand: null, flavour: 'force', waitSec: 30 }, h.environment());
  if (!plan) throw new Error('expected a launchd plan');
  return plan;
}

describe('launchd strategy', () => {
  it('is chosen on macOS without the CLI, with the launchctl found on PATH', () => {
    const launchctl = fakeExecutable(h.bin, 'launchctl', {});
    expect(plan()).toEqual({
      strategy: 'launchd',
      argv: [launchctl.path, 'kickstart', '-k', TARGET],
      description: `launchctl kickstart -k ${LABEL}`,
    });
  });

  it('unloaded LaunchAgent with its plist: bootstrap, kickstart, then verify it runs', async () => {
    const path = plist();
    const launchctl = fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: [at('launchctl print not loaded'), at('launchctl print running')],
      'print-disabled gui/501': at('launchctl print-disabled enabled'),
      [`bootstrap gui/501 ${path}`]: { exitCode: 0 },
      [`kickstart ${TARGET}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(h.environment()));
    expect(launchctl.lines()).toEqual([
      `launchctl print ${TARGET}`,
      'launchctl print-disabled gui/501',
      `launchctl bootstrap gui/501 ${path}`,
      `launchctl kickstart ${TARGET}`,
      `launchctl print ${TARGET}`,
    ]);
    expect(attempt.outcome).toBe('done');
    expect(attempt.message).toBe(`LaunchAgent ${LABEL}: it was not loaded: bootstrapped it again; running (pid 48213)`);
    expect(attempt.service).toMatchObject({ health: 'running', loaded: true, pid: 48213, fileExists: true });
    expect(attempt.steps.map((s) => s.argv.slice(1, 2)[0])).toEqual([
      'print',
      'print-disabled',
      'bootstrap',
      'kickstart',
      'print',
    ]);
    // The history transcript shows every command and what it said.
    expect(attempt.result?.stdout).toContain(`$ ${launchctl.path} bootstrap gui/501 ${path}`);
    expect(attempt.result?.stdout).toContain('Could not find service "ai.openclaw.gateway"');
    expect(attempt.result?.exitCode).toBe(0);
  });

  it('parked respawn (loaded, not running): kickstart -k re-arms it', async () => {
    plist();
    const launchctl = fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: [at('launchctl print parked'), at('launchctl print running')],
      [`kickstart -k ${TARGET}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(h.environment()));
    expect(launchctl.lines()).toEqual([
      `launchctl print ${TARGET}`,
      `launchctl kickstart -k ${TARGET}`,
      `launchctl print ${TARGET}`,
    ]);
    expect(attempt.outcome).toBe('done');
    expect(attempt.message).toBe(
      `LaunchAgent ${LABEL}: launchd had stopped respawning it (not running, last exit code = 1): kickstarted it; running (pid 48213)`,
    );
  });

  it('unloaded between the read and the kickstart: loaded again, then started', async () => {
    const path = plist();
    const launchctl = fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: [
        at('launchctl print running'),
        at('launchctl print not loaded'),
        at('launchctl print running after kickstart'),
      ],
      [`kickstart -k ${TARGET}`]: at('launchctl kickstart not loaded'),
      'print-disabled gui/501': at('launchctl print-disabled enabled'),
      [`bootstrap gui/501 ${path}`]: { exitCode: 0 },
      [`kickstart ${TARGET}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(h.environment()));
    expect(launchctl.lines()).toEqual([
      `launchctl print ${TARGET}`,
      `launchctl kickstart -k ${TARGET}`,
      `launchctl print ${TARGET}`,
      'launchctl print-disabled gui/501',
      `launchctl bootstrap gui/501 ${path}`,
      `launchctl kickstart ${TARGET}`,
      `launchctl print ${TARGET}`,
    ]);
    expect(attempt.outcome).toBe('done');
    expect(attempt.message).toBe(
      `LaunchAgent ${LABEL}: it was not loaded: bootstrapped it again; running (pid 48213 → 51877)`,
    );
  });

  it('throttled respawn (spawn scheduled) is kickstarted too, and the pid change is reported', async () => {
    plist();
    fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: [at('launchctl print spawn scheduled'), at('launchctl print running')],
      [`kickstart -k ${TARGET}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(h.environment()));
    expect(attempt.outcome).toBe('done');
    expect(attempt.message).toContain(
      'launchd was throttling its respawn (spawn scheduled, last exit code = 78: EX_CONFIG)',
    );
  });

  it('a running gateway: kickstart -k, and the new pid is read back', async () => {
    plist();
    fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: [at('launchctl print running'), at('launchctl print running after kickstart')],
      [`kickstart -k ${TARGET}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(h.environment()));
    expect(attempt.outcome).toBe('done');
    expect(attempt.message).toBe(`LaunchAgent ${LABEL}: kickstarted it; running (pid 48213 → 51877)`);
  });

  it('waits (virtual time) while launchd brings the job up, then reports it running', async () => {
    plist();
    const launchctl = fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: [
        at('launchctl print parked'),
        at('launchctl print spawn scheduled'),
        at('launchctl print running'),
      ],
      [`kickstart -k ${TARGET}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(h.environment()));
    expect(attempt.outcome).toBe('done');
    expect(launchctl.lines().filter((l) => l.startsWith('launchctl print'))).toHaveLength(3);
    expect(h.slept()).toBe(500);
  });

  it('kickstart ran but launchd never shows it running: failed, with what launchd says', async () => {
    plist();
    fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: at('launchctl print spawn scheduled'),
      [`kickstart -k ${TARGET}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(h.environment(), { settleMs: 2000 }));
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toContain('but launchd does not show it running');
    expect(attempt.message).toContain('state = spawn scheduled, last exit code = 78: EX_CONFIG, 54 runs');
    expect(attempt.service?.health).toBe('respawn_pending');
    // Bounded: one read, then one every 500 ms of the 2 s settle time.
    expect(h.slept()).toBe(1500);
  });

  it('a step whose turn comes after the restart budget is spent is not started', async () => {
    plist();
    const launchctl = fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: at('launchctl print parked'),
      [`kickstart -k ${TARGET}`]: { exitCode: 0 },
    });
    // Every look at the clock finds 20 s more gone: the 60 s budget runs out after the kickstart.
    let t = 0;
    const attempt = await executeRestart(plan(), h.context(h.environment(), { now: () => (t += 20_000) }));
    expect(launchctl.lines()).toEqual([`launchctl print ${TARGET}`, `launchctl kickstart -k ${TARGET}`]);
    expect(attempt.steps).toHaveLength(3);
    expect(attempt.steps[2]?.result.spawnError).toBe("the restart's 60.0 s were used up before it could run");
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toContain('but launchd does not show it running');
  });

  it('not installed (not loaded, no plist): nothing is run, and the problem says what is missing', async () => {
    const launchctl = fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: at('launchctl print not loaded'),
    });
    const attempt = await executeRestart(plan(), h.context(h.environment()));
    expect(launchctl.lines()).toEqual([`launchctl print ${TARGET}`]);
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toBe(
      `launchctl kickstart -k ${LABEL}: the gateway is not installed as a LaunchAgent here: ${LABEL} is not loaded and ~/Library/LaunchAgents/${LABEL}.plist does not exist; install it with \`openclaw gateway install\`, or set watchdog.restartCommand to how you run the gateway`,
    );
  });

  it('a LaunchAgent OpenClaw parked with exit 78 is never kickstarted: the restart fails saying why', async () => {
    plist();
    const launchctl = fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: {
        stdout: ownerFixture('launchctl-print-stopped-itself.txt').replaceAll('/Users/ada', h.home),
      },
    });
    const attempt = await executeRestart(plan(), h.context(h.environment()));
    expect(launchctl.lines()).toEqual([`launchctl print ${TARGET}`]);
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toContain(
      'OpenClaw stopped itself: its database schema is newer than this gateway (exit 78); upgrade OpenClaw',
    );
    expect(attempt.message).toContain('last exit code = 78: EX_CONFIG');
  });

  it('a disabled LaunchAgent is left alone', async () => {
    plist();
    const launchctl = fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: at('launchctl print not loaded'),
      'print-disabled gui/501': at('launchctl print-disabled disabled'),
    });
    const attempt = await executeRestart(plan(), h.context(h.environment()));
    expect(launchctl.lines()).toEqual([`launchctl print ${TARGET}`, 'launchctl print-disabled gui/501']);
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toContain('is disabled: someone stopped it on purpose');
    expect(attempt.service?.health).toBe('disabled');
  });

  it('bootstrap refused: failed with launchctl’s words and a hint', async () => {
    const path = plist();
    fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: at('launchctl print not loaded'),
      'print-disabled gui/501': at('launchctl print-disabled enabled'),
      [`bootstrap gui/501 ${path}`]: at('launchctl bootstrap io error'),
    });
    const attempt = await executeRestart(plan(), h.context(h.environment()));
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toBe(
      `LaunchAgent ${LABEL} was not loaded and \`launchctl bootstrap gui/501 ~/Library/LaunchAgents/${LABEL}.plist\` failed with exit code 5: Bootstrap failed: 5: Input/output error Try re-running the command as root for richer errors. (launchd refuses a plist it cannot load: check it with \`plutil -lint\`, and that the job is not disabled)`,
    );
    expect(attempt.result?.exitCode).toBe(5);
  });

  it('no GUI session: launchctl print fails without a verdict, and nothing is acted on', async () => {
    plist();
    const launchctl = fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: at('launchctl print no gui domain'),
    });
    const attempt = await executeRestart(plan(), h.context(h.environment()));
    expect(launchctl.lines()).toEqual([`launchctl print ${TARGET}`]);
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toContain('Could not find domain for user gui: 501: there is no GUI session for this user');
    expect(attempt.service?.health).toBe('unknown');
  });

  it('a named profile addresses ai.openclaw.<profile>; "default" is the default gateway', () => {
    fakeExecutable(h.bin, 'launchctl', {});
    const named = chooseRestart(
      { restartCommand: null, flavour: 'plain', waitSec: 1 },
      h.environment({ profile: 'work' }),
    ).plan;
    expect(named?.argv.at(-1)).toBe('gui/501/ai.openclaw.work');
    const byDefault = chooseRestart(
      { restartCommand: null, flavour: 'plain', waitSec: 1 },
      h.environment({ profile: 'Default' }),
    ).plan;
    expect(byDefault?.argv.at(-1)).toBe(TARGET);
    const custom = chooseRestart(
      { restartCommand: null, flavour: 'plain', waitSec: 1 },
      h.environment({ env: { PATH: h.bin, OPENCLAW_LAUNCHD_LABEL: 'com.example.gw' } }),
    ).plan;
    expect(custom?.argv.at(-1)).toBe('gui/501/com.example.gw');
  });
});
