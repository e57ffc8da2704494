/**
 * Logs: every restart (reason, trigger, result, recovery time, command, exit
 * code, output), the watchdog's decisions (including each decision not to
 * restart), every notification with its delivery result, the breakers'
 * transitions and the gateway's health probes. The last week, newest first.
 *
 * Probes and the watchdog's nothing-to-do decisions come by the thousand: runs
 * of the same result are one row each ("healthy ×240"), so what changed stands
 * out. A filter by kind and by level narrows the page; it outlives refreshes.
 */

import type {
  ApiHistory,
  DecisionRow,
  NotificationRow,
  ProbeRow,
  RestartRow,
  Transition,
} from '../../main/api/types.js';
import type { Translator } from '../../main/words/messages/index.js';
import { decisionWhyOf, probeDetailOf, restartsInLastHour, whyOf } from '../describe.js';
import { type Child, fill, h, keepingFocus, live, RenderGate } from '../dom.js';
import { failureBox } from '../errors-ui.js';
import {
  filterCounts,
  isDefaultFilter,
  LEVEL_FILTERS,
  type LevelFilter,
  LOG_KINDS,
  type LogFilter,
  type LogKind,
  type LogSection,
  logSections,
  type Run,
  SHOW_ALL,
} from '../log-entries.js';
import { renderLive } from '../ticker.js';
import { markTarget, type Target, type View, type ViewContext } from '../view.js';
import { wordOr } from '../words.js';

const WEEK_MS = 7 * 86_400_000;
/** Rows listed per kind after folding (a week of a flapping gateway is still thousands of changes). */
const MAX_ROWS = 200;

type Transitioned = Transition & { at: number };

export class LogsView implements View {
  readonly key = 'logs' as const;
  /** Read by the shell at each render, so a language switch relabels the tab. */
  get label(): string {
    return this.context.t.t('views.logs.tab');
  }
  readonly panel = h('section', { class: 'view logs' });
  private readonly gate = new RenderGate(this.panel);
  readonly debounceMs = 1500;
  private filter: LogFilter = SHOW_ALL;
  private last: { history: ApiHistory; now: number } | null = null;

  constructor(private readonly context: ViewContext) {}

  affectedBy(type: string): boolean {
    return type === 'restart' || type === 'decision' || type === 'notification' || type === 'transition';
  }

  async refresh(): Promise<void> {
    const now = Date.now();
    const { t } = this.context;
    try {
      // One step per hour: only the rows are used here, the counts are the Errors view's.
      const history = await this.context.api.history({ from: now - WEEK_MS, to: now + 1000, stepSec: 3600 });
      this.last = { history, now };
      this.gate.run(() => this.rerender());
    } catch (error) {
      fill(this.panel, failureBox(t.t('views.logs.loadFailed'), error, t));
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

  private setFilter(filter: LogFilter): void {
    this.filter = filter;
    this.rerender();
  }

  private rerender(): void {
    const last = this.last;
    if (last) keepingFocus(this.panel, () => this.render(last.history, last.now));
  }

  private render(history: ApiHistory, now: number): void {
    const { t } = this.context;
    const sections = logSections(history, this.filter.level);
    const blocks: Record<LogKind, () => HTMLElement> = {
      restarts: () => restartLog(t, sections.restarts, history.restarts, now),
      decisions: () => decisionLog(t, sections.decisions, now),
      notifications: () => notificationLog(t, sections.notifications, history.notifications, now),
      transitions: () => transitionLog(t, sections.transitions, now),
      probes: () => probeLog(t, sections.probes, history.probes, now),
    };
    fill(
      this.panel,
      this.filterForm(filterCounts(sections, this.filter)),
      ...LOG_KINDS.filter((kind) => this.filter.kinds.has(kind)).map((kind) => blocks[kind]()),
    );
    renderLive(this.panel, now);
  }

  /** Native checkboxes and radios in fieldsets: Tab, Space and the arrows work as everywhere else. */
  private filterForm(counts: { shown: number; total: number }): HTMLElement {
    const { t } = this.context;
    const kinds = h('fieldset', { class: 'filter-kinds' }, h('legend', null, t.t('views.logs.filter.kinds')));
    for (const kind of LOG_KINDS) {
      const input = h('input', {
        type: 'checkbox',
        id: `log-kind-${kind}`,
        value: kind,
        checked: this.filter.kinds.has(kind),
        'data-key': `log-kind-${kind}`,
      });
      input.addEventListener('change', () => {
        const next = new Set(this.filter.kinds);
        if (input.checked) next.add(kind);
        else next.delete(kind);
        this.setFilter({ ...this.filter, kinds: next });
      });
      kinds.append(h('label', { for: input.id, class: 'chip' }, input, ` ${kindWord(t, kind)}`));
    }
    const levels = h('fieldset', { class: 'filter-level' }, h('legend', null, t.t('views.logs.filter.level')));
    for (const level of LEVEL_FILTERS) {
      const input = h('input', {
        type: 'radio',
        name: 'log-level',
        id: `log-level-${level}`,
        value: level,
        checked: this.filter.level === level,
        'data-key': `log-level-${level}`,
      });
      input.addEventListener('change', () => {
        if (input.checked) this.setFilter({ ...this.filter, level: level as LevelFilter });
      });
      levels.append(h('label', { for: input.id, class: 'chip' }, input, ` ${levelWord(t, level)}`));
    }
    const shownKinds = LOG_KINDS.filter((kind) => this.filter.kinds.has(kind)).map((kind) => kindWord(t, kind));
    const reset = isDefaultFilter(this.filter)
      ? null
      : h('button', { type: 'button', class: 'link', 'data-key': 'log-filter-reset' }, t.t('views.logs.filter.reset'));
    reset?.addEventListener('click', () => this.setFilter(SHOW_ALL));
    return h(
      'form',
      { class: 'log-filter', 'aria-label': t.t('views.logs.filter.label'), 'data-testid': 'log-filter' },
      kinds,
      levels,
      h(
        'p',
        { class: 'filter-state', role: 'status', 'data-testid': 'log-filter-state' },
        t.t('views.logs.filter.state', {
          kinds: shownKinds,
          level: levelWord(t, this.filter.level),
          shown: counts.shown,
          total: counts.total,
        }),
        reset ? ' ' : null,
        reset,
      ),
    );
  }
}

const kindWord = (t: Translator, kind: LogKind) => wordOr(t, `views.logs.kind.${kind}`, kind);
const levelWord = (t: Translator, level: LevelFilter) => wordOr(t, `views.logs.filter.level.${level}`, level);
const spaced = (value: string) => value.replace(/_/g, ' ');

/** The rows as a table; with none, the empty message (null when the level filter hid them: the block says so). */
function table(
  caption: string,
  headings: string[],
  rows: HTMLTableRowElement[],
  empty: string | null,
  testId: string,
): HTMLElement | null {
  if (rows.length === 0)
    return empty === null ? null : h('p', { class: 'muted', 'data-testid': `${testId}-empty` }, empty);
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

/** A time in a row: the time of day today, else date and time. */
function at(t: Translator, ts: number, now: number): string {
  return new Date(ts).toDateString() === new Date(now).toDateString() ? t.clock(ts) : t.dateTime(ts);
}

/** When a row happened; for a run, the span from its oldest to its newest record. */
function when(t: Translator, newest: number, now: number, oldest = newest): HTMLElement {
  const from = at(t, oldest, now);
  const to = at(t, newest, now);
  return h(
    'td',
    { class: 'when' },
    h('time', { datetime: new Date(newest).toISOString() }, from === to ? to : t.t('views.logs.span', { from, to })),
    h('br'),
    h('small', null, live('ago', newest)),
  );
}

const cell = (...children: Child[]) => h('td', null, ...children);

/** The section for one kind: heading, summary, the rows, and how many the level filter hid. */
function block(
  t: Translator,
  kind: LogKind,
  heading: string,
  summary: Child,
  shown: LogSection<unknown>,
  table: HTMLElement | null,
): HTMLElement {
  const hidden = shown.total - shown.runs.length;
  return h(
    'section',
    { class: 'block', 'aria-labelledby': `${kind}-heading`, 'data-kind': kind },
    h('h2', { id: `${kind}-heading` }, heading),
    summary,
    table,
    hidden > 0 ? h('p', { class: 'muted hidden-rows' }, t.t('views.logs.filter.hidden', { n: hidden })) : null,
  );
}

function restartLog(
  t: Translator,
  section: LogSection<RestartRow>,
  all: readonly RestartRow[],
  now: number,
): HTMLElement {
  const rows = section.runs
    .slice(0, MAX_ROWS)
    .map(({ newest: r, level }) =>
      h(
        'tr',
        { 'data-restart-id': r.id, 'data-result': r.result, 'data-ts': r.ts, 'data-level': level },
        when(t, r.ts, now),
        cell(wordOr(t, `views.logs.trigger.${r.trigger}`, r.trigger)),
        cell(decisionWhyOf(r, t)),
        cell(
          h(
            'span',
            { class: `result result-${r.result.replace(/_/g, '-')}` },
            wordOr(t, `views.logs.result.${r.result}`, spaced(r.result)),
          ),
          r.detail
            ? h(
                'small',
                { class: 'detail' },
                r.detailWhy ? decisionWhyOf({ reason: r.detail, why: r.detailWhy }, t) : r.detail,
              )
            : null,
        ),
        cell(r.recoveryMs === null ? t.t('views.none') : t.duration(r.recoveryMs)),
        cell(
          r.command === null
            ? h('span', { class: 'muted' }, r.strategy ?? t.t('views.none'))
            : h('code', null, r.command.join(' ')),
          r.durationMs === null ? null : h('small', { class: 'detail' }, t.t('views.logs.ran', { ms: r.durationMs })),
        ),
        cell(r.exitCode === null ? t.t('views.none') : String(r.exitCode)),
        cell(
          r.output
            ? h(
                'details',
                { 'data-key': `output:${r.id}` },
                h('summary', null, t.t('views.logs.output')),
                h('pre', null, r.output),
              )
            : t.t('views.none'),
        ),
      ),
    );
  const summary = h(
    'p',
    { class: 'summary', 'data-testid': 'restart-summary' },
    t.t('views.logs.restarts.summary', {
      hour: restartsInLastHour(all, now),
      week: all.filter((r) => r.result !== 'dry_run').length,
    }),
  );
  return block(
    t,
    'restarts',
    t.t('views.logs.restarts.heading'),
    summary,
    section,
    table(
      t.t('views.logs.restarts.caption'),
      [
        t.t('views.logs.col.when'),
        t.t('views.logs.col.trigger'),
        t.t('views.logs.col.reason'),
        t.t('views.logs.col.result'),
        t.t('views.logs.col.recovery'),
        t.t('views.logs.col.command'),
        t.t('views.logs.col.exit'),
        t.t('views.logs.col.output'),
      ],
      rows,
      section.total === 0 ? t.t('views.logs.restarts.empty') : null,
      'restart-log',
    ),
  );
}

function notificationLog(
  t: Translator,
  section: LogSection<NotificationRow>,
  all: readonly NotificationRow[],
  now: number,
): HTMLElement {
  const rows = section.runs
    .slice(0, MAX_ROWS)
    .map(({ newest: n, level }) =>
      h(
        'tr',
        { 'data-ok': String(n.ok), 'data-ts': n.ts, 'data-kind': n.kind, 'data-level': level },
        when(t, n.ts, now),
        cell(wordOr(t, `views.logs.notice.${n.kind}`, spaced(n.kind))),
        cell(n.channel),
        cell(n.title, n.dep ? h('small', { class: 'detail' }, n.dep) : null),
        cell(
          n.ok
            ? h('span', { class: 'result result-ok' }, t.t('views.logs.delivered'))
            : h('span', { class: 'result result-failed' }, t.t('views.logs.failed')),
          n.error ? h('small', { class: 'detail' }, n.error) : null,
        ),
      ),
    );
  return block(
    t,
    'notifications',
    t.t('views.logs.notifications.heading'),
    h(
      'p',
      { class: 'summary' },
      t.t('views.logs.notifications.summary', { n: section.records, failed: all.filter((n) => !n.ok).length }),
    ),
    section,
    table(
      t.t('views.logs.notifications.caption'),
      [
        t.t('views.logs.col.when'),
        t.t('views.logs.col.kind'),
        t.t('views.logs.col.channel'),
        t.t('views.logs.col.title'),
        t.t('views.logs.col.delivery'),
      ],
      rows,
      section.total === 0 ? t.t('views.logs.notifications.empty') : null,
      'notification-log',
    ),
  );
}

function decisionLog(t: Translator, section: LogSection<DecisionRow>, now: number): HTMLElement {
  const listed = section.runs.slice(0, MAX_ROWS);
  const rows = listed.map(({ newest: d, oldest, rows: all, level }) =>
    h(
      'tr',
      { 'data-decision': d.decision, 'data-count': all.length, 'data-level': level, 'data-ts': d.ts },
      when(t, d.ts, now, oldest.ts),
      cell(wordOr(t, `views.logs.source.${d.source}`, d.source)),
      cell(
        wordOr(t, `views.logs.decision.${d.decision}`, spaced(d.decision)),
        all.length > 1 ? h('span', { class: 'times' }, ` ${t.t('views.logs.times', { n: all.length })}`) : null,
      ),
      cell(decisionWhyOf(d, t)),
      cell(d.dep ?? t.t('views.none')),
    ),
  );
  return block(
    t,
    'decisions',
    t.t('views.logs.decisions.heading'),
    h(
      'p',
      { class: 'summary' },
      t.t('views.logs.decisions.summary', { n: section.records, rows: section.total }),
      section.runs.length > listed.length ? ` ${t.t('views.logs.decisions.newest', { shown: listed.length })}` : null,
    ),
    section,
    table(
      t.t('views.logs.decisions.caption'),
      [
        t.t('views.logs.col.when'),
        t.t('views.logs.col.source'),
        t.t('views.logs.col.decision'),
        t.t('views.logs.col.reason'),
        t.t('views.logs.col.dependency'),
      ],
      rows,
      section.total === 0 ? t.t('views.logs.decisions.empty') : null,
      'decision-log',
    ),
  );
}

function transitionLog(t: Translator, section: LogSection<Transitioned>, now: number): HTMLElement {
  const state = (s: string) => wordOr(t, `common.state.${s}`, s);
  const rows = section.runs
    .slice(0, MAX_ROWS)
    .map(({ newest: x, level }) =>
      h(
        'tr',
        { 'data-to': x.to, 'data-dep': x.dep, 'data-level': level, 'data-ts': x.at },
        when(t, x.at, now),
        cell(x.dep),
        cell(`${state(x.from)} → ${state(x.to)}`),
        cell(whyOf(x, t)),
      ),
    );
  return block(
    t,
    'transitions',
    t.t('views.logs.transitions.heading'),
    h('p', { class: 'summary' }, t.t('views.logs.transitions.summary', { n: section.records })),
    section,
    table(
      t.t('views.logs.transitions.caption'),
      [
        t.t('views.logs.col.when'),
        t.t('views.logs.col.dependency'),
        t.t('views.logs.col.change'),
        t.t('views.logs.col.reason'),
      ],
      rows,
      section.total === 0 ? t.t('views.logs.transitions.empty') : null,
      'transition-log',
    ),
  );
}

function probeWord(t: Translator, status: string): string {
  const http = /^http_(\d+)$/.exec(status);
  if (http) return t.t('views.logs.probe.http', { code: http[1]! });
  return wordOr(t, `views.logs.probe.${status}`, spaced(status));
}

function latency(t: Translator, run: Run<ProbeRow>): string {
  const values = run.rows.map((p) => p.latencyMs).filter((v): v is number => v !== null);
  if (values.length === 0) return t.t('views.none');
  return t.t('views.logs.latency', { min: Math.min(...values), max: Math.max(...values) });
}

function probeLog(t: Translator, section: LogSection<ProbeRow>, all: readonly ProbeRow[], now: number): HTMLElement {
  const rows = section.runs.slice(0, MAX_ROWS).map((run) =>
    h(
      'tr',
      {
        'data-status': run.newest.status,
        'data-count': run.rows.length,
        'data-level': run.level,
        'data-ts': run.newest.ts,
      },
      when(t, run.newest.ts, now, run.oldest.ts),
      cell(h('span', { class: `result probe-${run.level}` }, probeWord(t, run.newest.status))),
      cell(t.t('views.logs.times', { n: run.rows.length })),
      cell(latency(t, run)),
      cell(probeDetailOf(run.newest, t) ?? t.t('views.none')),
    ),
  );
  return block(
    t,
    'probes',
    t.t('views.logs.probes.heading'),
    h(
      'p',
      { class: 'summary' },
      t.t('views.logs.probes.summary', {
        n: section.records,
        rows: section.total,
        failed: all.filter((p) => !p.ok).length,
      }),
    ),
    section,
    table(
      t.t('views.logs.probes.caption'),
      [
        t.t('views.logs.col.when'),
        t.t('views.logs.col.result'),
        t.t('views.logs.col.count'),
        t.t('views.logs.col.latency'),
        t.t('views.logs.col.detail'),
      ],
      rows,
      section.total === 0 ? t.t('views.logs.probes.empty') : null,
      'probe-log',
    ),
  );
}
