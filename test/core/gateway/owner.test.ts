/**
 * Who owns the gateway, and what that allows: facts gathered through fake lsof, ps, ss, plutil, launchctl and
 * systemctl answering with the outputs in test/fixtures/gateway-owner (and service-managers), /proc read from
 * the same fixtures; then the pure decision and restart rule over them.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideOwner } from '../../../main/core/gateway/owner/decide-owner.js';
import { gatewayPort, gatherOwnerFacts } from '../../../main/core/gateway/owner/gather.js';
import { parseLsofListen, parseSystemdEnvironment } from '../../../main/core/gateway/owner/process-output.js';
import { ownerRestartBlock } from '../../../main/core/gateway/owner/restart-rule.js';
import type { GatewayOwnership, OwnerFacts } from '../../../main/core/gateway/owner/types.js';
import { runCommand } from '../../../main/core/gateway/run-command.js';
import type { StrategyEnvironment } from '../../../main/core/gateway/strategies/types.js';
import { type FakeAnswer, fakeExecutable } from './fake-executable.js';
import { ownerFixture } from './owner-fixtures.js';
import { fixture } from './service-fixtures.js';
import { type Harness, harness } from './strategy-harness.js';

let h: Harness;
beforeEach(() => {
  h = harness('breakerbar-owner-');
});
afterEach(() => h.cleanup());

const PORT = 18789;
const LABEL = 'ai.openclaw.gateway';
const TARGET = `gui/501/${LABEL}`;
const UNIT = 'openclaw-gateway.service';
const SHOW = `--user show ${UNIT} --property=LoadState,LoadError,ActiveState,SubState,Result,MainPID,NRestarts,ExecMainStatus,UnitFileState,FragmentPath`;
const LSOF = `-nP -iTCP:${PORT} -sTCP:LISTEN -Fpc`;

const out = (name: string, exitCode = 0): FakeAnswer => ({ stdout: ownerFixture(name), exitCode });
/** A service-managers fixture whose paths point into this test's home. */
const at = (name: string): FakeAnswer => {
  const answer = fixture(name);
  return { ...answer, stdout: answer.stdout.replaceAll('/Users/ada', h.home).replaceAll('/home/ada', h.home) };
};

function plist(): string {
  return h.file(join(h.home, 'Library', 'LaunchAgents', `${LABEL}.plist`), '<?xml version="1.0"?>\n<plist/>\n');
}

function unitFile(): string {
  return h.file(join(h.home, '.config', 'systemd', 'user', UNIT), '[Service]\n');
}

/** /proc as the fixtures give it: `files` maps a /proc path to a fixture name. */
function proc(files: Record<string, string>): (path: string) => string | null {
  return (path) => (files[path] === undefined ? null : ownerFixture(files[path]));
}

async function gather(
  environment: StrategyEnvironment,
  extra: { readFile?: (path: string) => string | null; answering?: boolean | null } = {},
): Promise<OwnerFacts> {
  return gatherOwnerFacts(
    { port: PORT, answering: extra.answering ?? null },
    { environment, run: runCommand, readFile: extra.readFile ?? (() => null) },
  );
}

describe('launchd (macOS)', () => {
  it('the LaunchAgent runs the process listening on the port: launchd, and restarts are allowed', async () => {
    const path = plist();
    fakeExecutable(h.bin, 'launchctl', { [`print ${TARGET}`]: at('launchctl print running') });
    fakeExecutable(h.bin, 'lsof', { [LSOF]: out('lsof-listen-launchd.txt') });
    fakeExecutable(h.bin, 'ps', {
      '-ww -o ppid=,args= -p 48213': out('ps-args-launchd.txt'),
      '-o comm= -p 1': out('ps-comm-launchd.txt'),
    });
    fakeExecutable(h.bin, 'plutil', {
      [`-extract EnvironmentVariables json -o - ${path}`]: out('plutil-environment-plain.json'),
    });
    const facts = await gather(h.environment());
    expect(facts.listener).toEqual({
      pid: 48213,
      command: 'node',
      args: '/opt/homebrew/opt/node@24/bin/node /opt/homebrew/lib/node_modules/openclaw/openclaw.mjs gateway --port 18789',
      parent: { pid: 1, name: 'launchd' },
      environment: null,
    });
    const owner = decideOwner(facts);
    expect(owner).toMatchObject({ owner: 'launchd', name: `LaunchAgent ${LABEL}`, stoppedItself: false });
    expect(owner.evidence.join('\n')).toContain('pid 48213');
    expect(ownerRestartBlock(owner, false)).toBeNull();
  });

  it('exit 78 and not running: OpenClaw stopped itself; never restarted, even with a restartCommand', async () => {
    plist();
    fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: {
        stdout: ownerFixture('launchctl-print-stopped-itself.txt').replaceAll('/Users/ada', h.home),
      },
    });
    fakeExecutable(h.bin, 'lsof', { [LSOF]: { exitCode: 1 } });
    const owner = decideOwner(await gather(h.environment()));
    expect(owner).toMatchObject({ owner: 'launchd', stoppedItself: true });
    for (const restartCommand of [false, true]) {
      const block = ownerRestartBlock(owner, restartCommand);
      expect(block?.rule).toBe('stopped_itself');
      expect(block?.reason).toContain(
        'OpenClaw stopped itself: its database schema is newer than this gateway (exit 78); upgrade OpenClaw',
      );
    }
  });

  it('a throttled respawn after exit 78 (spawn scheduled) is launchd still at work, not parked', async () => {
    plist();
    fakeExecutable(h.bin, 'launchctl', { [`print ${TARGET}`]: at('launchctl print spawn scheduled') });
    const owner = decideOwner(await gather(h.environment()));
    expect(owner).toMatchObject({ owner: 'launchd', stoppedItself: false });
  });

  it('OPENCLAW_SUPERVISOR_MODE=external in the plist: an external supervisor; restarts only via restartCommand', async () => {
    const path = plist();
    fakeExecutable(h.bin, 'launchctl', { [`print ${TARGET}`]: at('launchctl print running') });
    fakeExecutable(h.bin, 'lsof', { [LSOF]: out('lsof-listen-launchd.txt') });
    fakeExecutable(h.bin, 'ps', {
      '-ww -o ppid=,args= -p 48213': out('ps-args-launchd.txt'),
      '-o comm= -p 1': out('ps-comm-launchd.txt'),
    });
    fakeExecutable(h.bin, 'plutil', {
      [`-extract EnvironmentVariables json -o - ${path}`]: out('plutil-environment-external.json'),
    });
    const owner = decideOwner(await gather(h.environment()));
    expect(owner).toMatchObject({
      owner: 'external-supervisor',
      supervisor: `LaunchAgent ${LABEL}`,
    });
    expect(owner.evidence[0]).toContain('declares OPENCLAW_SUPERVISOR_MODE=external');
    const block = ownerRestartBlock(owner, false);
    expect(block).toMatchObject({ rule: 'external_supervisor', who: `LaunchAgent ${LABEL}` });
    expect(block?.reason).toContain('BreakerBar alerts instead');
    expect(ownerRestartBlock(owner, true)).toBeNull();
  });
});

describe("the OpenClaw app's bundled gateway (macOS)", () => {
  it('the listener runs from inside OpenClaw.app/Contents/: app-bundled, no CLI restart', async () => {
    fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: fixture('launchctl print not loaded'),
      'print-disabled gui/501': fixture('launchctl print-disabled enabled'),
    });
    fakeExecutable(h.bin, 'lsof', { [LSOF]: out('lsof-listen-app-bundled.txt') });
    fakeExecutable(h.bin, 'ps', {
      '-ww -o ppid=,args= -p 5120': out('ps-args-app-bundled.txt'),
      '-o comm= -p 5098': out('ps-comm-app.txt'),
    });
    const owner = decideOwner(await gather(h.environment()));
    expect(owner).toMatchObject({ owner: 'app-bundled', name: "the OpenClaw app's bundled gateway" });
    expect(owner.evidence[0]).toContain('runs from inside OpenClaw.app/Contents/');
    expect(ownerRestartBlock(owner, false)?.rule).toBe('app_bundled');
    expect(ownerRestartBlock(owner, true)).toBeNull();
  });

  it('no listing possible, but the gateway answers with neither CLI nor LaunchAgent and the app installed', async () => {
    fakeExecutable(h.bin, 'launchctl', { [`print ${TARGET}`]: fixture('launchctl print not loaded') });
    // The harness's home holds ~/Applications: put the app there.
    h.file(join(h.home, 'Applications', 'OpenClaw.app', 'Contents', 'Info.plist'));
    const facts = await gather(h.environment(), { answering: true });
    expect(facts).toMatchObject({ listener: null, listenerLooked: false, cli: null });
    const owner = decideOwner(facts);
    expect(owner.owner).toBe('app-bundled');
    expect(owner.evidence.join('\n')).toContain('no openclaw CLI and no LaunchAgent');
  });

  it('once the app quits nothing listens: the owner seen last is kept, and still not restarted', async () => {
    fakeExecutable(h.bin, 'launchctl', { [`print ${TARGET}`]: fixture('launchctl print not loaded') });
    fakeExecutable(h.bin, 'lsof', { [LSOF]: { exitCode: 1 } });
    const before: GatewayOwnership = {
      owner: 'app-bundled',
      name: "the OpenClaw app's bundled gateway",
      pid: 5120,
      evidence: ['pid 5120 (...) listens on port 18789 and runs from inside OpenClaw.app/Contents/'],
      supervisor: null,
      stoppedItself: false,
    };
    const owner = decideOwner(await gather(h.environment()), before);
    expect(owner.owner).toBe('app-bundled');
    expect(owner.evidence).toEqual([`nothing listens on port ${PORT}`, `last seen: ${before.evidence[0]}`]);
    expect(ownerRestartBlock(owner, false)?.rule).toBe('app_bundled');
  });
});

describe('systemd (Linux)', () => {
  const linux = () => h.environment({ platform: 'linux' });

  it('ExecMainStatus=78, failed or inactive: OpenClaw stopped itself', async () => {
    unitFile();
    for (const show of [
      at('systemctl show failed exit 78'),
      { stdout: ownerFixture('systemctl-show-inactive-exit-78.txt').replaceAll('/home/ada', h.home) },
    ]) {
      fakeExecutable(h.bin, 'systemctl', {
        [SHOW]: show,
        [`--user show ${UNIT} --property=Environment`]: out('systemctl-show-environment-plain.txt'),
      });
      const owner = decideOwner(await gather(linux()));
      expect(owner).toMatchObject({ owner: 'systemd', name: `systemd user unit ${UNIT}`, stoppedItself: true });
      expect(ownerRestartBlock(owner, true)?.rule).toBe('stopped_itself');
    }
  });

  it("the unit's Environment= says external: an external supervisor", async () => {
    unitFile();
    fakeExecutable(h.bin, 'systemctl', {
      [SHOW]: at('systemctl show active'),
      [`--user show ${UNIT} --property=Environment`]: out('systemctl-show-environment-external.txt'),
    });
    fakeExecutable(h.bin, 'ss', { '-ltnpH': out('ss-listen-nothing.txt') });
    const owner = decideOwner(await gather(linux()));
    expect(owner).toMatchObject({ owner: 'external-supervisor', supervisor: `systemd user unit ${UNIT}` });
  });

  it('the process environment says external (/proc/<pid>/environ): the supervisor is its parent, named', async () => {
    fakeExecutable(h.bin, 'ss', { '-ltnpH': out('ss-listen-foreground.txt') });
    const readFile = proc({
      '/proc/4242/cmdline': 'proc-foreground-cmdline',
      '/proc/4242/stat': 'proc-supervised-stat',
      '/proc/4242/environ': 'proc-supervised-environ',
      '/proc/812/comm': 'proc-812-comm',
    });
    const owner = decideOwner(await gather(linux(), { readFile }));
    expect(owner).toMatchObject({ owner: 'external-supervisor', supervisor: 'supervisord (pid 812)' });
    expect(owner.evidence[0]).toBe(
      "the gateway process's environment (pid 4242) has OPENCLAW_SUPERVISOR_MODE=external",
    );
    expect(ownerRestartBlock(owner, false)?.reason).toContain('supervisord (pid 812)');
  });

  it('a process nobody supervises (openclaw gateway run from bash): foreground, restarts allowed', async () => {
    fakeExecutable(h.bin, 'ss', { '-ltnpH': out('ss-listen-foreground.txt') });
    const readFile = proc({
      '/proc/4242/cmdline': 'proc-foreground-cmdline',
      '/proc/4242/stat': 'proc-foreground-stat',
      '/proc/4242/environ': 'proc-foreground-environ',
      '/proc/3980/comm': 'proc-3980-comm',
    });
    const owner = decideOwner(await gather(linux(), { readFile }));
    expect(owner).toMatchObject({ owner: 'foreground', name: 'a process nobody supervises (pid 4242)' });
    expect(owner.evidence[0]).toBe(
      'pid 4242 (openclaw-gateway gateway run --port 18789) listens on port 18789; its parent: bash (pid 3980)',
    );
    expect(ownerRestartBlock(owner, false)).toBeNull();
  });

  it("another user's gateway listens (ss shows no process), no unit: unknown, and says why", async () => {
    fakeExecutable(h.bin, 'ss', { '-ltnpH': out('ss-listen-other-user.txt') });
    const owner = decideOwner(await gather(linux()));
    expect(owner.owner).toBe('unknown');
    expect(owner.evidence[0]).toBe(`who listens on port ${PORT} could not be seen`);
    expect(ownerRestartBlock(owner, false)).toBeNull();
  });

  it('an installed unit that is stopped owns the gateway when nothing listens', async () => {
    unitFile();
    fakeExecutable(h.bin, 'systemctl', {
      [SHOW]: at('systemctl show inactive'),
      [`--user show ${UNIT} --property=Environment`]: out('systemctl-show-environment-plain.txt'),
    });
    fakeExecutable(h.bin, 'ss', { '-ltnpH': out('ss-listen-nothing.txt') });
    const owner = decideOwner(await gather(linux()));
    expect(owner).toMatchObject({ owner: 'systemd', stoppedItself: false });
    expect(owner.evidence[1]).toBe(`nothing listens on port ${PORT}`);
  });
});

describe('reading the tools', () => {
  it("systemctl's Environment=: quoted entries keep their spaces", () => {
    expect(parseSystemdEnvironment(ownerFixture('systemctl-show-environment-external.txt'))).toEqual({
      HOME: '/home/ada',
      OPENCLAW_SERVICE_KIND: 'gateway',
      OPENCLAW_SERVICE_DESCRIPTION: 'OpenClaw Gateway',
      OPENCLAW_SUPERVISOR_MODE: 'external',
    });
    expect(parseSystemdEnvironment('Environment=\n')).toEqual({});
  });

  it('lsof -Fpc: the first process, its command', () => {
    expect(parseLsofListen(ownerFixture('lsof-listen-app-bundled.txt'))).toEqual({ pid: 5120, command: 'node' });
    expect(parseLsofListen('')).toBeNull();
  });
});

describe('gatewayPort', () => {
  it('reads the port of the gateway URL', () => {
    expect(gatewayPort('http://127.0.0.1:18789')).toBe(18789);
    expect(gatewayPort('http://localhost/')).toBe(80);
    expect(gatewayPort(null)).toBeNull();
    expect(gatewayPort('not a url')).toBeNull();
  });
});

describe('what is kept of an environment', () => {
  it("only OPENCLAW_SUPERVISOR_MODE: the gateway's tokens and keys are never held", async () => {
    fakeExecutable(h.bin, 'ss', { '-ltnpH': { stdout: ownerFixture('ss-listen-foreground.txt') } });
    const facts = await gatherOwnerFacts(
      { port: PORT },
      {
        environment: h.environment({ platform: 'linux' }),
        run: runCommand,
        readFile: (path) => (path === '/proc/4242/environ' ? ownerFixture('proc-supervised-environ') : null),
      },
    );
    expect(facts.listener?.environment).toEqual({ OPENCLAW_SUPERVISOR_MODE: 'external' });
  });
});
