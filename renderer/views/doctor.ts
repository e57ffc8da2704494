/**
 * Doctor: what `breakerbar doctor` finds (what was looked for, where, and how
 * to fix it), grouped by area, problems first. The first-run view, and
 * reachable at any time.
 */
import type { DoctorReport, Finding } from '../../main/core/doctor/index.js';
import { button, fill, h } from '../dom.js';
import { failureBox } from '../errors-ui.js';
import { blockingFindings } from '../first-run.js';
import { count } from '../format.js';
import type { View, ViewContext } from '../view.js';

const LEVEL_ORDER: Record<Finding['level'], number> = { error: 0, warn: 1, info: 2, ok: 3 };
const LEVEL_LABEL: Record<Finding['level'], string> = { error: 'error', warn: 'warning', info: 'info', ok: 'ok' };

export class DoctorView implements View {
  readonly key = 'doctor' as const;
  readonly label = 'Doctor';
  readonly panel = h('section', { class: 'view doctor' });
  readonly debounceMs = 0;
  /** Set by the shell when the dashboard opened here because there was nothing else to show. */
  firstRun = false;
  private report: DoctorReport | null = null;

  constructor(private readonly context: ViewContext) {}

  affectedBy(): boolean {
    // The checks probe the gateway and read files: run on request, not on every event.
    return false;
  }

  /** A report already fetched (the first-run check) is shown without running the checks again. */
  show(report: DoctorReport): void {
    this.report = report;
    this.render(report);
  }

  async refresh(): Promise<void> {
    if (this.report !== null) {
      const report = this.report;
      this.report = null;
      this.render(report);
      return;
    }
    fill(this.panel, h('h2', null, 'Doctor'), h('p', { class: 'muted', role: 'status' }, 'Checking…'));
    try {
      this.render(await this.context.api.doctor());
    } catch (error) {
      fill(this.panel, h('h2', null, 'Doctor'), failureBox('The checks could not run', error), this.again());
    }
  }

  private again(): HTMLButtonElement {
    return button('Check again', () => this.refresh(), { 'data-key': 'doctor-again' });
  }

  private render(report: DoctorReport): void {
    const { summary } = report;
    const blocking = blockingFindings(report);
    const intro = this.firstRun
      ? h(
          'p',
          { class: 'first-run', 'data-testid': 'first-run' },
          blocking.length > 0
            ? 'BreakerBar cannot watch OpenClaw yet. Here is what it looked for, where, and how to fix it.'
            : 'Nothing has been read yet: no model calls in any source. Here is what BreakerBar looked for and where.',
        )
      : null;
    const areas = [...new Set(report.findings.map((f) => f.area))];
    fill(
      this.panel,
      h('h2', null, 'Doctor'),
      intro,
      h(
        'p',
        { class: 'summary', 'data-testid': 'doctor-summary' },
        `${count(summary.error, 'error')}, ${count(summary.warn, 'warning')}, ${summary.ok} ok.`,
      ),
      this.again(),
      ...areas.map((area) => {
        const findings = report.findings
          .filter((f) => f.area === area)
          .sort((a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level]);
        return h(
          'section',
          { class: 'block', 'data-area': area },
          h('h3', null, area),
          h('ul', { class: 'findings' }, ...findings.map(findingItem)),
        );
      }),
    );
  }
}

function findingItem(finding: Finding): HTMLElement {
  return h(
    'li',
    { class: `finding level-${finding.level}`, 'data-level': finding.level },
    h('span', { class: `badge level-${finding.level}` }, LEVEL_LABEL[finding.level]),
    ' ',
    h('strong', null, finding.title),
    finding.detail ? h('p', { class: 'detail' }, finding.detail) : null,
    finding.fix ? h('p', { class: 'fix' }, h('span', { class: 'fix-label' }, 'Fix: '), finding.fix) : null,
  );
}
