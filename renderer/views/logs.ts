/**
 * Logs: every restart (reason, trigger, result, recovery time, command, exit
 * code, output), every notification with its delivery result, and the
 * watchdog's decisions, including each decision not to restart. The last week,
 * newest first.
 */
import type { ApiHistory } from '../../main/core/server/api-types.js';
import type { DecisionRow, NotificationRow, RestartRow } from '../../main/core/store/gateway-history.js';
import { restartsInLastHour } from '../describe.js';
import { type Child, fill, h, keepingFocus, live, RenderGate } from '../dom.js';
import { failureBox } from '../errors-ui.js';
import { clockTime, count, duration, inLast } from '../format.js';
import { renderLive } from '../ticker.js';
import { markTarget, type Target, type View, type ViewContext } from '../view.js';

const WEEK_MS = 7 * 86_400_000;
/** Decisions are many (one per check during a storm): the newest this many are listed. */
const MAX_DECISIONS = 200;

export class LogsView implements View {
  readonly key = 'logs' as const;
  readonly label = 'Logs';
  readonly panel = h('section', { class: 'view logs' });
  private readonly gate = new RenderGate(this.panel);
  readonly debounceMs = 1500;

  constructor(private readonly context: ViewContext) {}

  affectedBy(type: string): boolean {
    return type === 'restart' || type === 'decision' || type === 'notification';
  }

  async refresh(): Promise<void> {
    const now = Date.now();
    try {
      // One step per hour: only the rows are used here, the counts are the Errors view's.
      const history = await this.context.api.history({ from: now - WEEK_MS, to: now + 1000, stepSec: 3600 });
      this.gate.run(() => keepingFocus(this.panel, () => this.render(history, now)));
    } catch (error) {
      fill(this.panel, failureBox('Could not load the logs', error));
    }
  }

  /** The notification the link is about (same kind, nearest time), else the restart nearest that time. */
  reveal(target: Target): void {
    if (target.at === null) return;
    const at = target.at;
    const nearest = (rows: HTMLElement[]) =>
      rows.sort((a, b) => Math.abs(Number(a.dataset.ts) - at) - Math.abs(Number(b.dataset.ts) - at))[0];
    const notifications = [...this.panel.querySelectorAll<HTMLElement>('[data-testid="notification-log"] tr[data-ts]')];
    const sameKind = notifications.filter((row) => row.dataset.kind === target.kind);
    const restarts = [...this.panel.querySelectorAll<HTMLElement>('[data-testid="restart-log"] tr[data-ts]')];
    markTarget(nearest(sameKind) ?? (target.kind?.startsWith('restart') ? nearest(restarts) : undefined));
  }

  private render(history: ApiHistory, now: number): void {
    fill(
      this.panel,
      restartLog(history.restarts, now),
      notificationLog(history.notifications, now),
      decisionLog(history.decisions, now),
    );
    renderLive(this.panel, now);
  }
}

function table(
  caption: string,
  headings: string[],
  rows: HTMLTableRowElement[],
  empty: string,
  testId: string,
): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'muted', 'data-testid': `${testId}-empty` }, empty);
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { 'data-testid': testId },
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', null, h('tr', null, ...headings.map((heading) => h('th', { scope: 'col' }, heading)))),
      h('tbody', null, ...rows),
    ),
  );
}

function when(ts: number, now: number): HTMLElement {
  return h(
    'td',
    { class: 'when' },
    h('time', { datetime: new Date(ts).toISOString() }, clockTime(ts, now)),
    h('br'),
    h('small', null, live('ago', ts)),
  );
}

const cell = (...children: Child[]) => h('td', null, ...children);

function restartLog(restarts: readonly RestartRow[], now: number): HTMLElement {
  const newest = [...restarts].sort((a, b) => b.ts - a.ts);
  const rows = newest.map((r) =>
    h(
      'tr',
      { 'data-restart-id': r.id, 'data-result': r.result, 'data-ts': r.ts },
      when(r.ts, now),
      cell(r.trigger),
      cell(r.reason),
      cell(
        h('span', { class: `result result-${r.result.replace(/_/g, '-')}` }, r.result.replace(/_/g, ' ')),
        r.detail ? h('small', { class: 'detail' }, r.detail) : null,
      ),
      cell(r.recoveryMs === null ? '—' : duration(r.recoveryMs)),
      cell(
        r.command === null ? h('span', { class: 'muted' }, r.strategy ?? '—') : h('code', null, r.command.join(' ')),
        r.durationMs === null ? null : h('small', { class: 'detail' }, `ran ${duration(r.durationMs)}`),
      ),
      cell(r.exitCode === null ? '—' : String(r.exitCode)),
      cell(
        r.output
          ? h('details', { 'data-key': `output:${r.id}` }, h('summary', null, 'output'), h('pre', null, r.output))
          : '—',
      ),
    ),
  );
  const lastHour = restartsInLastHour(restarts, now);
  return h(
    'section',
    { class: 'block', 'aria-labelledby': 'restarts-heading' },
    h('h2', { id: 'restarts-heading' }, 'Restarts'),
    h(
      'p',
      { class: 'summary', 'data-testid': 'restart-summary' },
      `${inLast(lastHour, 'restart', 'hour')}; ${count(restarts.filter((r) => r.result !== 'dry_run').length, 'restart')} in the last week.`,
    ),
    table(
      'Gateway restarts, newest first',
      ['When', 'Trigger', 'Reason', 'Result', 'Recovery', 'Command', 'Exit', 'Output'],
      rows,
      'No restarts in the last week.',
      'restart-log',
    ),
  );
}

function notificationLog(notifications: readonly NotificationRow[], now: number): HTMLElement {
  const newest = [...notifications].sort((a, b) => b.ts - a.ts);
  const rows = newest.map((n) =>
    h(
      'tr',
      { 'data-ok': String(n.ok), 'data-ts': n.ts, 'data-kind': n.kind },
      when(n.ts, now),
      cell(n.kind.replace(/_/g, ' ')),
      cell(n.channel),
      cell(n.title, n.dep ? h('small', { class: 'detail' }, n.dep) : null),
      cell(
        n.ok
          ? h('span', { class: 'result result-ok' }, 'delivered')
          : h('span', { class: 'result result-failed' }, 'failed'),
        n.error ? h('small', { class: 'detail' }, n.error) : null,
      ),
    ),
  );
  const failed = notifications.filter((n) => !n.ok).length;
  return h(
    'section',
    { class: 'block', 'aria-labelledby': 'notifications-heading' },
    h('h2', { id: 'notifications-heading' }, 'Notifications'),
    h(
      'p',
      { class: 'summary' },
      `${count(notifications.length, 'notification')} in the last week${failed > 0 ? `, ${failed} failed` : ''}.`,
    ),
    table(
      'Notifications sent, newest first',
      ['When', 'Kind', 'Channel', 'Title', 'Delivery'],
      rows,
      'No notifications in the last week.',
      'notification-log',
    ),
  );
}

function decisionLog(decisions: readonly DecisionRow[], now: number): HTMLElement {
  const newest = [...decisions].sort((a, b) => b.ts - a.ts).slice(0, MAX_DECISIONS);
  const rows = newest.map((d) =>
    h(
      'tr',
      { 'data-decision': d.decision },
      when(d.ts, now),
      cell(d.source),
      cell(d.decision.replace(/_/g, ' ')),
      cell(d.reason),
      cell(d.dep ?? '—'),
    ),
  );
  return h(
    'section',
    { class: 'block', 'aria-labelledby': 'decisions-heading' },
    h('h2', { id: 'decisions-heading' }, 'Watchdog decisions'),
    h(
      'p',
      { class: 'summary' },
      decisions.length > newest.length
        ? `The newest ${newest.length} of ${count(decisions.length, 'decision')} in the last week.`
        : `${count(decisions.length, 'decision')} in the last week, including each decision not to restart.`,
    ),
    table(
      'Watchdog decisions, newest first',
      ['When', 'Source', 'Decision', 'Reason', 'Dependency'],
      rows,
      'No watchdog decisions in the last week.',
      'decision-log',
    ),
  );
}
