/**
 * What `openclaw gateway restart` really does to a foreground gateway, for each
 * version the suite runs: the JSON each flavour prints, the log lines that mark
 * an in-process restart, what the probes answer through it, the boot record it
 * leaves, and what happens to the runs in flight when it comes during a 429
 * storm. BreakerBar's watchdog restarts the gateway on these facts; a new
 * OpenClaw that changes one of them fails here first.
 *
 * The mock provider answers 429 (Retry-After: 1) for `mock/storm` while the
 * storm lasts, and holds `mock/held` requests open until the test lets them go:
 * a run kept in flight for exactly as long as a scenario needs.
 *
 * Timings (how long the port refused connections, how long after `gateway ready`
 * the next upstream request came) are printed, not asserted: a loaded machine
 * must not fail the suite.
 *
 * `BREAKERBAR_CAPTURE_FIXTURES=1` also writes the restart JSON, the restart's log
 * lines, the probe answers and the boot records to
 * `test/fixtures/openclaw-<version>/restart/`.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../../helpers/tools.js';
import { until } from '../../helpers/transcripts.js';
import {
  type CliResult,
  type GatewayLogEntry,
  type RealGateway,
  startGateway,
  type TurnResult,
} from './harness/gateway.js';
import { type MockProvider, startMockProvider } from './harness/mock-provider.js';
import { ensureOpenClaw, OPENCLAW_VERSIONS, type OpenClawVersion } from './harness/runtime.js';

const NODE24 = toolOrSkip('node24');

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** A log line a test expects: its subsystem and its message (exact text or pattern). */
type Expected = [subsystem: string, message: string | RegExp];

interface VersionFacts {
  /** The signal an in-process restart is delivered by. */
  signal: 'SIGUSR1' | 'SIGUSR2';
  /** Where `restart --safe --json` prints its JSON (2026.7 writes it to stderr). */
  safeJsonOn: 'stdout' | 'stderr';
  /** Whether `/startupz` is a probe (2026.7 serves the Control UI page there). */
  startupProbe: boolean;
  /** The boot record's `reason` after a `--safe` restart. */
  safeBootReason: string;
  /** `restart --safe`'s message when work is in flight. */
  deferredMessage: string;
  /** The log lines of an in-process restart, in order (others may come between). */
  restartLines: readonly Expected[];
}

const FACTS: Record<OpenClawVersion, VersionFacts> = {
  '2026.9.6': {
    signal: 'SIGUSR2',
    safeJsonOn: 'stdout',
    startupProbe: true,
    safeBootReason: 'restart (SIGUSR2: gateway.restart.safe)',
    deferredMessage:
      'safe restart requested; gateway will restart after active work drains (bounded wait; may force after the timeout expires)',
    restartLines: [
      ['gateway/admission', 'admission closed: restart-signal fence'],
      ['gateway/admission', 'admission closed: restart (SIGUSR2: gateway.restart.safe)'],
      ['gateway', 'received SIGUSR2; restarting'],
      ['gateway/shutdown', /^shutdown completed (cleanly in \d+ms|in \d+ms with warnings: .+)$/],
      ['gateway', /^restart mode: in-process restart \(.+\)$/],
      ['gateway', /^http server listening \(/],
      ['gateway', 'gateway ready'],
    ],
  },
  '2026.7.1': {
    signal: 'SIGUSR1',
    safeJsonOn: 'stderr',
    startupProbe: false,
    safeBootReason: 'gateway.restart.safe',
    deferredMessage:
      'safe restart requested; gateway will restart after active work drains (bounded by gateway.reload.deferralTimeoutMs; may force after timeout expires)',
    restartLines: [
      ['gateway', 'signal SIGUSR1 received'],
      ['gateway', 'received SIGUSR1; restarting'],
      ['gateway/shutdown', 'shutdown started: gateway restarting'],
      ['gateway/shutdown', /^shutdown completed (cleanly in \d+ms|in \d+ms with warnings: .+)$/],
      ['gateway', /^restart mode: in-process restart \(.+\)$/],
      ['gateway', /^http server listening \(/],
      ['gateway', 'gateway ready'],
    ],
  },
};

/** Only a gateway's first boot logs this: an in-process restart does not load its configuration again. */
const FIRST_BOOT_LINE = 'loading configuration…';

describe.skipIf(NODE24.skip).each(OPENCLAW_VERSIONS)(
  NODE24.title('restarting the real OpenClaw %s'),
  (version: OpenClawVersion) => {
    const facts = FACTS[version];
    let root: string;
    let mock: MockProvider;
    let gateway: RealGateway;

    beforeAll(async () => {
      const runtime = await ensureOpenClaw(version);
      root = mkdtempSync(join(tmpdir(), `bb-openclaw-restart-${version}-`));
      mock = await startMockProvider();
      mock.retryAfterSeconds = 1;
      gateway = await startGateway({
        runtime,
        root,
        mock,
        providers: [{ id: 'mock', models: ['ok', 'storm', 'held'] }],
        // Runs resumed after a restart go to the agent's primary model, whatever model their turn asked for:
        // the storm's model, so a resumed run meets the storm again as it would on a real gateway.
        primary: 'mock/storm',
        fallbacks: [],
        // A held request must outlast the restart CLI's own start-up (seconds on a loaded machine).
        providerTimeoutSeconds: 90,
      });
    }, 900_000);

    afterAll(async () => {
      await gateway?.stop();
      await mock?.close();
      if (root && process.env.BREAKERBAR_E2E_KEEP !== '1') rmSync(root, { recursive: true, force: true });
    }, 120_000);

    it('restarts in process on an idle `--safe`: `scheduled`, same pid, new boot record, port closed for a moment', async () => {
      const { mark, bootsBefore, startupBefore, probes, result, answer } = await idleSafeRestart(gateway, facts);
      expect(answer).toMatchObject({
        ok: true,
        result: 'scheduled',
        message: 'safe restart requested; gateway will restart momentarily',
        preflight: { safe: true, blockers: [], summary: 'safe to restart now' },
        restart: { ok: true, pid: gateway.pid, signal: facts.signal, reason: 'gateway.restart.safe', coalesced: false },
      });
      expect(answer.preflight.counts.totalActive).toBe(0);

      const cycle = await restartCycle(gateway, mark, facts.signal);
      await until(async () => (await gateway.probe('/readyz')).status === 200, 60_000, '/readyz 200 after the restart');
      const seen = await probes.stop();

      expectInOrder(cycle.entries, facts.restartLines);
      expect(cycle.entries.map((entry) => entry.message)).not.toContain(FIRST_BOOT_LINE);
      expect(gateway.alive()).toBe(true);

      const boots = bootRecords(gateway.stateDir);
      expect(boots).toHaveLength(bootsBefore.length + 1);
      const ended = boots.find((boot) => boot.boot_id === bootsBefore.at(-1)?.boot_id);
      expect(ended).toMatchObject({ outcome: 'planned_restart', reason: facts.safeBootReason, pid: gateway.pid });
      // Only the running boot is open: a planned restart is no unclean boot for the crash-loop breaker.
      expect(boots.filter((boot) => boot.completed_at_ms === null)).toEqual([boots.at(-1)]);
      expect(boots.at(-1)).toMatchObject({ pid: gateway.pid, outcome: null });

      // The listener goes away: an in-process restart closes the HTTP server and opens a new one.
      const refused = refusedWindow(seen);
      expect(refused).not.toBeNull();
      if (facts.startupProbe) {
        expect(JSON.parse(startupBefore.body)).toMatchObject({ ok: true, status: 'started', version });
        const states = seen.map((probe) => startupState(probe.startupz)).filter((state) => state !== null);
        expect(states).toContain('starting');
        const after = JSON.parse((await gateway.probe('/startupz')).body) as { status: string; uptimeMs: number };
        expect(after.status).toBe('started');
        // Uptime counts from the new boot: shorter than the time this test has been watching.
        expect(after.uptimeMs).toBeLessThan(Date.now() - probes.startedAt);
      } else {
        // No startup probe: the Control UI's page answers 200 there whatever the gateway's state.
        expect(startupBefore.status).toBe(200);
        expect(startupBefore.body.trimStart().toLowerCase()).toMatch(/^<!doctype html>/);
      }
      console.log(
        `openclaw ${version}: idle --safe restart: CLI ${result.durationMs} ms; port refused ${refused?.ms ?? '?'} ms; ` +
          `signal → gateway ready ${cycle.readyAt - cycle.signalAt} ms`,
      );
      if (capturing()) {
        const dir = fixtureDir(version);
        writeJson(join(dir, 'restart-safe-idle.json'), cliRecord(result));
        writeFileSync(join(dir, 'in-process-restart.log'), `${restartLogLines(cycle.entries).join('\n')}\n`);
        writeJson(join(dir, 'probes-idle-restart.json'), probeTransitions(seen));
        writeJson(join(dir, 'boot-lifecycle-idle-restart.json'), boots.slice(-2).map(withoutIds));
      }
    });

    it('defers a `--safe` restart while runs are in flight in a 429 storm, and interrupts none of them', async () => {
      mock.steady('storm', 'rate_limit');
      mock.hold('held');
      const mark = gateway.logEntries().length;
      const stormed = mock.requests.length;
      const turns: Array<Promise<Ended>> = [
        ended(gateway.turn('storm-safe', 'mock/storm')),
        ended(gateway.turn('held-safe', 'mock/held')),
      ];
      await until(
        () => mock.heldCount('held') >= 1 && mock.requests.length > stormed,
        120_000,
        'a held request and a 429',
      );

      const first = safeAnswer(await gateway.cli(['gateway', 'restart', '--safe', '--json']), facts);
      expect(first).toMatchObject({
        ok: true,
        result: 'deferred',
        message: facts.deferredMessage,
        preflight: { safe: false },
        restart: { ok: true, pid: gateway.pid, signal: facts.signal, reason: 'gateway.restart.safe', coalesced: false },
      });
      expect(first.preflight.blockers.length).toBeGreaterThan(0);
      expect(first.preflight.counts.totalActive).toBeGreaterThan(0);
      expect(first.preflight.summary).toMatch(/^restart deferred: /);
      expect(first.warnings).toEqual([first.preflight.summary]);

      const second = safeAnswer(await gateway.cli(['gateway', 'restart', '--safe', '--json']), facts);
      expect(second).toMatchObject({
        ok: true,
        result: 'coalesced',
        message: 'safe restart request joined an existing pending gateway restart',
        restart: { coalesced: true },
      });

      // Deferred: nothing restarts, the gateway still reads ready and still admits work.
      expect(restartSignals(gateway.logEntries().slice(mark), facts.signal)).toHaveLength(0);
      expect((await gateway.probe('/readyz')).status).toBe(200);
      // A new turn is still admitted and reaches the provider although a restart is pending.
      const admitted = ended(gateway.turn('held-safe-late', 'mock/held'));
      await until(() => mock.heldCount('held') >= 2, 120_000, 'the turn admitted during the deferral');

      const stormEndedAt = Date.now();
      mock.steady('storm', 'ok');
      mock.release('held');
      const results = await Promise.all([...turns, admitted]);
      const cycle = await restartCycle(gateway, mark, facts.signal);
      const lastRunEnd = Math.max(...results.map((result) => result.endedAt));

      // The restart came only once the work had drained, and it interrupted nothing.
      expect(cycle.signalAt).toBeGreaterThanOrEqual(stormEndedAt);
      expect(cycle.entries.filter((entry) => /interrupted main session/.test(entry.message))).toEqual([]);
      const held = results[1] as Ended;
      expect({ session: held.sessionId, exit: held.exitCode }).toEqual({ session: 'held-safe', exit: 0 });
      if (version === '2026.9.6') {
        // 2026.9 retries a 429 inside the run (Retry-After, then backoff): the storm's runs outlive it and succeed.
        expect(results.map((result) => [result.sessionId, result.exitCode])).toEqual([
          ['storm-safe', 0],
          ['held-safe', 0],
          ['held-safe-late', 0],
        ]);
        // The storm's run got its answer from the gateway that was asked to restart: the restart waited for it.
        const answeredBefore = mock.requests
          .slice(stormed)
          .filter((request) => request.model === 'storm' && request.answer === 'ok' && request.at < cycle.signalAt);
        expect(answeredBefore.length).toBeGreaterThanOrEqual(1);
      }
      // The turn admitted during the deferral finished on the old gateway too (nothing was interrupted, above).
      expect((results[2] as Ended).exitCode).toBe(0);
      console.log(
        `openclaw ${version}: --safe in a storm: deferred, restart ${cycle.signalAt - stormEndedAt} ms after the storm ended ` +
          `(${cycle.signalAt - lastRunEnd} ms after the last run's CLI exited); runs ${JSON.stringify(results.map((r) => [r.sessionId, r.exitCode]))}`,
      );
      await until(async () => (await gateway.probe('/readyz')).status === 200, 60_000, '/readyz 200 after the restart');
      if (capturing()) {
        const dir = fixtureDir(version);
        writeJson(join(dir, 'restart-safe-deferred.json'), first);
        writeJson(join(dir, 'restart-safe-coalesced.json'), second);
      }
    });

    it('cuts a storm short with `--wait`: runs aborted, CLI callers told so, sessions resumed after the restart', async () => {
      mock.steady('storm', 'rate_limit');
      mock.hold('held');
      const mark = gateway.logEntries().length;
      const stormed = mock.requests.length;
      const turns = [ended(gateway.turn('storm-wait', 'mock/storm')), ended(gateway.turn('held-wait', 'mock/held'))];
      await until(
        () => mock.heldCount('held') >= 1 && mock.requests.length > stormed,
        120_000,
        'a held request and a 429',
      );
      const result = await gateway.cli(['gateway', 'restart', '--wait', '2s', '--json']);
      expect(result.exitCode).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        action: 'restart',
        ok: true,
        result: 'restarted',
        message: expect.stringMatching(
          new RegExp(
            `^Gateway restart (request|signal) sent to .* process on port ${gateway.port}: ${gateway.pid}\\.$`,
          ),
        ),
      });
      const cycle = await restartCycle(gateway, mark, facts.signal);
      const shutdown = cycle.entries.filter((entry) => entry.at <= cycle.readyAt);

      // The runs in flight were aborted by the restart and their sessions marked for recovery.
      expect(shutdown.map((entry) => entry.message)).toContainEqual(
        expect.stringMatching(
          /^marked \d+ interrupted main session\(s\) for restart recovery \(gateway restart shutdown\)$/,
        ),
      );

      // After the restart, OpenClaw decides about the interrupted session by itself.
      const recovered = await waitForEntry(
        gateway,
        mark,
        (entry) => entry.subsystem === 'main-session-restart-recovery' && /held-wait/.test(entry.message),
        120_000,
      );
      const afterReady = () => mock.requests.filter((request) => request.at > cycle.readyAt);
      if (version === '2026.9.6')
        await until(() => afterReady().length > 0, 60_000, 'the resumed run to reach the provider');
      const firstAfter = afterReady()[0];
      mock.steady('storm', 'ok');
      mock.release('held');
      // 2026.7's CLI caller runs the turn itself after the gateway went away: it ends once the provider answers.
      const callers = await Promise.all(turns);
      const heldCaller = callers[1] as Ended;
      const boots = bootRecords(gateway.stateDir);
      expect(boots.filter((boot) => boot.completed_at_ms === null)).toEqual([boots.at(-1)]);
      expect(boots.at(-2)?.outcome).toBe('planned_restart');

      if (version === '2026.9.6') {
        expectInOrder(shutdown, [
          ['gateway/admission', 'admission closed: restart (SIGUSR2: gateway.restart)'],
          ['gateway', 'received SIGUSR2; restarting'],
          ['gateway', /^draining active work before restart with timeout \d+(\.\d+)?ms: /],
          ['gateway', /^restart drain budget \d+(\.\d+)?ms exhausted; cutting short /],
          ['main-session-restart-recovery', /^marked \d+ interrupted main session\(s\) for restart recovery/],
          ['gateway/shutdown', /^aborted \d+ active run\(s\) during restart shutdown$/],
          ['gateway/shutdown', /^shutdown completed in \d+ms with warnings: /],
          ['gateway', /^restart mode: in-process restart/],
          ['gateway', 'gateway ready'],
        ]);
        // The caller learnt only that the connection closed; the run goes on inside the gateway without it.
        expect(heldCaller.exitCode).not.toBe(0);
        expect(heldCaller.output).toContain('gateway closed (1012): service restart');
        expect(recovered.message).toBe('started interrupted main session: agent:main:explicit:held-wait');
        // The resumed run asked the primary model (the storm's), not the model its turn had named.
        expect(firstAfter).toMatchObject({ model: 'storm', answer: 'rate_limit' });
        await waitForEntry(
          gateway,
          mark,
          (entry) =>
            /^main-session restart recovery terminal: session=agent:main:explicit:held-wait run=\S+ status=ok reason=completed$/.test(
              entry.message,
            ),
          120_000,
        );
        // The resumed turn is a new user message from OpenClaw, then the model's answer.
        const messages = sessionMessages(gateway.stateDir, 'held-wait');
        expect(messages.at(-2)?.role).toBe('user');
        expect(messages.at(-2)?.text).toMatch(/^\[System\] Your previous turn was interrupted by a gateway restart/);
        expect(messages.at(-1)).toMatchObject({ role: 'assistant', text: 'Done.' });
        expect(boots.at(-2)?.reason).toMatch(
          /^restart drain budget .*exhausted; cutting short .*; restart \(SIGUSR2: gateway\.restart\)$/,
        );
      }
      if (version === '2026.7.1') {
        expectInOrder(shutdown, [
          ['gateway', 'received SIGUSR1; restarting'],
          [
            'main-session-restart-recovery',
            /^marked \d+ interrupted main session\(s\) for restart recovery \(gateway restart drain\)$/,
          ],
          [
            'gateway',
            /^draining \d+ active task\(s\) and \d+ active embedded run\(s\) before restart with timeout 2000ms$/,
          ],
          ['gateway', 'active embedded run drain timeout reached; aborting active run(s) before restart'],
          ['gateway', 'drain timeout reached; proceeding with restart'],
          ['gateway/shutdown', 'shutdown started: gateway restarting'],
          ['gateway/shutdown', /^aborted \d+ active run\(s\) during restart shutdown$/],
          ['gateway', /^restart mode: in-process restart/],
          ['gateway', 'gateway ready'],
        ]);
        // The gateway resumes the session, or gives up on it when its transcript's tail does not allow it
        // (the CLI's own run below may have written to it first): both were seen with the same scenario.
        expect(recovered.message).toMatch(
          /^(resumed interrupted main session: agent:main:explicit:held-wait|marked interrupted main session failed: agent:main:explicit:held-wait \(transcript tail is not resumable\))$/,
        );
        // Either way the CLI that asked for the turn runs it again itself, outside the gateway, and gets its answer.
        // (The CLI shares the gateway's log file: its own lines land there, with no subsystem.)
        const fallbacks = gateway
          .logEntries()
          .slice(mark)
          .filter((entry) =>
            entry.raw.includes(
              'EMBEDDED FALLBACK: Gateway agent failed; running embedded agent: GatewayTransportError: gateway closed (1012): service restart',
            ),
          );
        expect(fallbacks.length).toBeGreaterThanOrEqual(1);
        expect(heldCaller.exitCode).toBe(0);
        expect(boots.at(-2)?.reason).toBe('gateway.restart');
      }
      console.log(
        `openclaw ${version}: --wait 2s in a storm: callers ${JSON.stringify(callers.map((c) => [c.sessionId, c.exitCode]))}; ` +
          `${recovered.message}; first upstream request ${firstAfter ? `${firstAfter.at - cycle.readyAt} ms after gateway ready (${firstAfter.model}: ${firstAfter.answer})` : 'none'}`,
      );
      if (capturing()) {
        const dir = fixtureDir(version);
        writeJson(join(dir, 'restart-wait-storm.json'), cliRecord(result));
        writeFileSync(
          join(dir, 'storm-wait-restart.log'),
          `${restartLogLines(gateway.logEntries().slice(mark)).join('\n')}\n`,
        );
        writeJson(join(dir, 'boot-lifecycle-wait-restart.json'), boots.slice(-2).map(withoutIds));
      }
    });
  },
);

interface Ended extends TurnResult {
  endedAt: number;
}

function ended(turn: Promise<TurnResult>): Promise<Ended> {
  return turn.then((result) => ({ ...result, endedAt: Date.now() }));
}

interface SafeAnswer {
  ok: boolean;
  result: string;
  message: string;
  preflight: {
    safe: boolean;
    counts: Record<string, number> & { totalActive: number };
    blockers: Array<{ kind: string; count: number; message: string }>;
    summary: string;
  };
  restart: Record<string, unknown>;
  warnings?: string[];
}

function safeAnswer(result: CliResult, facts: VersionFacts): SafeAnswer {
  expect(result.exitCode).toBe(0);
  const text = facts.safeJsonOn === 'stdout' ? result.stdout : result.stderr;
  // Anything else on that stream (2026.9 warns about service metadata on stderr) precedes the JSON.
  return JSON.parse(text.slice(text.indexOf('{'))) as SafeAnswer;
}

/**
 * Asks an idle gateway for `restart --safe`. Idle means no runs: the gateway's own root work can still be
 * in flight, and OpenClaw 2026.9 has some (its startup sidecars, such as `startup:sidecars.control-ui-assets`,
 * after `gateway ready`; a task-maintenance sweep 5 s after start and every minute after). A restart asked
 * for meanwhile is deferred (blocker kind `root-request`). So the request waits until the gateway's own
 * restart preflight says nothing is in flight; should work start between that answer and the request, the
 * deferred restart is let through (it happens when that work ends) and the request made again.
 */
async function idleSafeRestart(gateway: RealGateway, facts: VersionFacts) {
  for (let attempt = 1; ; attempt++) {
    await untilNothingInFlight(gateway);
    const mark = gateway.logEntries().length;
    const bootsBefore = bootRecords(gateway.stateDir);
    const startupBefore = await gateway.probe('/startupz');
    const probes = watchProbes(gateway);
    const result = await gateway.cli(['gateway', 'restart', '--safe', '--json']);
    const answer = safeAnswer(result, facts);
    if (attempt === 3 || !deferredByRootWorkOnly(answer))
      return { mark, bootsBefore, startupBefore, probes, result, answer };
    console.log(`openclaw: restart --safe met the gateway's own work (${answer.preflight.summary}); asking again`);
    await probes.stop();
    await restartCycle(gateway, mark, facts.signal);
  }
}

/** Until `gateway.restart.preflight` (the check `restart --safe` makes) answers safe. */
async function untilNothingInFlight(gateway: RealGateway): Promise<void> {
  let last = '';
  await until(
    async () => {
      const result = await gateway.cli(['gateway', 'call', 'gateway.restart.preflight', '--json']);
      last = `exit ${result.exitCode}: ${result.stdout.trim().slice(0, 400)} ${result.stderr.trim().slice(0, 400)}`;
      if (result.exitCode !== 0) return false;
      try {
        return (JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as { safe?: unknown }).safe === true;
      } catch {
        return false;
      }
    },
    // Well within the test's own timeout, so that a gateway that never settles fails with its last answer.
    60_000,
    () => `the gateway's restart preflight to say safe (last answer: ${last})`,
  );
}

function deferredByRootWorkOnly(answer: SafeAnswer): boolean {
  const blockers = answer.preflight?.blockers ?? [];
  return (
    answer.result === 'deferred' && blockers.length > 0 && blockers.every((blocker) => blocker.kind === 'root-request')
  );
}

function restartSignals(entries: readonly GatewayLogEntry[], signal: string): GatewayLogEntry[] {
  return entries.filter((entry) => entry.subsystem === 'gateway' && entry.message === `received ${signal}; restarting`);
}

interface RestartCycle {
  signalAt: number;
  readyAt: number;
  /** The log from the action's mark to `gateway ready` after the restart. */
  entries: GatewayLogEntry[];
}

/** Waits for the restart after `mark`: the signal's line, then `gateway ready`. */
async function restartCycle(gateway: RealGateway, mark: number, signal: string): Promise<RestartCycle> {
  const received = await waitForEntry(
    gateway,
    mark,
    (entry) => entry.subsystem === 'gateway' && entry.message === `received ${signal}; restarting`,
    360_000,
  );
  const ready = await waitForEntry(
    gateway,
    mark,
    (entry) => entry.subsystem === 'gateway' && entry.message === 'gateway ready' && entry.at >= received.at,
    180_000,
  );
  const entries = gateway.logEntries().slice(mark);
  return {
    signalAt: received.at,
    readyAt: ready.at,
    entries: entries.slice(0, entries.indexOf(findSame(entries, ready)) + 1),
  };
}

function findSame(entries: readonly GatewayLogEntry[], wanted: GatewayLogEntry): GatewayLogEntry {
  return entries.find((entry) => entry.raw === wanted.raw) ?? wanted;
}

async function waitForEntry(
  gateway: RealGateway,
  mark: number,
  matches: (entry: GatewayLogEntry) => boolean,
  timeoutMs: number,
): Promise<GatewayLogEntry> {
  let found: GatewayLogEntry | undefined;
  await until(
    () => {
      found = gateway.logEntries().slice(mark).find(matches);
      return found !== undefined;
    },
    timeoutMs,
    () => `a matching gateway log line:\n${gateway.output().slice(-3000)}`,
  );
  return found as GatewayLogEntry;
}

/** Each expected line appears, in this order, among the entries. */
function expectInOrder(entries: readonly GatewayLogEntry[], expected: readonly Expected[]): void {
  let from = 0;
  for (const [subsystem, message] of expected) {
    const index = entries.findIndex(
      (entry, i) =>
        i >= from &&
        entry.subsystem === subsystem &&
        (typeof message === 'string' ? entry.message === message : message.test(entry.message)),
    );
    if (index < 0) {
      const seen = entries.map((entry) => `${entry.subsystem}: ${entry.message.slice(0, 160)}`).join('\n');
      throw new Error(`expected [${subsystem}] ${String(message)} after line ${from} of:\n${seen}`);
    }
    from = index + 1;
  }
}

interface ProbeSample {
  at: number;
  healthz: { status: number | null; body: string; error: string | null };
  readyz: { status: number | null; body: string; error: string | null };
  startupz: { status: number | null; body: string; error: string | null };
}

/** Asks the three probes in a loop until stopped; the samples say what a watcher saw through a restart. */
function watchProbes(gateway: RealGateway): { startedAt: number; stop(): Promise<ProbeSample[]> } {
  const samples: ProbeSample[] = [];
  let running = true;
  const startedAt = Date.now();
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      const [healthz, readyz, startupz] = await Promise.all(
        ['/healthz', '/readyz', '/startupz'].map((path) => gateway.probe(path, 1500)),
      );
      samples.push({ at, healthz, readyz, startupz } as ProbeSample);
      // fixed wait: the probe sampling rate (what is measured is the gateway's answers over time).
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    startedAt,
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** From the first sample whose `/healthz` was refused to the next that answered. */
function refusedWindow(samples: readonly ProbeSample[]): { from: number; ms: number } | null {
  const first = samples.findIndex((sample) => sample.healthz.error === 'ECONNREFUSED');
  if (first < 0) return null;
  const back = samples.findIndex((sample, i) => i > first && sample.healthz.status !== null);
  const from = (samples[first] as ProbeSample).at;
  return { from, ms: back < 0 ? Number.NaN : (samples[back] as ProbeSample).at - from };
}

function startupState(answer: ProbeSample['startupz']): string | null {
  if (answer.status === null) return null;
  try {
    return (JSON.parse(answer.body) as { status?: string }).status ?? null;
  } catch {
    return null;
  }
}

/** The samples where any probe's status changed, bodies kept (a Control UI page shortened). */
function probeTransitions(samples: readonly ProbeSample[]) {
  const out: Array<Record<string, unknown>> = [];
  let previous = '';
  const t0 = samples[0]?.at ?? 0;
  for (const sample of samples) {
    const key = [sample.healthz, sample.readyz, sample.startupz]
      .map((answer) => `${answer.status ?? answer.error}:${startupOrReady(answer.body)}`)
      .join('|');
    if (key === previous) continue;
    previous = key;
    const show = (answer: ProbeSample['healthz']) =>
      answer.status === null
        ? { error: answer.error }
        : { status: answer.status, body: answer.body.startsWith('<') ? '<html page>' : JSON.parse(answer.body) };
    out.push({
      ms: sample.at - t0,
      healthz: show(sample.healthz),
      readyz: show(sample.readyz),
      startupz: show(sample.startupz),
    });
  }
  return out;
}

function startupOrReady(body: string): string {
  try {
    const parsed = JSON.parse(body) as { status?: string; ready?: boolean; failing?: string[] };
    return `${parsed.status ?? ''}${parsed.ready ?? ''}${(parsed.failing ?? []).join(',')}`;
  } catch {
    return body.slice(0, 15);
  }
}

interface BootRecord {
  boot_id: string;
  pid: number;
  started_at_ms: number;
  completed_at_ms: number | null;
  outcome: string | null;
  startup_reason: string | null;
  reason: string | null;
}

/** OpenClaw's own boot ledger (`gateway_boot_lifecycle`, shared state database), oldest first. */
function bootRecords(stateDir: string): BootRecord[] {
  const db = new Database(join(stateDir, 'state', 'openclaw.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT * FROM gateway_boot_lifecycle ORDER BY started_at_ms, rowid').all() as BootRecord[];
  } finally {
    db.close();
  }
}

interface SessionMessage {
  role: string;
  text: string;
}

/** A session's user and assistant messages: the agent database (2026.7.2+) or the session's JSONL file. */
function sessionMessages(stateDir: string, sessionId: string): SessionMessage[] {
  const agentDir = join(stateDir, 'agents', 'main');
  const lines: string[] = [];
  const database = join(agentDir, 'agent', 'openclaw-agent.sqlite');
  if (existsSync(database)) {
    const db = new Database(database, { readonly: true });
    try {
      const rows = db
        .prepare(
          'SELECT event_json AS json FROM transcript_events WHERE session_id = ? AND event_json IS NOT NULL ORDER BY rowid',
        )
        .all(sessionId) as Array<{ json: string }>;
      lines.push(...rows.map((row) => row.json));
    } finally {
      db.close();
    }
  } else {
    const sessions = join(agentDir, 'sessions');
    for (const name of existsSync(sessions) ? readdirSync(sessions) : []) {
      if (name.startsWith(sessionId) && name.endsWith('.jsonl') && !name.includes('.trajectory'))
        lines.push(...readFileSync(join(sessions, name), 'utf8').split('\n').filter(Boolean));
    }
  }
  const messages: SessionMessage[] = [];
  for (const line of lines) {
    const entry = JSON.parse(line) as { type?: string; message?: { role?: string; content?: unknown } };
    const role = entry.message?.role;
    if (entry.type !== 'message' || (role !== 'user' && role !== 'assistant')) continue;
    const content = entry.message?.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((part) => (part as { text?: string }).text ?? '').join('')
          : '';
    messages.push({ role, text });
  }
  return messages;
}

function capturing(): boolean {
  return process.env.BREAKERBAR_CAPTURE_FIXTURES === '1';
}

function fixtureDir(version: string): string {
  const dir = join(FIXTURES, `openclaw-${version}`, 'restart');
  mkdirSync(dir, { recursive: true });
  return dir;
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** A CLI run as a fixture: exit code and both streams, the machine's paths and ports left as they were. */
function cliRecord(result: CliResult) {
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

/** The lines of a restart BreakerBar may read: lifecycle subsystems only, no model traffic or session noise. */
function restartLogLines(entries: readonly GatewayLogEntry[]): string[] {
  const kept = new Set([
    'gateway',
    'gateway/admission',
    'gateway/shutdown',
    'main-session-restart-recovery',
    'restart',
  ]);
  return entries
    .filter((entry) => entry.subsystem !== null && kept.has(entry.subsystem))
    .filter((entry) => !/remote model catalog|update available|pre-warmed/.test(entry.message))
    .map((entry) => entry.raw);
}

function withoutIds(boot: BootRecord) {
  const { boot_id: _id, ...rest } = boot;
  return rest;
}
