/**
 * Alerts you can trust, end to end: the daemon as a child process, a simulated
 * gateway on loopback, a writer appending real transcript lines, a webhook
 * receiver left at its default routing, and a heartbeat receiver. A 429 storm
 * opens ONE incident (however many breakers and checks it touches) and its
 * recovery closes it: the phone gets exactly one alert and one recovery
 * notice. Then the daemon is killed and the heartbeat goes silent.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncidentList } from '../../main/core/incidents/types.js';
import { assistantMessage, sessionHeader } from '../../main/simulator/records.js';
import { type SimulatedGateway, startSimulatedGateway } from '../../main/simulator/simulated-gateway.js';
import { until } from '../helpers/transcripts.js';

const CLI = fileURLToPath(new URL('../../dist/main/cli/index.js', import.meta.url));
const SESSION = '7f3c2a10-0000-4000-8000-00000000e2e7';
const HEARTBEAT_MS = 1000;

let root: string;
let home: string;
let gateway: SimulatedGateway;
let hook: Server;
let alerts: Array<{ kind: string; title: string; severity: string; dep: string | null }>;
let beat: Server;
let beats: Array<{ at: number; status: string; headline: string }>;
let daemon: ChildProcess;
let daemonLog = '';
let transcript: string;
let entry = 0;

function write(outcome: 'ok' | 'rate_limited', dep: string): void {
  const [provider, model] = dep.split('/') as [string, string];
  entry += 1;
  appendFileSync(
    transcript,
    `${assistantMessage({ id: `e${entry}`, parentId: null, ts: Date.now(), provider, model, outcome, text: outcome === 'ok' ? 'done' : undefined })}\n`,
  );
}

/** Writes `outcome` calls on every dependency every 100 ms until `done()` says stop. */
async function writeWhile(outcome: 'ok' | 'rate_limited', deps: string[], done: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up writing ${outcome}\n${daemonLog.slice(-3000)}`);
    for (const dep of deps) write(outcome, dep);
    // fixed wait: paces the calls as a gateway writes them; the loop ends on `done()` or its deadline.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const apiUrl = () => readFileSync(join(home, 'api-url'), 'utf8').trim();
const token = () => readFileSync(join(home, 'api-token'), 'utf8').trim();

async function incidents(): Promise<IncidentList> {
  const res = await fetch(`${apiUrl()}/api/incidents`, { headers: { authorization: `Bearer ${token()}` } });
  return (await res.json()) as IncidentList;
}

/** Records each request's JSON body. */
function receiver(onBody: (body: string) => void): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      onBody(body);
      res.end('ok');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'bb-incident-e2e-'));
  const stateDir = join(root, 'openclaw');
  const sessions = join(stateDir, 'agents', 'main', 'sessions');
  mkdirSync(sessions, { recursive: true });
  transcript = join(sessions, `${SESSION}.jsonl`);
  writeFileSync(transcript, `${sessionHeader(SESSION, Date.now())}\n`);
  gateway = await startSimulatedGateway({ restartMs: 1500 });
  alerts = [];
  hook = await receiver((body) => alerts.push(JSON.parse(body)));
  beats = [];
  beat = await receiver((body) => beats.push({ at: Date.now(), ...JSON.parse(body) }));

  home = join(root, 'home');
  mkdirSync(home);
  const config = {
    gatewayUrl: gateway.baseUrl,
    gatewayMetrics: { enabled: false },
    quota: { enabled: false },
    ingest: { reconcileIntervalMs: 300 },
    health: { intervalSec: 1, connectTimeoutSec: 1, readTimeoutMinSec: 1, readTimeoutMaxSec: 2 },
    // Watch only: the storm and its end are the provider's; restarts are the watchdog suite's.
    watchdog: { enabled: false },
    breakers: { cooldownMs: 1000, maxOpenMs: 2000 },
    incidents: { graceSec: 1, settleSec: 1 },
    notifications: {
      desktop: false,
      coalesceSec: 1,
      // Default routing: what needs action, and the all-clear that closes it.
      webhooks: [{ type: 'generic', url: `http://127.0.0.1:${portOf(hook)}/hook` }],
    },
    heartbeat: { url: `http://127.0.0.1:${portOf(beat)}/ping`, intervalSec: HEARTBEAT_MS / 1000, timeoutSec: 1 },
  };
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  daemon = spawn(process.execPath, [CLI, 'daemon', '--port', '0'], {
    env: { ...process.env, BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: stateDir, LANG: 'en_US.UTF-8' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  daemon.stderr?.setEncoding('utf8').on('data', (chunk: string) => (daemonLog += chunk));
  await until(() => existsSync(join(home, 'api-url')), 15_000);
  await until(() => daemonLog.includes('"class":"ok"'), 15_000);
}, 60_000);

afterAll(async () => {
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    daemon.kill('SIGKILL');
    await new Promise((resolve) => daemon.once('exit', resolve));
  }
  await gateway?.close();
  await Promise.all([hook, beat].map((s) => new Promise((resolve) => s?.close(resolve))));
  rmSync(root, { recursive: true, force: true });
});

// One story over one daemon: each step starts from where the one before left it, so they run in order
// even when the suite is shuffled (`--sequence.shuffle`).
describe('an incident, end to end', { shuffle: false }, () => {
  it('a storm on two providers opens one incident, its recovery closes it: one alert, one recovery notice', async () => {
    const deps = ['zhipu/glm-5.1', 'anthropic/claude-sonnet-4-5'];
    await writeWhile('rate_limited', deps, () => alerts.some((a) => a.kind === 'incident_opened'));
    // The storm goes on a little after the alert (more checks, more transitions): still one incident.
    for (let i = 0; i < 10; i++) for (const dep of deps) write('rate_limited', dep);
    await until(async () => (await incidents()).incidents[0]?.deps.length === 2, 15_000, 'both providers in it');
    await writeWhile('ok', deps, () => alerts.some((a) => a.kind === 'incident_resolved'));

    const [incident, ...older] = (await incidents()).incidents;
    expect(older).toEqual([]);
    expect(incident).toMatchObject({ causes: ['breaker'], deps: [...deps].sort() });
    expect(incident?.closedAt).toBeGreaterThan(incident?.openedAt ?? Number.POSITIVE_INFINITY);
    expect(incident?.rateLimitedCalls).toBeGreaterThan(0);

    // Whatever else was said on the way (breakers opening and closing), the phone got two messages.
    expect(alerts.map((a) => a.kind)).toEqual(['incident_opened', 'incident_resolved']);
    expect(alerts[0]?.severity).toBe('warning');
    expect(alerts[1]?.title).toMatch(/resolved after/i);
  }, 90_000);

  it('the heartbeat carries the headline while the daemon lives, and stops when it is killed', async () => {
    // Pushes carry the headline of their moment: after the recovery, all is well again.
    const calm = () => beats.filter((b) => b.headline.startsWith('All well'));
    await until(() => calm().length >= 2, 15_000, `two heartbeats after the recovery\n${daemonLog.slice(-2000)}`);
    expect(calm().at(-1)).toMatchObject({ status: 'ok' });
    expect(calm().at(-1)?.headline).toMatch(/^All well · 2 dependencies answering · last incident ended/);
    expect(beats.some((b) => b.headline.startsWith('429 storm on') && b.status === 'warning')).toBe(true);
    daemon.kill('SIGKILL');
    await new Promise((resolve) => daemon.once('exit', resolve));
    const killedAt = Date.now();
    // A push already on the wire may land just after the kill; none may come an interval later.
    const deadline = killedAt + 3 * HEARTBEAT_MS + 500;
    while (Date.now() < deadline && !beats.some((b) => b.at > killedAt + HEARTBEAT_MS)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(beats.filter((b) => b.at > killedAt + HEARTBEAT_MS)).toEqual([]);
  }, 60_000);
});
