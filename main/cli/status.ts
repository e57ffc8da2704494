import { headline, headlineText } from '../api/headline.js';
import { nothingRead, placesLooked } from '../api/nothing-read.js';
import type { ApiStatus } from '../api/types.js';
import { loadConfig } from '../core/config/index.js';
import { languageOf } from '../core/runtime/language.js';
import { type Translator, translator } from '../words/messages/index.js';
import { connect } from './api-client.js';
import { type Command, displayWidth, stringOption, table } from './command.js';
import { incidentsLine } from './incidents.js';
import { decisionWords, probeWords } from './reason-words.js';

export const statusCommand: Command = {
  name: 'status',
  summary: 'Show the running instance: gateway health, watchdog, breakers',
  help: `Usage: breakerbar status [--json] [--config FILE]

Asks the running BreakerBar (daemon or app) through its local API: the
gateway's last health probe, the watchdog's state (paused, dry run, checks
counted, restart budget, last restart), each dependency's breaker, and the
cooldowns OpenClaw itself keeps on auth profiles (read from its state).

Options:
  --json           Print the API's status object
  --config FILE    Config file naming the data directory
  -h, --help       Show this help
`,
  options: { json: { type: 'boolean' }, config: { type: 'string' } },
  positionals: false,
  async run(args, io) {
    const loaded = loadConfig(stringOption(args, 'config'));
    const client = connect(loaded);
    const status = await client.call('status');
    const t = translator(languageOf(loaded.config, process.env));
    io.out(args.values.json ? `${JSON.stringify(status, null, 2)}\n` : renderStatus(status, Date.now(), t));
    return 0;
  },
};

const EN = translator('en');

/** Section labels take this many columns (continuation lines are indented as far). */
const LABEL_COLUMNS = 11;
const INDENT = ' '.repeat(LABEL_COLUMNS);

/** "Gateway    ", "网关       ": a label padded to the column, by terminal width (a CJK character takes two). */
function labelled(label: string, text: string): string {
  return `${label}${' '.repeat(Math.max(1, LABEL_COLUMNS - displayWidth(label)))}${text}`;
}

/**
 * OpenClaw's own cooldowns, one line per profile and window, and any database
 * whose state could not be read: nothing at all when there is neither.
 */
export function cooldownLines(status: ApiStatus, now: number, t: Translator = EN): string[] {
  const state = status.openclawCooldowns;
  if (!state) return [];
  const lines: string[] = [];
  for (const c of state.active) {
    lines.push(
      t.t('cli.status.cooldown', {
        kind: c.kind,
        dep: c.dep,
        leftMs: c.until - now,
        why: c.reason,
        profile: c.profile,
        errors: c.errorCount,
      }),
    );
  }
  for (const db of state.databases) {
    if (db.error !== null) lines.push(t.t('cli.status.cooldownUnread', { path: db.path, error: db.error }));
  }
  return lines.length > 0 ? ['', ...lines] : [];
}

/** The gateway's line: its address, state, since when, and the last probe. */
function gatewayLines(status: ApiStatus, now: number, t: Translator): string[] {
  const gateway = status.gateway;
  if (!gateway) return [];
  const last = gateway.last;
  const state =
    last === null ? t.t('cli.status.gateway.notProbed') : last.ok ? t.t('cli.status.gateway.up') : last.class;
  const since = last?.ok && gateway.upSince ? t.t('cli.status.gateway.upFor', { ms: now - gateway.upSince }) : '';
  const down =
    !last?.ok && gateway.downSince ? t.t('cli.status.gateway.downSince', { since: gateway.downSince, now }) : '';
  const probe = last
    ? t.t('cli.status.gateway.probe', { detail: probeWords(last.detail, last.found, t), ts: last.ts, now })
    : '';
  return [labelled(t.t('cli.status.label.gateway'), `${gateway.baseUrl}: ${state}${since}${down}${probe}`)];
}

/** The watchdog: its mode and counters, what it is doing, why it would not act, its last restart. */
function watchdogLines(status: ApiStatus, now: number, t: Translator): string[] {
  const w = status.watchdog;
  if (!w) return [];
  const lines: string[] = [];
  const mode = !w.enabled
    ? t.t('cli.status.watchdog.disabled')
    : w.paused
      ? w.pausedUntil
        ? t.t('cli.status.watchdog.pausedUntil', { until: w.pausedUntil, now })
        : t.t('cli.status.watchdog.pausedUntilResumed')
      : w.dryRun
        ? t.t('cli.status.watchdog.dryRun')
        : t.t('cli.status.watchdog.active');
  lines.push(
    labelled(
      t.t('cli.status.label.watchdog'),
      t.t('cli.status.watchdog.counters', {
        mode,
        checks: w.consecutiveChecks,
        threshold: w.threshold,
        stormRestart: w.stormRestart,
        failures: w.healthFailures,
        failuresMax: w.healthFailuresBeforeRestart,
        left: w.budgetRemaining,
        max: w.maxRestartsPerHour,
      }),
    ),
  );
  const more = (text: string) => lines.push(`${INDENT}${text}`);
  if (w.restartInFlight)
    more(
      t.t('cli.status.watchdog.restartRunning', {
        trigger: w.restartInFlight.trigger,
        since: w.restartInFlight.since,
        now,
      }),
    );
  if (w.recovering) {
    const rec = w.recovering;
    const key = rec.pending
      ? 'cli.status.watchdog.restartPending'
      : rec.trigger === 'gateway'
        ? 'cli.status.watchdog.restartedItself'
        : 'cli.status.watchdog.verifying';
    more(t.t(key, { since: rec.since, now }));
  }
  if (w.storm && !w.deferral) more(t.t('cli.status.watchdog.storm', { since: w.storm.since, now }));
  if (w.deferral)
    more(
      t.t('cli.status.watchdog.held', {
        stormSince: w.storm?.since ?? null,
        dep: w.deferral.dep,
        until: w.deferral.until,
        now,
        cause: w.deferral.cause,
      }),
    );
  const ownerBlock = w.verified?.ownerBlock;
  if (w.enabled && ownerBlock) more(t.t('cli.status.watchdog.ownerBlocked', { rule: ownerBlock.rule }));
  else if (w.enabled && !w.seenHealthy) more(t.t('cli.status.watchdog.neverHealthy'));
  else if (w.enabled && w.verified && !w.verified.runnable)
    more(t.t('cli.status.watchdog.notRunnable', { problem: w.verified.problem }));
  if (w.diverging) more(t.t('cli.status.watchdog.diverging'));
  const r = w.lastRestart;
  if (r) {
    lines.push(
      t.t('cli.status.lastRestart', {
        ts: r.ts,
        now,
        trigger: r.trigger,
        reason: decisionWords(r.reason, r.why, t),
        result: r.result,
        recoveryMs: r.recoveryMs,
      }),
    );
  }
  lines.push(t.t('cli.status.restartsVia', { description: w.strategy.description, problem: w.strategy.problem }));
  const owner = w.verified?.owner;
  if (owner) {
    const who = owner.owner === 'external-supervisor' ? owner.supervisor : owner.name;
    lines.push(t.t('cli.status.owner', { owner: owner.owner, who, pid: owner.pid }));
  }
  return lines;
}

/** One row per dependency's breaker, with OpenClaw's cooldown beside it when any is held. */
function breakerLines(status: ApiStatus, now: number, t: Translator): string[] {
  if (nothingRead(status)) return ['', t.t('cli.status.nothingRead', { places: placesLooked(status) })];
  if (status.breakers.length === 0) return ['', t.t('cli.status.noDependencies')];
  const held = status.breakers.some((b) => b.openclawCooldown !== null);
  const rows: Array<Array<string | number>> = [
    [
      t.t('cli.status.col.dependency'),
      t.t('cli.status.col.state'),
      t.t('cli.status.col.calls'),
      t.t('cli.status.col.failed'),
      t.t('cli.status.col.until'),
      ...(held ? [t.t('cli.status.col.cooldown')] : []),
    ],
  ];
  for (const b of status.breakers) {
    const until = b.retryAfterUntil ?? b.openUntil;
    const cooldown = b.openclawCooldown;
    rows.push([
      b.dep,
      t.t('cli.status.breaker.state', { state: b.state, forced: Boolean(b.forced) }),
      b.window.calls,
      t.percent(b.window.failureRate),
      b.state !== 'closed' && until ? t.t('cli.status.breaker.until', { until, now }) : '',
      ...(held
        ? [
            cooldown
              ? t.t('cli.status.breaker.cooldown', {
                  leftMs: cooldown.until - now,
                  why: cooldown.reason ?? cooldown.kind,
                })
              : '',
          ]
        : []),
    ]);
  }
  return ['', table(rows)];
}

function notificationLines(status: ApiStatus, t: Translator): string[] {
  if (status.notifications.length === 0) return [];
  const channels = status.notifications.map((n) => `${n.name} (${n.target})`);
  return ['', t.t('cli.status.notifications', { channels })];
}

/**
 * `breakerbar status` as text: the headline (what is wrong, what is being done, until when) first, then
 * one section per part, each from its own function, in the reader's language.
 */
export function renderStatus(status: ApiStatus, now: number, t: Translator = EN): string {
  const lines: string[] = [
    headlineText(headline(status, now), t),
    '',
    t.t('cli.status.version', { version: status.version }),
    ...gatewayLines(status, now, t),
    ...watchdogLines(status, now, t),
    ...(status.incidents ? [incidentsLine(status.incidents, t.language)] : []),
    ...breakerLines(status, now, t),
    ...cooldownLines(status, now, t),
    ...notificationLines(status, t),
  ];
  return `${lines.join('\n')}\n`;
}
