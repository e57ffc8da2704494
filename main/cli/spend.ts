import { loadConfig } from '../core/config/index.js';
import { languageOf } from '../core/runtime/language.js';
import { systemZone } from '../core/spend/period.js';
import { spendQueries, spendReport } from '../core/spend/report.js';
import type { SpendReport, SpendRow } from '../core/spend/types.js';
import { Store } from '../core/store/db.js';
import type { Language } from '../words/i18n.js';
import { translator } from '../words/messages/index.js';
import { ApiClientError, connect } from './api-client.js';
import { type Command, stringOption, UsageError } from './command.js';

const SPANS = { today: 'today', week: 'week', month: 'month' } as const;
type Span = keyof typeof SPANS;
const BY = { provider: 'byProvider', model: 'byModel', agent: 'byAgent' } as const;
type By = keyof typeof BY;

export const spendCommand: Command = {
  name: 'spend',
  summary: 'Show calls, failures, tokens and cost; burn rates, budgets and quota windows',
  help: `Usage: breakerbar spend [--json] [--period today|week|month] [--by provider|model|agent] [--config FILE]

Calls (upstream requests), failures, tokens and cost (as the transcripts report
it) for today (since local midnight), the last 7 days or the last 30 days, by
provider, model or agent; then each provider's burn rate over the last hour, the
spend budgets (budgets.spend) and where they stand, and the quota windows
OpenClaw reports for the providers' plans.

Asks the running BreakerBar; when none runs, reads its database (read-only) and
shows no quota windows (those are read by the daemon).

Options:
  --json             Print the whole report (every period and breakdown) as JSON
  --period PERIOD    today (default), week (last 7 days) or month (last 30 days)
  --by KEY           provider (default), model or agent
  --config FILE      Config file naming the data directory
  -h, --help         Show this help
`,
  options: {
    json: { type: 'boolean' },
    period: { type: 'string' },
    by: { type: 'string' },
    config: { type: 'string' },
  },
  positionals: false,
  async run(args, io) {
    const period = choice('--period', stringOption(args, 'period') ?? 'today', Object.keys(SPANS)) as Span;
    const by = choice('--by', stringOption(args, 'by') ?? 'provider', Object.keys(BY)) as By;
    const loaded = loadConfig(stringOption(args, 'config'));
    const report = await fetchReport(loaded);
    if (args.values.json) {
      io.out(`${JSON.stringify(report, null, 2)}\n`);
      return 0;
    }
    const language = languageOf(loaded.config, process.env);
    io.out(renderSpend(report, { period, by, now: Date.now(), language }));
    return 0;
  },
};

function choice(flag: string, value: string, options: string[]): string {
  if (!options.includes(value)) throw new UsageError(`${flag} "${value}" is not one of ${options.join(', ')}`);
  return value;
}

/** From the running instance (with quota windows), else from the database alone. */
async function fetchReport(loaded: ReturnType<typeof loadConfig>): Promise<SpendReport> {
  try {
    return await connect(loaded).call('spend');
  } catch (error) {
    if (!(error instanceof ApiClientError) || !/no BreakerBar is running/.test(error.message)) throw error;
  }
  const store = Store.open(loaded.dbPath, { readonly: true });
  try {
    return spendReport(spendQueries(store), {
      now: Date.now(),
      zone: systemZone,
      budgets: loaded.config.budgets.spend,
      quota: [],
    });
  } finally {
    store.close();
  }
}

/** Right-aligns every column but the first (numbers read best aligned on their last digit). */
function columns(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export interface SpendView {
  period: Span;
  by: By;
  now: number;
  language: Language;
}

/** The report as the terminal shows it: one period's table, burn rates, budgets, quota windows. */
export function renderSpend(report: SpendReport, view: SpendView): string {
  const tr = translator(view.language);
  const { t } = tr;
  const span = report[SPANS[view.period]];
  const lines: string[] = [
    t('spend.heading', { span: t(`spend.span.${view.period}`), from: span.from, to: span.to }),
    '',
  ];
  if (span.total.calls === 0 && span.total.tokens === 0) {
    lines.push(t('spend.noCalls'));
  } else {
    const row = (r: SpendRow, key = r.key) => [
      key,
      tr.integer(r.calls),
      tr.integer(r.failures),
      tr.compact(r.tokens),
      tr.usd(r.cost),
    ];
    const header = [
      t(`spend.by.${view.by}`),
      t('spend.column.calls'),
      t('spend.column.failures'),
      t('spend.column.tokens'),
      t('spend.column.cost'),
    ];
    lines.push(columns([header, ...span[BY[view.by]].map((r) => row(r)), row(span.total, t('spend.total'))]));
  }

  lines.push('', t('spend.burn.heading'));
  if (report.burn.length === 0) lines.push(`  ${t('spend.burn.none')}`);
  for (const b of report.burn) lines.push(`  ${t('spend.burn.row', b)}`);

  lines.push('', t('spend.budgets.heading'));
  if (report.budgets.length === 0) lines.push(`  ${t('spend.budgets.none')}`);
  for (const b of report.budgets) {
    const crossed = b.crossed === null ? '' : ` — ${t('spend.budget.crossed', { share: b.crossed })}`;
    lines.push(`  ${t('spend.budget.row', b)}${crossed}`);
  }

  lines.push('', t('spend.quota.heading'));
  if (report.quota.length === 0) lines.push(`  ${t('spend.quota.none')}`);
  for (const q of report.quota) {
    const notes: string[] = [];
    if (q.exhausted) notes.push(t('spend.quota.exhausted'));
    if (q.resetsAt !== null && q.resetsAt > view.now)
      notes.push(t('spend.quota.resetsIn', { ms: q.resetsAt - view.now }));
    lines.push(`  ${t('spend.quota.row', q)}${notes.length > 0 ? `, ${notes.join(', ')}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
