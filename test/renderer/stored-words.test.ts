/**
 * The Chinese dashboard, fed a stored history of breaker transitions, watchdog
 * decisions and health probes, shows no English sentence. The history is made
 * by the real producers (the breaker engine, the watchdog policy, the health
 * probe) and written with the store's own calls into the database before the
 * core starts, as a user's store holds it; the Overview and Logs views are then
 * read in 简体中文.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Breaker } from '../../main/core/breaker/engine.js';
import { DEFAULT_POLICY, type Observation, type Transition } from '../../main/core/breaker/types.js';
import type { Outcome } from '../../main/core/calls/classify.js';
import { defaultsOf } from '../../main/core/config/schema.js';
import { probeGateway } from '../../main/core/gateway/probe.js';
import { openDatabase } from '../../main/core/store/database.js';
import { Store } from '../../main/core/store/db.js';
import { GatewayHistory, probeRow } from '../../main/core/store/gateway-history.js';
import { type WatchdogSettings, watchdogConfig, watchdogSettings } from '../../main/core/watchdog/config.js';
import { WatchdogPolicy } from '../../main/core/watchdog/policy.js';
import type { Decision } from '../../main/core/watchdog/policy-decisions.js';
import type { ProbeInput } from '../../main/core/watchdog/policy-inputs.js';
import { GATEWAY_LOG_RESTARTING } from '../../main/words/decision-reasons.js';
import { englishSentences } from '../helpers/english-sentences.js';
import { toolOrSkip } from '../helpers/tools.js';
import { launchChromium, openPage, visibleText, zoneAtNoon } from './browser.js';
import { buildDashboard, type DashboardDaemon, startDashboardDaemon } from './daemon-fixture.js';

const BROWSER = toolOrSkip('chromium');
const SEC = 1000;
const MIN = 60 * SEC;

function call(ts: number, outcome: Outcome, sessionId = 'a', retryAfterMs: number | null = null): Observation {
  return { ts, outcome, phase: outcome === 'ok' ? 'complete' : 'before_output', retryAfterMs, sessionId };
}

/** Every kind of transition the engine makes, from calls as a gateway would see them. */
export function breakerStory(t0: number): Transition[] {
  const out: Transition[] = [];
  const a = new Breaker('anthropic/claude-sonnet-4-5', DEFAULT_POLICY);
  for (let i = 0; i < 5; i++) out.push(...a.observe(call(t0 + i * SEC, 'server_error', i % 2 ? 'a' : 'b')));
  out.push(...a.tick(t0 + 40 * SEC)); // cooldown over
  out.push(...a.observe(call(t0 + 41 * SEC, 'timeout'))); // trial failed
  out.push(...a.observe(call(t0 + 42 * SEC, 'ok', 'c'))); // answered while open
  out.push(...a.observe(call(t0 + 43 * SEC, 'ok', 'd'))); // trials passed
  out.push(...a.control('force_open', 'provider maintenance', t0 + 50 * SEC));
  out.push(...a.control('reset', 'fixed upstream', t0 + 55 * SEC));

  const z = new Breaker('zhipu/glm-5.1', DEFAULT_POLICY);
  out.push(...z.observe(call(t0, 'rate_limited', 'a', 120 * SEC))); // rate limited, Retry-After
  out.push(...z.tick(t0 + 121 * SEC)); // Retry-After over
  out.push(...z.observe(call(t0 + 122 * SEC, 'ok', 'b')));
  out.push(...z.observe(call(t0 + 123 * SEC, 'ok', 'c')));
  out.push(...z.observe(call(t0 + 124 * SEC, 'rate_limited', 'a', 7_200 * SEC))); // capped Retry-After

  const d = new Breaker('deepseek/deepseek-v4-pro', { ...DEFAULT_POLICY, consecutiveFailures: 1000 });
  for (let i = 0; i < 21; i++) out.push(...d.observe(call(t0 + i * 500, i % 3 === 0 ? 'ok' : 'timeout', `s${i}`)));
  out.push(
    ...d.peerTripped(
      'open',
      { code: 'peer', state: 'open', host: 'mini-2', said: '5 consecutive failures' },
      t0 + 20 * SEC,
      null,
    ),
  );

  const p = new Breaker('openai/gpt-5', DEFAULT_POLICY);
  out.push(
    ...p.peerTripped(
      'throttled',
      { code: 'peer', state: 'throttled', host: 'mini-2', said: 'rate limited, Retry-After 60 s' },
      t0,
      t0 + 60 * SEC,
    ),
  );
  return out;
}

/** The watchdog's defaults with storm restarts on and short windows, so that one story meets every rule. */
const SETTINGS: WatchdogSettings = watchdogSettings({
  ...defaultsOf(watchdogConfig),
  stormRestart: 'safe',
  windowSec: 120,
  threshold: 3,
  healthFailuresBeforeRestart: 2,
  deadAfterSec: 15,
  hungAfterSec: 300,
  startupGraceSec: 300,
  maxRestartsPerHour: 2,
  restartSpacingSec: 60,
  maxDeferralSec: 600,
  divergenceSec: 180,
  dryRun: false,
});

const probed = (cls: string, detail: string, uptimeMs: number | null = null): ProbeInput => ({
  class: cls,
  dead: !['ok', 'starting', 'draining', 'unknown', 'not_openclaw'].includes(cls),
  startup: cls === 'ok' ? 'started' : 'unknown',
  detail,
  uptimeMs,
});

/** The watchdog's decisions through a storm, a death, restarts and the user's pause, as the policy makes them. */
export function watchdogStory(): Decision[] {
  const out: Decision[] = [];
  const zhipu = { dep: 'zhipu/glm-5.1', count: 6, retryAfterUntil: null, workingFallbacks: [] as string[] };
  const fresh = new WatchdogPolicy({ ...SETTINGS });
  out.push(fresh.probe(0, probed('refused', 'connection refused on 127.0.0.1:18789')));
  out.push(fresh.probe(SEC, probed('refused', 'connection refused on 127.0.0.1:18789')));
  out.push(fresh.probe(20 * SEC, probed('refused', 'connection refused on 127.0.0.1:18789')));
  fresh.strategyChecked({ runnable: true, problem: null, service: 'running' });
  out.push(fresh.probe(25 * SEC, probed('ok', 'live (/healthz 200 in 3 ms), started', 1000)));
  out.push(fresh.check(MIN, { deps: [] }));
  out.push(fresh.check(2 * MIN, { deps: [zhipu] }));
  out.push(fresh.check(3 * MIN, { deps: [zhipu] }));
  out.push(fresh.check(4 * MIN, { deps: [{ ...zhipu, workingFallbacks: ['deepseek/deepseek-v4-pro'] }] }));
  out.push(fresh.check(5 * MIN, { deps: [zhipu] }));
  out.push(fresh.check(6 * MIN, { deps: [zhipu] }));
  out.push(fresh.check(7 * MIN, { deps: [zhipu] }));
  out.push(fresh.check(8 * MIN, { deps: [{ ...zhipu, retryAfterUntil: 10 * MIN }] }));
  // The user's own note is shown as they wrote it: a reader of the Chinese dashboard writes it in Chinese.
  out.push(fresh.manual(9 * MIN, '升级之前'));
  out.push(fresh.manual(9 * MIN + SEC));
  fresh.restartFinished(9 * MIN + 2 * SEC, 'done');
  out.push(...fresh.tick(9 * MIN + 3 * SEC, []));
  out.push(fresh.probe(9 * MIN + 10 * SEC, probed('ok', 'live (/healthz 200 in 3 ms), started', 5 * SEC)));
  out.push(...fresh.tick(9 * MIN + 11 * SEC, []));
  out.push(fresh.gatewayRestarting(10 * MIN, GATEWAY_LOG_RESTARTING));
  out.push(fresh.probe(10 * MIN + SEC, probed('starting', 'starting (/startupz 503)')));
  out.push(...fresh.tick(16 * MIN, []));
  out.push(fresh.probe(17 * MIN, probed('ok', 'live (/healthz 200 in 3 ms), started', 1000)));
  out.push(...fresh.tick(17 * MIN + SEC, [{ dep: 'zhipu/glm-5.1', state: 'open', since: 10 * MIN }]));
  out.push(fresh.probe(30 * MIN, probed('not_openclaw', "/healthz answered HTTP 200 without OpenClaw's JSON")));
  out.push(fresh.pause(31 * MIN, 41 * MIN));
  out.push(fresh.check(32 * MIN, { deps: [zhipu] }));
  out.push(fresh.resume(33 * MIN));
  out.push(fresh.pause(34 * MIN, null));
  out.push(...fresh.tick(35 * MIN, []));
  return out;
}

let buildDir: string;
let daemon: DashboardDaemon;
let browser: Browser;

/** Writes the stories into the store at `dbPath` as the core does, leading up to `now`. */
async function seed(dbPath: string, now: number): Promise<void> {
  mkdirSync(join(dbPath, '..'), { recursive: true });
  const db = openDatabase(dbPath);
  try {
    const store = new Store(db);
    const history = new GatewayHistory(db);
    for (const transition of breakerStory(now - 30 * MIN)) store.insertTransition(transition, transition.ts);
    const decisions = watchdogStory();
    let restart: number | null = null;
    for (const [i, d] of decisions.entries()) {
      // The restarts the story orders, recorded and settled as the decision performer does.
      const order = d.restart ?? d.wouldRestart;
      if (order) {
        const why = d.restart ? order.why : d.why;
        restart = history.startRestart({
          ts: now - 20 * MIN + i * SEC,
          trigger: order.trigger,
          reason: order.reason,
          ...(why ? { why } : {}),
        });
      }
      if (restart !== null && (d.kind === 'recovered' || d.kind === 'not_recovered')) {
        history.updateRestart(restart, { result: d.kind, detail: d.reason }, d.why);
        restart = null;
      }
      history.recordDecision({
        ts: now - 20 * MIN + i * SEC,
        source: d.source,
        decision: d.kind,
        reason: d.reason,
        ...(d.why === undefined ? {} : { why: d.why }),
        dep: d.dep,
      });
    }
    // Probes that fail as a dead gateway's do: nothing listens on port 9, an address without its http://, an
    // https one; between them (so that no two neighbours fold into one row), rows an older BreakerBar stored
    // as the prober's English lines.
    const probe = (baseUrl: string, at: number) =>
      probeGateway({ baseUrl, connectTimeoutMs: 500, readTimeoutMs: 500, clock: () => at });
    const older = (at: number, status: string, detail: string) =>
      history.recordProbe({ ts: at, ok: status === 'ok', status, startup: 'unknown', latencyMs: null, detail });
    const t0 = now - 10 * MIN;
    history.recordProbe(probeRow(await probe('127.0.0.1:18789', t0)));
    older(t0 + SEC, 'ok', 'live (/healthz 200 in 3 ms), no /startupz (older gateway); not ready: telegram');
    history.recordProbe(probeRow(await probe('http://127.0.0.1:9', t0 + 2 * SEC)));
    older(t0 + 3 * SEC, 'starting', 'starting (/startupz 503)');
    history.recordProbe(probeRow(await probe('https://127.0.0.1:9', t0 + 4 * SEC)));
    older(t0 + 5 * SEC, 'connect_timeout', 'no connection to 127.0.0.1:18789 within 2.5 s (connect timeout)');
    older(
      t0 + 6 * SEC,
      'not_openclaw',
      "/healthz answered HTTP 200 without OpenClaw's JSON: something else listens there",
    );
    older(t0 + 7 * SEC, 'unknown', "probe delayed by BreakerBar's own event loop (3.2 s): gateway state unknown");
    older(t0 + 8 * SEC, 'read_timeout', 'no answer to /healthz within 10 s (read timeout)');
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  if (BROWSER.skip) return;
  buildDir = mkdtempSync(join(tmpdir(), 'bb-stored-words-'));
  const staticDir = buildDashboard(join(buildDir, 'renderer'));
  [daemon, browser] = await Promise.all([
    startDashboardDaemon({ staticDir, history: false, seed: (dbPath, now) => seed(dbPath, now) }),
    launchChromium(),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.close();
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

/** The visible text of one table of a view, read in 简体中文. */
async function chineseText(view: string, testId: string): Promise<string> {
  const { page, context, errors } = await openPage(browser, 'light', zoneAtNoon(daemon.now));
  try {
    await page.addInitScript({ content: `localStorage.setItem('breakerbar.language', "zh-CN");` });
    await page.goto(`${daemon.url}/#token=${daemon.token}&view=${view}`);
    const table = page.getByTestId(testId);
    await table.waitFor();
    expect(errors).toEqual([]);
    return await visibleText(table);
  } finally {
    await context.close();
  }
}

describe.skipIf(BROWSER.skip)(BROWSER.title('stored history in Chinese'), () => {
  it('finds an English sentence where there is one (the rule can fail)', () => {
    expect(englishSentences('熔断器：answered while open')).toHaveLength(1);
    expect(englishSentences('zhipu/glm-5.1 · Retry-After 120 秒 · OpenClaw · BreakerBar · 42 ms')).toEqual([]);
  });

  it('the Logs view words every stored breaker transition in Chinese', async () => {
    const text = await chineseText('logs', 'transition-log');
    expect(text).toContain('anthropic/claude-sonnet-4-5');
    expect(englishSentences(text)).toEqual([]);
  });

  it('the Logs view words every stored probe detail in Chinese, new rows and older English ones', async () => {
    const text = await chineseText('logs', 'probe-log');
    expect(text).toContain('127.0.0.1:18789');
    expect(englishSentences(text)).toEqual([]);
  });

  it('the Logs view words every stored restart reason and how it ended in Chinese', async () => {
    const text = await chineseText('logs', 'restart-log');
    expect(text).toContain('zhipu/glm-5.1');
    expect(englishSentences(text)).toEqual([]);
  });

  it('the Logs view words every stored watchdog decision in Chinese', async () => {
    const text = await chineseText('logs', 'decision-log');
    expect(text).toContain('zhipu/glm-5.1');
    expect(englishSentences(text)).toEqual([]);
  });
});
