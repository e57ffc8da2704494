/**
 * The rehearsal's stand-ins speak as the real programs do, as BreakerBar's own
 * parsers read them: the fake `openclaw` answers a safe restart `deferred`
 * and asks for the gateway's restart later; the fake `launchctl` is a job that
 * is unloaded, bootstrapped and kickstarted; and the cooldown state the
 * rehearsal writes is read by the core's cooldown reader as OpenClaw's.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCliJson, pendingFromJson } from '../../main/core/gateway/strategies/openclaw-cli.js';
import { OpenClawCooldowns } from '../../main/core/openclaw/cooldowns.js';
import { silentLogger } from '../../main/core/runtime/log.js';
import { readLaunchctlPrint } from '../../main/core/service-managers/launchctl-print.js';
import { readFakeCalls, setLaunchdJob, writeFakeLaunchctl, writeFakeOpenclaw } from '../../main/rehearse/fake-tools.js';
import { writeOpenClawCooldowns } from '../../main/simulator/openclaw-cooldown-writer.js';

let root: string;
let server: Server;
let url: string;
const hits: string[] = [];

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'breakerbar-fakes-'));
  hits.length = 0;
  server = createServer((req, res) => {
    req.resume();
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(202, { connection: 'close' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/restart`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

/** Runs a fake with PATH its own directory only, as the rehearsal's environment does (async: the hook answers meanwhile). */
function run(bin: string, program: string, args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(join(bin, program), args, { env: { PATH: bin } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('fake openclaw', () => {
  it('answers a safe restart deferred, as the CLI strategy reads it, and asks for the restart later', async () => {
    const tools = writeFakeOpenclaw(root, url, 1234);
    const out = await run(tools.bin, 'openclaw', ['gateway', 'restart', '--json', '--safe']);
    expect(out.code).toBe(0);
    const json = parseCliJson(out.stdout);
    expect(json).not.toBeNull();
    expect(pendingFromJson(json ?? {})).toMatchObject({ kind: 'deferred', delayMs: 0 });
    expect(hits).toEqual(['POST /restart?afterMs=1234']);
    expect(readFakeCalls(tools)).toEqual([{ program: 'openclaw', args: ['gateway', 'restart', '--json', '--safe'] }]);
  });

  it('fails any other command', async () => {
    const tools = writeFakeOpenclaw(root, url, 0);
    const out = await run(tools.bin, 'openclaw', ['gateway', 'status']);
    expect(out.code).toBe(1);
    expect(hits).toEqual([]);
  });
});

describe('fake launchctl', () => {
  it('is loaded, then not found once unloaded, until bootstrapped; kickstart restarts the gateway', async () => {
    const target = 'gui/501/ai.openclaw.gateway';
    const tools = writeFakeLaunchctl(root, url, target, '/Users/ada/Library/LaunchAgents/ai.openclaw.gateway.plist');
    const print = async () => {
      const out = await run(tools.bin, 'launchctl', ['print', target]);
      return readLaunchctlPrint(out.code, out.stdout, out.stderr);
    };
    expect(await print()).toMatchObject({ kind: 'loaded', job: { pid: 48213, state: 'running' } });
    setLaunchdJob(tools, 'unloaded');
    expect(await print()).toMatchObject({ kind: 'not_loaded' });
    // Not loaded: kickstart cannot find it.
    expect((await run(tools.bin, 'launchctl', ['kickstart', target])).code).toBe(113);
    expect(hits).toEqual([]);
    const boot = await run(tools.bin, 'launchctl', [
      'bootstrap',
      'gui/501',
      '/Users/ada/Library/LaunchAgents/ai.openclaw.gateway.plist',
    ]);
    expect(boot.code).toBe(0);
    expect(await print()).toMatchObject({ kind: 'loaded' });
    expect((await run(tools.bin, 'launchctl', ['kickstart', target])).code).toBe(0);
    expect(hits).toEqual(['POST /restart']);
    expect(readFakeCalls(tools).map((c) => c.args[0])).toEqual([
      'print',
      'print',
      'kickstart',
      'bootstrap',
      'print',
      'kickstart',
    ]);
  });
});

describe('OpenClaw cooldown state', () => {
  it("is read by the core's reader as OpenClaw's own cooldown of the model", () => {
    const now = Date.now();
    writeOpenClawCooldowns(root, [{ dep: 'zhipu/glm-5.1', reason: 'rate_limit', until: now + 60_000 }], now);
    const reader = new OpenClawCooldowns({ stateDir: root, log: silentLogger, clock: () => now });
    reader.poll();
    expect(reader.cooldownUntil('zhipu/glm-5.1', now)).toBe(now + 60_000);
    // Model-scoped: another model of the provider is not held, and the window ends when it says.
    expect(reader.cooldownUntil('zhipu/glm-4.7', now)).toBeNull();
    expect(reader.cooldownUntil('zhipu/glm-5.1', now + 60_000)).toBeNull();
  });
});
