/**
 * The 429 / error timeline: stacked error counts per step over the last hour,
 * day or week, for all dependencies and then one chart per dependency, with
 * restarts and breaker transitions marked on the same time axis and listed
 * under each chart (a canvas says nothing to a screen reader).
 */
import type { ApiHistory } from '../../main/api/types.js';
import type { Translator } from '../../main/words/messages/index.js';
import {
  ERROR_GROUPS,
  type Mark,
  marksOf,
  rangeOf,
  type StackedSeries,
  stackErrors,
  TIME_RANGES,
  type TimeRange,
  windowFor,
} from '../chart-data.js';
import { type Chart, errorChart } from '../charts.js';
import { fill, h, keepingFocus, RenderGate } from '../dom.js';
import { failureBox } from '../errors-ui.js';
import { markTarget, type Target, type View, type ViewContext } from '../view.js';
import { wordOr } from '../words.js';

/** Charts beyond this many dependencies would be a wall of requests and canvases; the busiest are kept. */
const MAX_DEPENDENCY_CHARTS = 12;
/** Marks listed under a chart (newest); the chart still draws them all. */
const MAX_LISTED_MARKS = 12;

interface Panel {
  dep: string | null;
  history: ApiHistory;
}

export class ErrorsView implements View {
  readonly key = 'errors' as const;
  /** Read by the shell at each render, so a language switch relabels the tab. */
  get label(): string {
    return this.context.t.t('views.errors.tab');
  }
  readonly panel = h('section', { class: 'view errors' });
  private readonly gate = new RenderGate(this.panel);
  readonly debounceMs = 3000;
  private range: TimeRange = TIME_RANGES[0]!;
  private charts: Chart[] = [];
  private last: Panel[] | null = null;

  constructor(private readonly context: ViewContext) {}

  affectedBy(type: string): boolean {
    return type === 'calls' || type === 'transition' || type === 'restart';
  }

  async refresh(): Promise<void> {
    const { api } = this.context;
    const window = windowFor(this.range, Date.now());
    try {
      const status = await api.status();
      const deps = status.breakers
        .slice()
        .sort((a, b) => (b.lastEventAt ?? 0) - (a.lastEventAt ?? 0))
        .slice(0, MAX_DEPENDENCY_CHARTS)
        .map((b) => b.dep)
        .sort();
      const histories = await Promise.all([api.history(window), ...deps.map((dep) => api.history({ ...window, dep }))]);
      this.last = histories.map((history, i) => ({ dep: i === 0 ? null : deps[i - 1]!, history }));
      const panels = this.last;
      this.gate.run(() => this.render(panels));
    } catch (error) {
      this.destroyCharts();
      keepingFocus(this.panel, () =>
        fill(
          this.panel,
          this.selector(),
          failureBox(this.context.t.t('views.errors.loadFailed'), error, this.context.t),
        ),
      );
    }
  }

  redraw(): void {
    if (this.last) this.render(this.last);
  }

  reveal(target: Target): void {
    if (target.dep === null) return;
    markTarget([...this.panel.querySelectorAll<HTMLElement>('.timeline')].find((b) => b.dataset.dep === target.dep));
  }

  private destroyCharts(): void {
    for (const chart of this.charts) chart.destroy();
    this.charts = [];
  }

  private render(panels: Panel[]): void {
    this.destroyCharts();
    const pending: Array<() => Chart> = [];
    keepingFocus(this.panel, () =>
      fill(this.panel, this.selector(), ...panels.map((panel) => this.block(panel, pending))),
    );
    // Charts measure their container, so they are built once the blocks are in the document.
    this.charts = pending.map((build) => build());
  }

  private selector(): HTMLElement {
    const { t } = this.context;
    const group = h('fieldset', { class: 'range' }, h('legend', null, t.t('views.errors.range')));
    for (const range of TIME_RANGES) {
      const input = h('input', {
        type: 'radio',
        name: 'errors-range',
        value: range.key,
        id: `range-${range.key}`,
        checked: range.key === this.range.key,
        'data-key': `range-${range.key}`,
      });
      input.addEventListener('change', () => {
        if (!input.checked) return;
        this.range = rangeOf(input.value);
        void this.refresh();
      });
      group.append(
        h(
          'label',
          { for: `range-${range.key}` },
          input,
          ` ${wordOr(t, `views.errors.range.${range.key}`, range.label)}`,
        ),
      );
    }
    return group;
  }

  private block({ dep, history }: Panel, pending: Array<() => Chart>): HTMLElement {
    const { t } = this.context;
    const series = stackErrors(history.steps);
    const marks = marksOf(history, dep ?? undefined);
    const title = dep ?? t.t('views.errors.all');
    const target = h('div', {
      class: 'chart',
      'data-chart': 'errors',
      'data-dep': dep ?? '*',
      'data-errors': series.totals.reduce((a, b) => a + b, 0),
      'data-rate-limited': series.totals[0] ?? 0,
      'data-peak': Math.max(0, ...(series.stacked[series.stacked.length - 1] ?? [])),
      'data-restart-marks': marks.filter((m) => m.kind === 'restart').length,
      'data-transition-marks': marks.filter((m) => m.kind === 'transition').length,
    });
    const point = t.t('views.errors.point');
    const hover = h('p', { class: 'hover muted', 'aria-live': 'off' }, point);
    pending.push(() =>
      errorChart({
        target,
        series,
        marks,
        per: this.range.per,
        range: [history.from / 1000, history.to / 1000],
        onHover: (index) => fill(hover, index === null ? point : hoverText(t, series, index)),
      }),
    );
    return h(
      'section',
      { class: 'block timeline', 'data-dep': dep ?? '*', 'aria-label': t.t('views.errors.aria', { title }) },
      h('h2', null, title),
      h('p', { class: 'summary', 'data-testid': 'errors-summary' }, summaryText(t, series, this.range)),
      legend(t, series),
      h('figure', null, target, hover),
      marksList(t, marks, dep ?? '*'),
    );
  }
}

/** A range's words: its name in a sentence ("last hour") and its bar width ("per minute"). */
function rangeWords(t: Translator, range: TimeRange): { name: string; per: string } {
  return {
    name: wordOr(t, `views.errors.in.${range.key}`, range.label.toLowerCase()),
    per: wordOr(t, `views.errors.per.${range.key}`, range.per),
  };
}

const groupLabel = (t: Translator, key: string, fallback: string) => wordOr(t, `views.errors.group.${key}`, fallback);

function summaryText(t: Translator, series: StackedSeries, range: TimeRange): string {
  const errors = series.totals.reduce((a, b) => a + b, 0);
  const { name, per } = rangeWords(t, range);
  if (series.calls === 0) return t.t('views.errors.noCalls', { range: name });
  return t.t('views.errors.summary', { errors, calls: series.calls, range: name, per });
}

function legend(t: Translator, series: StackedSeries): HTMLElement {
  return h(
    'ul',
    { class: 'legend' },
    ...ERROR_GROUPS.map((group, g) =>
      h(
        'li',
        { 'data-group': group.key, class: (series.totals[g] ?? 0) === 0 ? 'zero' : null },
        h('span', { class: `swatch outcome-${group.key.replace(/_/g, '-')}`, 'aria-hidden': 'true' }),
        t.t('views.errors.legend', { label: groupLabel(t, group.key, group.label), n: series.totals[g] ?? 0 }),
      ),
    ),
  );
}

/** A time in a sentence: the time of day today, else date and time. */
function at(t: Translator, ts: number, now: number): string {
  return new Date(ts).toDateString() === new Date(now).toDateString() ? t.clock(ts) : t.dateTime(ts);
}

function hoverText(t: Translator, series: StackedSeries, index: number): string {
  const x = series.xs[index];
  if (x === undefined) return '';
  const parts = ERROR_GROUPS.map(
    (group, g) => [groupLabel(t, group.key, group.label), series.counts[g]?.[index] ?? 0] as const,
  )
    .filter(([, n]) => n > 0)
    .map(([label, n]) => t.t('views.errors.hoverPart', { label, n }));
  return t.t('views.errors.hover', { time: at(t, x * 1000, Date.now()), parts });
}

function marksList(t: Translator, marks: readonly Mark[], key: string): HTMLElement {
  if (marks.length === 0) return h('p', { class: 'muted marks-none' }, t.t('views.errors.noMarks'));
  const newest = marks.slice(-MAX_LISTED_MARKS).reverse();
  const now = Date.now();
  return h(
    'details',
    { class: 'marks', 'data-key': `marks:${key}` },
    h(
      'summary',
      null,
      t.t('views.errors.marked', {
        restarts: marks.filter((m) => m.kind === 'restart').length,
        transitions: marks.filter((m) => m.kind === 'transition').length,
      }),
    ),
    h(
      'ul',
      null,
      ...newest.map((mark) =>
        h(
          'li',
          { class: `mark mark-${mark.kind}`, 'data-kind': mark.kind },
          h('time', { datetime: new Date(mark.ts).toISOString() }, at(t, mark.ts, now)),
          ` ${mark.title}`,
        ),
      ),
      marks.length > newest.length
        ? h('li', { class: 'muted' }, t.t('views.errors.earlier', { n: marks.length - newest.length }))
        : null,
    ),
  );
}
