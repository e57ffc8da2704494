/**
 * `breakerbar incidents`: the incidents the running BreakerBar recorded (a
 * table, newest first), or one incident with its timeline. Asks the local API,
 * like `status`; words come from the message catalogue (area `incidents`).
 */
import { loadConfig } from '../core/config/index.js';
import type { IncidentDetail, IncidentList, IncidentSummary, IncidentsStatus } from '../core/incidents/types.js';
import { languageOf } from '../core/runtime/language.js';
import type { Language } from '../words/i18n.js';
import { type Translator, translator } from '../words/messages/index.js';
import { connect } from './api-client.js';
import { type Command, positiveInt, stringOption, table, UsageError } from './command.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

export const incidentsCommand: Command = {
  name: 'incidents',
  summary: 'List the incidents BreakerBar recorded, or show one with its timeline',
  help: `Usage: breakerbar incidents [<id>] [--json] [--limit N] [--config FILE]

An incident opens when something needs a human's eye (a breaker out of closed
for a while, the gateway dead or hung, the restart budget spent, a source that
cannot read, an OpenClaw cooldown that does not end, an exhausted quota) and
closes when it is over. Without an id: one line per incident, newest first
(id, opened, duration or "open", severity, causes, dependencies, turns lost,
restarts). With an id: that incident and its timeline. Asks the running
BreakerBar through its local API.

Options:
  --json           Print the API's JSON
  --limit N        At most N incidents (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})
  --config FILE    Config file naming the data directory
  -h, --help       Show this help
`,
  options: { json: { type: 'boolean' }, limit: { type: 'string' }, config: { type: 'string' } },
  positionals: true,
  async run(args, io) {
    if (args.positionals.length > 1) throw new UsageError('give at most one incident id');
    const rawId = args.positionals[0];
    if (rawId !== undefined && !/^[1-9]\d{0,15}$/.test(rawId)) {
      throw new UsageError(`"${rawId}" is not an incident id (a positive whole number)`);
    }
    const limit = positiveInt('--limit', stringOption(args, 'limit')) ?? DEFAULT_LIMIT;
    if (limit > MAX_LIMIT) throw new UsageError(`--limit is at most ${MAX_LIMIT}`);
    const loaded = loadConfig(stringOption(args, 'config'));
    const language = languageOf(loaded.config, process.env);
    const client = connect(loaded);
    const now = Date.now();
    if (rawId !== undefined) {
      const detail = await client.call('incident', { id: Number(rawId) });
      io.out(args.values.json ? `${JSON.stringify(detail, null, 2)}\n` : renderIncident(detail, now, language));
      return 0;
    }
    const list = await client.call('incidents', { limit });
    io.out(args.values.json ? `${JSON.stringify(list, null, 2)}\n` : renderIncidents(list, now, language));
    return 0;
  },
};

function causesOf(incident: IncidentSummary, t: Translator): string {
  return incident.causes.map((cause) => t.t(`incidents.cause.${cause}`)).join(', ');
}

/** The incidents as a table, newest first. */
export function renderIncidents(list: IncidentList, now: number, language: Language): string {
  const t = translator(language);
  if (list.incidents.length === 0) return `${t.t('incidents.noneRecorded')}\n`;
  const rows: Array<Array<string | number>> = [
    [
      t.t('incidents.column.id'),
      t.t('incidents.column.opened'),
      t.t('incidents.column.duration'),
      t.t('incidents.column.severity'),
      t.t('incidents.column.causes'),
      t.t('incidents.column.deps'),
      t.t('incidents.column.turnsLost'),
      t.t('incidents.column.restarts'),
    ],
  ];
  for (const incident of list.incidents) {
    rows.push([
      incident.id,
      t.dateTime(incident.openedAt),
      incident.closedAt === null
        ? `${t.t('incidents.stillOpen')} (${t.duration(now - incident.openedAt)})`
        : t.duration(incident.closedAt - incident.openedAt),
      t.t(`incidents.severity.${incident.severity}`),
      causesOf(incident, t),
      incident.deps.join(', '),
      incident.turnsLost,
      incident.restarts,
    ]);
  }
  return `${table(rows)}\n`;
}

/** One incident: what, when, what it cost, and its timeline. */
export function renderIncident(incident: IncidentDetail, now: number, language: Language): string {
  const t = translator(language);
  const lines = [
    t.t('incidents.heading', {
      id: incident.id,
      severity: t.t(`incidents.severity.${incident.severity}`),
      causes: causesOf(incident, t),
    }),
    t.t('incidents.span', { openedAt: incident.openedAt, closedAt: incident.closedAt, now }),
    t.t('incidents.cost', incident),
    t.t('incidents.touched', { deps: incident.deps, agents: incident.agents }),
    '',
    `${t.t('incidents.timeline')}:`,
  ];
  for (const event of incident.timeline) {
    const dep = event.dep ? ` ${event.dep}` : '';
    lines.push(`  ${t.dateTime(event.ts)}  ${event.kind.padEnd(12)}${dep}  ${event.text}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The incidents line of `breakerbar status`: how many are open, and the mean time to recovery of each of the
 * last four weeks that had a closed incident (`Incidents  1 open · MTTR 7 min this week, 12 min last week`).
 */
export function incidentsLine(status: IncidentsStatus, language: Language): string {
  const t = translator(language);
  const weeks = status.mttrByWeek
    .map((week, weeksAgo) => ({ weeksAgo, ms: week.mttrMs }))
    .filter((week): week is { weeksAgo: number; ms: number } => week.ms !== null);
  const mttr = weeks.length > 0 ? t.t('incidents.mttr', { weeks }) : t.t('incidents.noneClosed');
  return `${t.t('incidents.label').padEnd(10)} ${t.t('incidents.openCount', { n: status.open.length })} · ${mttr}`;
}
