import { loadConfig } from '../core/config/index.js';
import type { ApiStatus } from '../core/server/api-types.js';
import { connect } from './api-client.js';
import { type Command, stringOption, table } from './command.js';
import { incidentsLine } from './incidents.js';
import { duration, when } from './time-words.js';

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
    const client = connect(loadConfig(stringOption(args, 'config')));
    const status = await client.get<ApiStatus>('/api/status');
    io.out(args.values.json ? `${JSON.stringify(status, null, 2)}\n` : renderStatus(status, Date.now()));
    return 0;
  },
};

/**
 * OpenClaw's own cooldowns, one line per profile and window, and any database
 * whose state could not be read: nothing at all when there is neither.
 */
export function cooldownLines(status: ApiStatus, now: number): string[] {
  const state = status.openclawCooldowns;
  if (!state) return [];
  const lines: string[] = [];
  for (const c of state.active) {
    const why = c.reason ?? 'no reason recorded';
    const counted =
      c.errorCount !== null && c.errorCount > 0 ? `, ${c.errorCount} error${c.errorCount === 1 ? '' : 's'}` : '';
    lines.push(`OpenClaw ${c.kind} ${c.dep}: ${duration(c.until - now)} left (${why}), profile ${c.profile}${counted}`);
  }
  for (const db of state.databases) {
    if (db.error !== null) lines.push(`OpenClaw cooldown state ${db.path} not fully read: ${db.error}`);
  }
  return lines.length > 0 ? ['', ...lines] : [];
}

export function renderStatus(status: ApiStatus, now: number): string {
  const lines: string[] = [`BreakerBar ${status.version}`];
  const gateway = status.gateway;
  if (gateway) {
    const last = gateway.last;
    const state = last === null ? 'not probed yet' : last.ok ? 'up' : last.class;
    const since = last?.ok && gateway.upSince ? `, up for ${duration(now - gateway.upSince)}` : '';
    const down = !last?.ok && gateway.downSince ? `, since ${when(gateway.downSince, now)}` : '';
    lines.push(
      `Gateway    ${gateway.baseUrl}: ${state}${since}${down}${last ? ` (${last.detail}, ${when(last.ts, now)})` : ''}`,
    );
  }
  const w = status.watchdog;
  if (w) {
    const mode = !w.enabled
      ? 'disabled (watch only)'
      : w.paused
        ? `paused${w.pausedUntil ? ` until ${new Date(w.pausedUntil).toLocaleTimeString()}` : ' until resumed'}`
        : w.dryRun
          ? 'dry run (decides, never restarts)'
          : 'active';
    lines.push(
      `Watchdog   ${mode}; 429 checks ${w.consecutiveChecks}/${w.threshold}, dead probes ${w.healthFailures}/${w.healthFailuresBeforeRestart}, restart budget ${w.budgetRemaining}/${w.maxRestartsPerHour} this hour`,
    );
    if (w.restartInFlight)
      lines.push(
        `           restart running (${w.restartInFlight.trigger}) since ${when(w.restartInFlight.since, now)}`,
      );
    if (w.recovering) {
      const rec = w.recovering;
      lines.push(
        rec.pending
          ? `           restart pending since ${when(rec.since, now)}: OpenClaw restarts once its work has drained`
          : rec.trigger === 'gateway'
            ? `           the gateway restarted itself ${when(rec.since, now)}: waiting for it to start`
            : `           verifying recovery since ${when(rec.since, now)}: waiting for /startupz to say started`,
      );
    }
    if (w.storm && !w.deferral) lines.push(`           429 storm since ${when(w.storm.since, now)}`);
    if (w.deferral)
      lines.push(
        `           429 storm${w.storm ? ` since ${when(w.storm.since, now)}` : ''}: restart held for ${w.deferral.dep} until ${new Date(w.deferral.until).toLocaleTimeString()} (${w.deferral.cause === 'cooldown' ? "OpenClaw's cooldown" : 'Retry-After'})`,
      );
    if (w.enabled && !w.seenHealthy)
      lines.push('           no automatic restart: the gateway has not been seen healthy since BreakerBar started');
    else if (w.enabled && w.verified && !w.verified.runnable)
      lines.push(`           no automatic restart: ${w.verified.problem ?? 'the restart strategy cannot run'}`);
    if (w.diverging) lines.push('           ALARM: health probes green while a breaker stays open');
    const r = w.lastRestart;
    if (r) {
      const recovery = r.recoveryMs !== null ? `, recovered in ${duration(r.recoveryMs)}` : '';
      lines.push(`Last restart ${when(r.ts, now)} (${r.trigger}: ${r.reason}): ${r.result}${recovery}`);
    }
    lines.push(`Restarts via ${w.strategy.description ?? `nothing: ${w.strategy.problem}`}`);
  }
  if (status.incidents) lines.push(incidentsLine(status.incidents, status.language));
  if (status.breakers.length === 0) {
    lines.push('', 'No dependencies seen yet.');
  } else {
    const held = status.breakers.some((b) => b.openclawCooldown !== null);
    const rows: Array<Array<string | number>> = [
      ['dependency', 'state', 'calls', 'failed', 'until', ...(held ? ['OpenClaw cooldown'] : [])],
    ];
    for (const b of status.breakers) {
      const until = b.retryAfterUntil ?? b.openUntil;
      const cooldown = b.openclawCooldown;
      rows.push([
        b.dep,
        b.forced ? `${b.state} (forced)` : b.state,
        b.window.calls,
        `${Math.round(b.window.failureRate * 100)}%`,
        b.state !== 'closed' && until ? `in ${duration(until - now)}` : '',
        ...(held
          ? [cooldown ? `${duration(cooldown.until - now)} left (${cooldown.reason ?? cooldown.kind})` : '']
          : []),
      ]);
    }
    lines.push('', table(rows));
  }
  lines.push(...cooldownLines(status, now));
  if (status.notifications.length > 0) {
    lines.push('', `Notifications: ${status.notifications.map((n) => `${n.name} (${n.target})`).join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}
