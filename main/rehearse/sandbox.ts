/**
 * The sandbox a rehearsal runs in, so that nothing of the machine's own OpenClaw is read or touched: a
 * temporary directory holding the simulated OpenClaw state (agent records, gateway logs, cooldowns) and
 * BreakerBar's data, the simulated gateway on loopback, the control endpoint its restart command calls,
 * and the environment (PATH, HOME, faked programs) a scenario gives the core.
 */
import { accessSync, appendFileSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Environment } from '../core/config/index.js';
import { gatewayLogPath } from '../simulator/gateway-log-lines.js';
import { writeOpenClawCooldowns } from '../simulator/openclaw-cooldown-writer.js';
import {
  type SimulatedGateway,
  type SimulatedGatewayOptions,
  startSimulatedGateway,
} from '../simulator/simulated-gateway.js';
import { type FakeTools, writeFakeLaunchctl, writeFakeOpenclaw } from './fake-tools.js';
import type { RehearsalClock } from './rehearsal-clock.js';
import type { Scenario } from './scenario.js';

/**
 * A control endpoint the restart command (or a faked program) calls: restarts the simulation in every state,
 * even while it refuses; `?afterMs=N`: N wall milliseconds later (a restart the gateway performs once its
 * work has drained), on a timer kept in `later` so that the run's end clears it.
 */
async function startRestartHook(
  gateway: SimulatedGateway,
  later: NodeJS.Timeout[],
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const afterMs = Number(url.searchParams.get('afterMs') ?? '0');
    if (
      req.method !== 'POST' ||
      url.pathname !== '/restart' ||
      req.headers.origin !== undefined ||
      !(afterMs >= 0 && Number.isFinite(afterMs))
    ) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(202, { 'content-type': 'application/json', connection: 'close' }).end('{"ok":true}');
    res.once('finish', () => {
      if (afterMs > 0) later.push(setTimeout(() => void gateway.restart(), afterMs));
      else setImmediate(() => void gateway.restart());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/restart` };
}

/** Where an executable is on PATH, or null. */
function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * The restart command: curl when there is one (it starts in milliseconds, which matters when
 * time is compressed 100-fold), else Node's fetch (a few hundred ms to start).
 */
export function restartCommandFor(url: string): string[] {
  const curl = process.platform === 'win32' ? null : onPath('curl');
  if (curl) return [curl, '-fsS', '-X', 'POST', '--max-time', '10', url];
  return [
    process.execPath,
    '-e',
    `fetch(${JSON.stringify(url)},{method:'POST'}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))`,
  ];
}

/** PATH and HOME for a `bare` scenario: empty directories, so no CLI, service manager or unit is found. */
function bareEnvironment(root: string): Environment {
  const path = join(root, 'bare', 'bin');
  const home = join(root, 'bare', 'home');
  mkdirSync(path, { recursive: true });
  mkdirSync(home, { recursive: true });
  return { env: { PATH: path, HOME: home }, home, platform: process.platform };
}

/** The gateway's LaunchAgent label for the default profile (the fake launchctl knows only this job). */
const LAUNCHD_LABEL = 'ai.openclaw.gateway';

/**
 * The environment of a scenario that fakes the programs the restart strategies run (see fake-tools.ts):
 * PATH is the fakes' directory only, HOME an empty one (with the LaunchAgent's plist for `launchd`, whose
 * platform is darwin).
 */
function fakedEnvironment(
  root: string,
  kind: 'openclaw-cli' | 'launchd',
  restartUrl: string,
  deferredRestartMs: number,
): { environment: Environment; tools: FakeTools } {
  const { env, home } = bareEnvironment(root);
  if (kind === 'openclaw-cli') {
    const tools = writeFakeOpenclaw(root, restartUrl, deferredRestartMs);
    return { environment: { env: { ...env, PATH: tools.bin }, home, platform: process.platform }, tools };
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  if (uid === null) throw new Error("environment 'launchd' needs a user id (gui/<uid>), which this platform has not");
  const agents = join(home, 'Library', 'LaunchAgents');
  mkdirSync(agents, { recursive: true });
  const plist = join(agents, `${LAUNCHD_LABEL}.plist`);
  writeFileSync(plist, launchAgentPlist(LAUNCHD_LABEL));
  const tools = writeFakeLaunchctl(root, restartUrl, `gui/${uid}/${LAUNCHD_LABEL}`, plist);
  return { environment: { env: { ...env, PATH: tools.bin }, home, platform: 'darwin' }, tools };
}

/** A LaunchAgent plist like the one `openclaw gateway install` writes (only its presence matters here). */
function launchAgentPlist(label: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>${label}</string>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><true/>
</dict>
</plist>
`;
}

export class Sandbox {
  /** The environment the core runs in (undefined: this process's own). */
  environment: Environment | undefined;
  /** The faked programs, when the scenario's environment has them. */
  tools: FakeTools | null = null;
  /** BreakerBar's restart command: a call of the restart hook. */
  readonly restartCommand: string[];

  private constructor(
    /** The temporary directory everything is in. */
    readonly root: string,
    /** The simulated OpenClaw state directory. */
    readonly openclawDir: string,
    /** Where the simulated gateway's logs are written. */
    readonly logDir: string,
    readonly gateway: SimulatedGateway,
    /** The simulated gateway's options: it reads its restart time from them at each restart (a phase changes it). */
    readonly gatewayOptions: SimulatedGatewayOptions,
    private readonly hook: { server: Server; url: string },
  ) {
    this.restartCommand = restartCommandFor(hook.url);
  }

  /**
   * The temporary directories, then the simulated gateway (on the rehearsal's wall clock) and its restart hook,
   * whose deferred restarts are kept in `timers`.
   */
  static async open(scenario: Scenario, clock: RehearsalClock, timers: NodeJS.Timeout[]): Promise<Sandbox> {
    const root = mkdtempSync(join(tmpdir(), 'breakerbar-rehearse-'));
    const openclawDir = join(root, 'openclaw');
    const logDir = join(root, 'gateway-logs');
    mkdirSync(join(openclawDir, 'agents'), { recursive: true });
    mkdirSync(logDir, { recursive: true });
    // A phase at second 0 sets the gateway's state before BreakerBar starts: its first probe already meets it.
    const initialState = scenario.phases.find((p) => p.atSec === 0 && p.gateway)?.gateway ?? 'up';
    const gatewayOptions: SimulatedGatewayOptions = {
      restartMs: clock.toWallMs(scenario.restartSec ?? 5),
      refuseMs: 50,
      state: initialState,
      clock: clock.wallNow,
    };
    const gateway = await startSimulatedGateway(gatewayOptions);
    const hook = await startRestartHook(gateway, timers);
    return new Sandbox(root, openclawDir, logDir, gateway, gatewayOptions, hook);
  }

  /** The scenario's environment (`bare`, or faked programs) and its `cooldowns`, written before the core starts. */
  prepare(scenario: Scenario, clock: RehearsalClock): void {
    if (scenario.environment === 'bare') this.environment = bareEnvironment(this.root);
    if (scenario.environment === 'openclaw-cli' || scenario.environment === 'launchd') {
      const deferredRestartMs = clock.toWallMs(scenario.deferredRestartSec ?? 30);
      const faked = fakedEnvironment(this.root, scenario.environment, this.hook.url, deferredRestartMs);
      this.environment = faked.environment;
      this.tools = faked.tools;
    }
    if (scenario.cooldowns && scenario.cooldowns.length > 0) {
      // Written before BreakerBar starts, on the wall clock OpenClaw stores: its first check already knows them.
      const start = clock.wallNow();
      writeOpenClawCooldowns(
        this.openclawDir,
        scenario.cooldowns.map((c) => ({
          dep: c.dep,
          reason: c.reason,
          until: start + Math.round(clock.toWallMs(c.untilSec)),
        })),
        start,
      );
    }
  }

  /** Lines the simulated gateway logs, into its log file of the day of `ts`. */
  appendGatewayLog(ts: number, lines: string[]): void {
    appendFileSync(gatewayLogPath(this.logDir, ts), `${lines.join('\n')}\n`);
  }

  /** Stops the simulated gateway and the restart hook. */
  async stop(): Promise<void> {
    await this.gateway.close();
    this.hook.server.closeAllConnections();
    await new Promise((resolve) => this.hook.server.close(resolve));
  }

  /** Removes the temporary directory, unless it is to be kept. */
  remove(keep: boolean): void {
    if (!keep) rmSync(this.root, { recursive: true, force: true });
  }
}
