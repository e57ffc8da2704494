/**
 * Detection latency: how long from a fault being appended to a transcript
 * until its calls are stored, its breaker opens and the notifier announces it,
 * with the real core (watcher, classifier, SQLite, breakers, notifier) under a
 * steady background load of healthy calls written by a separate process.
 *
 * The same file is the background writer: forked with BB_DETECTION_WRITER=1,
 * it appends one healthy call every 100 ms, round robin over 3 dependencies.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Monitor } from '../main/api/root/monitor.js';
import { configSchema, resolveDirectories } from '../main/core/config/index.js';
import { parseWith } from '../main/core/config/schema.js';
import { silentLogger } from '../main/core/runtime/log.js';
import { assistantMessage, sessionHeader } from '../main/simulator/records.js';
import { type SimulatedGateway, startSimulatedGateway } from '../main/simulator/simulated-gateway.js';
import { distribution, machine, recordSection, summarize } from './report.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const LOAD_DEPS = ['zhipu/glm-5.1', 'deepseek/deepseek-v4-pro', 'anthropic/claude-sonnet-4'];
const LOAD_INTERVAL_MS = 100;
const FAULT_GAP_MS = 2000;
const GOAL_MS = 250;

function transcript(stateDir: string, agent: string, id: string, ts: number): string {
  const dir = join(stateDir, 'agents', agent, 'sessions');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${id}.jsonl`);
  appendFileSync(path, `${sessionHeader(id, ts)}\n`);
  return path;
}

/** Child side: healthy calls every 100 ms over 3 dependencies, one file each, until killed. */
function runWriter(stateDir: string): void {
  const now = Date.now();
  const files = LOAD_DEPS.map((_, i) => transcript(stateDir, 'load', `load-0000-4000-8000-00000000000${i + 1}`, now));
  let n = 0;
  setInterval(() => {
    const i = n % LOAD_DEPS.length;
    const [provider, model] = (LOAD_DEPS[i] as string).split('/') as [string, string];
    n += 1;
    const line = assistantMessage({
      id: `l${n}`,
      parentId: null,
      ts: Date.now(),
      provider,
      model,
      outcome: 'ok',
      text: 'ok',
    });
    appendFileSync(files[i] as string, `${line}\n`);
  }, LOAD_INTERVAL_MS);
  process.send?.({ ready: true });
}

if (process.env.BB_DETECTION_WRITER === '1') {
  process.once('message', (message: { stateDir: string }) => runWriter(message.stateDir));
}

interface Fault {
  dep: string;
  t0: number;
  stored?: number;
  transition?: number;
  notice?: number;
}

export async function detectionBench({ quick }: { quick: boolean }): Promise<void> {
  const faultCount = quick ? 8 : 30;
  const root = mkdtempSync(join(tmpdir(), 'bb-detection-'));
  const stateDir = join(root, 'openclaw');
  mkdirSync(stateDir, { recursive: true });
  let gateway: SimulatedGateway | null = null;
  let monitor: Monitor | null = null;
  let writer: ChildProcess | null = null;
  const faults = new Map<string, Fault>();
  let loadStored = 0;
  try {
    gateway = await startSimulatedGateway({ state: 'up' });
    const faultFile = transcript(stateDir, 'fault', 'fault-0000-4000-8000-000000000001', Date.now());
    const loaded = resolveDirectories(
      parseWith(configSchema, {
        openclawDir: stateDir,
        dataDir: join(root, 'data'),
        gatewayUrl: gateway.baseUrl,
        gatewayMetrics: { enabled: false },
        ingest: { reconcileIntervalMs: 5000 },
        notifications: { desktop: false, coalesceSec: 1, webhooks: [] },
        breakers: { consecutiveFailures: 3, cooldownMs: 600_000 },
        watchdog: { enabled: false },
        server: { port: 0 },
      }),
      null,
      { env: {}, home: root, platform: process.platform },
    );
    monitor = new Monitor(loaded, { log: silentLogger, desktop: null });
    // Ahead of the monitor's own listener, which feeds the breakers (and so the notifier) synchronously.
    monitor.prependListener('calls', (calls) => {
      const now = Date.now();
      for (const call of calls) {
        if (call.outcome === 'ok') loadStored += 1;
        const fault = faults.get(call.dep);
        if (fault && fault.stored === undefined) fault.stored = now;
      }
    });
    await monitor.start();
    const breakers = monitor.breakers;
    const notifier = monitor.gateway?.notifier;
    if (!breakers || !notifier) throw new Error('monitor started without its breakers or notifier');
    breakers.on('transition', (transition) => {
      const fault = faults.get(transition.dep);
      if (fault && transition.to === 'open' && fault.transition === undefined) fault.transition = Date.now();
    });
    notifier.on('notice', (notice) => {
      const fault = notice.dep === null ? undefined : faults.get(notice.dep);
      if (fault && notice.kind === 'breaker_opened' && fault.notice === undefined) fault.notice = Date.now();
    });

    writer = fork(fileURLToPath(import.meta.url), [], {
      stdio: 'inherit',
      env: { ...process.env, BB_DETECTION_WRITER: '1' },
    });
    const child = writer;
    await new Promise<void>((resolve) => {
      child.once('message', () => resolve());
      child.send({ stateDir });
    });
    await sleep(2000);

    process.stdout.write(
      `${faultCount} faults, one every ${FAULT_GAP_MS / 1000} s, under ${1000 / LOAD_INTERVAL_MS} healthy calls/s over ${LOAD_DEPS.length} dependencies\n`,
    );
    for (let n = 1; n <= faultCount; n++) {
      const dep = `fault/dep-${n}`;
      const t0 = Date.now();
      faults.set(dep, { dep, t0 });
      const lines = [1, 2, 3].map((k) =>
        assistantMessage({
          id: `f${n}-${k}`,
          parentId: null,
          ts: t0,
          provider: 'fault',
          model: `dep-${n}`,
          outcome: 'server_error',
        }),
      );
      appendFileSync(faultFile, `${lines.join('\n')}\n`);
      await sleep(FAULT_GAP_MS);
    }
    await sleep(1000);
  } finally {
    writer?.kill();
    await monitor?.stop();
    await gateway?.close();
    rmSync(root, { recursive: true, force: true });
  }

  const all = [...faults.values()];
  const stage = (pick: (f: Fault) => number | undefined) => {
    const values = all.map(pick).filter((v): v is number => v !== undefined);
    return { d: distribution(values), missing: all.length - values.length };
  };
  const stored = stage((f) => (f.stored === undefined ? undefined : f.stored - f.t0));
  const transition = stage((f) => (f.transition === undefined ? undefined : f.transition - f.t0));
  const notice = stage((f) => (f.notice === undefined ? undefined : f.notice - f.t0));
  const row = (name: string, s: typeof stored) =>
    `| ${name} | ${s.d.n} of ${all.length} | ${s.d.p50} | ${s.d.p90} | ${s.d.p99} | ${s.d.max} |`;
  const met = notice.missing === 0 && notice.d.p99 < GOAL_MS;
  const markdown = `## Detection latency (\`npm run bench -- detection\`)

Time from a fault being appended to a transcript until its calls are stored, its breaker opens and the notifier
announces it, measured in one run on ${machine()}. The real core (\`Monitor\`: file watcher, classifier, SQLite
commit, breakers, notifier; the reconcile left at its default 5 s, so the figures come from the watcher and its
follow-ups) watches JSONL transcripts, with a simulated gateway (up) and no desktop or webhook channel. A separate
child process writes a background load of ${1000 / LOAD_INTERVAL_MS} healthy calls/s spread over ${LOAD_DEPS.length} dependencies. Every
${FAULT_GAP_MS / 1000} s a fault hits a fresh dependency (\`fault/dep-<n>\`, so no breaker state or notice coalescing
carries over): 3 \`server_error\` calls appended in one write, the breaker trips on 3 consecutive failures. t0 is
taken just before the write (the records carry it); each stage is the wall time from t0 to the first calls batch
holding that dependency (taken before the breakers see the batch), to its breaker's transition to open, and to
the \`breaker_opened\` notice. Healthy background calls stored during the run: ${loadStored}.

| stage | faults seen | p50 ms | p90 ms | p99 ms | max ms |
|---|---:|---:|---:|---:|---:|
${row('append → stored', stored)}
${row('append → breaker open', transition)}
${row('append → notification', notice)}

Goal: p99 under ${GOAL_MS} ms to the notification — ${met ? 'met' : '**not met**'}.`;
  process.stdout.write(`\n${markdown}\n`);
  recordSection('detection', markdown);
  summarize('detection', 'append → stored p99', `${stored.d.p99} ms`);
  summarize('detection', 'append → breaker open p99', `${transition.d.p99} ms`);
  summarize('detection', 'append → notification p99', `${notice.d.p99} ms`, `< ${GOAL_MS} ms`);
  if (notice.missing > 0) process.exitCode = 1;
}
