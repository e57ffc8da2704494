/**
 * BreakerBar scraped by a real Prometheus server (Debian's `prometheus`), end to
 * end: the daemon as a child process following a transcript, a simulated OpenClaw
 * gateway with a restart command that restarts it, and Prometheus on loopback
 * scraping `/metrics` every second. A short storm is written — `server_error`
 * calls for one dependency, `rate_limited` calls for another — and Prometheus's
 * HTTP API, queried as Grafana or an alert rule would, must see the failing
 * dependency's breaker open (`breaker_state` 2), the rate-limited one throttled
 * (3), and the restart counter appear where an earlier scrape had none.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../main/core/calls/classify.js';
import { assistantMessage, sessionHeader } from '../../main/simulator/records.js';
import { type SimulatedGateway, startSimulatedGateway } from '../../main/simulator/simulated-gateway.js';
import { type PrometheusServer, type Sample, startPrometheus } from '../helpers/prometheus-server.js';
import { toolOrSkip } from '../helpers/tools.js';
import { until } from '../helpers/transcripts.js';

const CLI = fileURLToPath(new URL('../../dist/main/cli/index.js', import.meta.url));
const SESSION = '7f3c2a10-0000-4000-8000-00000000e2e8';
/** The dependency whose upstream fails with 5xx: its breaker must open. */
const OUTAGE_DEP = 'deepseek/deepseek-v4-pro';
/** The dependency under a 429 storm: its breaker throttles and the watchdog restarts the gateway. */
const STORM_DEP = 'zhipu/glm-5.1';
const HOST = 'e2e-mac-mini';
const JOB = 'breakerbar';
const PROMETHEUS = toolOrSkip('prometheus');

let root: string | undefined;
let gateway: SimulatedGateway | undefined;
let daemon: ChildProcess | undefined;
let daemonLog = '';
let prometheus: PrometheusServer | undefined;
let transcript: string;
let restartLog: string;
let entry = 0;

function write(outcome: Outcome, dep: string): void {
  const [provider, model] = dep.split('/') as [string, string];
  entry += 1;
  appendFileSync(
    transcript,
    `${assistantMessage({ id: `p${entry}`, parentId: null, ts: Date.now(), provider, model, outcome })}\n`,
  );
}

const restartsInLog = () => (existsSync(restartLog) ? readFileSync(restartLog, 'utf8').trim().split('\n').length : 0);

/** Both processes' recent logs, for every assertion message. */
function logs(): string {
  return [
    '--- prometheus stderr (tail) ---',
    prometheus?.log(2500) ?? '(not started)',
    '--- daemon stderr (tail) ---',
    daemonLog.slice(-2500),
  ].join('\n');
}

/**
 * Runs `expr` against Prometheus until `accept` holds for its result; fails after `timeoutMs`
 * with the query, the last result and both logs.
 */
async function eventually(
  expr: string,
  accept: (result: Sample[]) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<Sample[]> {
  let last: Sample[] | string = 'no answer yet';
  let accepted: Sample[] | undefined;
  await until(
    async () => {
      try {
        const result = await prometheus!.query(expr);
        if (accept(result)) accepted = result;
        last = result;
      } catch (error) {
        last = String(error);
      }
      return accepted !== undefined;
    },
    timeoutMs,
    async () =>
      `${what}\nquery: ${expr}\nlast result: ${JSON.stringify(last)}\n` +
      `--- scrape targets ---\n${await prometheus!.targets()}\n${logs()}`,
    QUERY_POLL_MS,
  );
  return accepted as Sample[];
}

/** Between PromQL queries: each one is evaluated by the server, and a scrape lands every second at best. */
const QUERY_POLL_MS = 100;

const single = (result: Sample[]) => (result.length === 1 ? result[0]!.value : Number.NaN);

beforeAll(async () => {
  if (PROMETHEUS.skip) return;
  root = mkdtempSync(join(tmpdir(), 'bb-prometheus-e2e-'));
  const stateDir = join(root, 'openclaw');
  const sessions = join(stateDir, 'agents', 'main', 'sessions');
  mkdirSync(sessions, { recursive: true });
  transcript = join(sessions, `${SESSION}.jsonl`);
  writeFileSync(transcript, `${sessionHeader(SESSION, Date.now())}\n`);

  gateway = await startSimulatedGateway({ restartMs: 500 });
  // The restart command: records the call, then restarts the simulated gateway as `openclaw gateway restart` would.
  restartLog = join(root, 'restarts.log');
  const script = join(root, 'restart-gateway.mjs');
  writeFileSync(
    script,
    `import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(restartLog)}, JSON.stringify({ at: Date.now() }) + '\\n');
const res = await fetch(${JSON.stringify(`${gateway.baseUrl}/__sim/restart`)}, { method: 'POST' });
process.exit(res.ok ? 0 : 1);
`,
  );
  const home = join(root, 'home');
  mkdirSync(home);
  const config = {
    gatewayUrl: gateway.baseUrl,
    gatewayMetrics: { enabled: false },
    ingest: { reconcileIntervalMs: 300 },
    health: { intervalSec: 1, connectTimeoutSec: 1, readTimeoutMinSec: 1, readTimeoutMaxSec: 2 },
    // A long cooldown: once open, the breaker stays open for the whole test.
    breakers: { consecutiveFailures: 3, cooldownMs: 600_000, maxOpenMs: 600_000 },
    watchdog: {
      // Storm restarts on (off by default): the storm restart is what this test follows.
      stormRestart: 'safe',
      checkIntervalSec: 1,
      windowSec: 2,
      threshold: 2,
      startupGraceSec: 20,
      restartSpacingSec: 1,
      restartCommand: [process.execPath, script],
      restartTimeoutSec: 10,
    },
    notifications: { desktop: false },
  };
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  // Port 0: the daemon picks a free port and writes its address to <home>/api-url, which then
  // goes into Prometheus's scrape config (no window in which another process can take the port).
  daemon = spawn(process.execPath, [CLI, 'daemon', '--port', '0'], {
    env: { ...process.env, BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: stateDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  daemon.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    daemonLog += chunk;
  });
  const apiUrlFile = join(home, 'api-url');
  await until(() => existsSync(apiUrlFile), 15_000, "the daemon's api-url");
  await until(() => daemonLog.includes('"class":"ok"'), 15_000, 'a first healthy gateway probe');
  const target = new URL(readFileSync(apiUrlFile, 'utf8').trim()).host;

  prometheus = await startPrometheus([{ job: JOB, targets: [target], labels: { host: HOST }, intervalSec: 1 }]);
}, 45_000);

afterAll(async () => {
  // Every process goes, whatever failed: one cleanup step failing must not skip the others.
  const steps: Array<() => Promise<unknown>> = [
    async () => prometheus?.stop(),
    async () => {
      if (daemon && daemon.pid !== undefined && daemon.exitCode === null && daemon.signalCode === null) {
        const exited = new Promise((resolve) => daemon!.once('exit', resolve));
        daemon.kill('SIGTERM');
        const killer = setTimeout(() => daemon!.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(killer);
      }
    },
    async () => gateway?.close(),
  ];
  for (const step of steps) await step().catch((error) => console.error('cleanup step failed:', error));
  if (root) rmSync(root, { recursive: true, force: true });
}, 20_000);

describe('BreakerBar scraped by a real Prometheus server', () => {
  it.skipIf(PROMETHEUS.skip)(
    PROMETHEUS.title("sees a breaker open, a breaker throttle and a storm restart through Prometheus's API"),
    async () => {
      const sel = `job="${JOB}",host="${HOST}"`;
      // Prometheus scrapes BreakerBar before anything happens: the target is up and no restart was counted.
      await eventually(`up{${sel}}`, (r) => single(r) === 1, 'the breakerbar target to be up');
      await eventually(`breakerbar_watchdog_paused{${sel}}`, (r) => single(r) === 0, 'a first scrape');
      const before = Date.now();
      expect(await prometheus!.query(`breakerbar_watchdog_restarts_total{${sel}}`), logs()).toEqual([]);
      expect(await prometheus!.query(`breaker_state{${sel},dep="${OUTAGE_DEP}"}`), logs()).toEqual([]);

      // The storm: an upstream outage on one dependency, a 429 storm on another.
      for (let i = 0; i < 4; i++) write('server_error', OUTAGE_DEP);
      const stormStart = Date.now();
      while (restartsInLog() === 0) {
        if (Date.now() - stormStart > 15_000) throw new Error(`no restart after 15 s of 429s\n${logs()}`);
        write('rate_limited', STORM_DEP);
        // fixed wait: paces the 429 storm; the loop ends on the first restart or its deadline.
        await new Promise((resolve) => setTimeout(resolve, 150));
      }

      const open = await eventually(
        `max_over_time(breaker_state{${sel},dep="${OUTAGE_DEP}"}[1m])`,
        (r) => single(r) === 2,
        `breaker_state{dep="${OUTAGE_DEP}"} to reach 2 (open)`,
      );
      expect(open).toHaveLength(1);
      await eventually(
        `max_over_time(breaker_state{${sel},dep="${STORM_DEP}"}[1m])`,
        (r) => single(r) === 3,
        `breaker_state{dep="${STORM_DEP}"} to reach 3 (throttled)`,
      );
      const restarts = await eventually(
        `breakerbar_watchdog_restarts_total{${sel}}`,
        (r) => r.reduce((sum, s) => sum + s.value, 0) >= 1,
        'the restart counter to count a restart',
      );
      expect(
        restarts.map((s) => ({ reason: s.metric.reason, result: s.metric.result, value: s.value })),
        logs(),
      ).toEqual([{ reason: 'storm', result: 'done', value: 1 }]);
      expect(restarts[0]!.metric).toMatchObject({ job: JOB, host: HOST });
      expect(gateway!.restarts, logs()).toBe(1);

      // The increase, as Prometheus stored it: evaluated at the moment before the storm the counter had
      // no sample (prom-client exports a labelled counter only once incremented), now it is at least 1.
      expect(await prometheus!.query(`sum(breakerbar_watchdog_restarts_total{${sel}})`, before), logs()).toEqual([]);
      const now = await prometheus!.query(`sum(breakerbar_watchdog_restarts_total{${sel}})`);
      expect(single(now), logs()).toBeGreaterThanOrEqual(1);
      // The breaker stayed open (long cooldown), and BreakerBar was scraped throughout.
      expect(single(await prometheus!.query(`breaker_state{${sel},dep="${OUTAGE_DEP}"}`)), logs()).toBe(2);
      expect(single(await prometheus!.query(`up{${sel}}`)), logs()).toBe(1);
      expect(single(await prometheus!.query(`min_over_time(up{${sel}}[1m])`)), logs()).toBe(1);
    },
    40_000,
  );
});
