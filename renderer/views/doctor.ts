/**
 * Doctor: what `breakerbar doctor` finds (what was looked for, where, and how
 * to fix it), grouped by area, problems first. The first-run view, and
 * reachable at any time.
 */
import type { DoctorReport, Finding } from '../../main/api/types.js';
import type { Translator } from '../../main/words/messages/index.js';
import { button, fill, h } from '../dom.js';
import { failureBox } from '../errors-ui.js';
import { blockingFindings } from '../first-run.js';
import type { View, ViewContext } from '../view.js';
import { wordOr } from '../words.js';

const LEVEL_ORDER: Record<Finding['level'], number> = { error: 0, warn: 1, info: 2, ok: 3 };

export class DoctorView implements View {
  readonly key = 'doctor' as const;
  /** Read by the shell at each render, so a language switch relabels the tab. */
  get label(): string {
    return this.context.t.t('views.doctor.tab');
  }
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
    const { t } = this.context;
    fill(
      this.panel,
      h('h2', null, t.t('views.doctor.heading')),
      h('p', { class: 'muted', role: 'status' }, t.t('views.doctor.checking')),
    );
    try {
      this.render(await this.context.api.doctor());
    } catch (error) {
      fill(
        this.panel,
        h('h2', null, t.t('views.doctor.heading')),
        failureBox(t.t('views.doctor.failed'), error, t),
        this.again(),
      );
    }
  }

  private again(): HTMLButtonElement {
    return button(this.context.t.t('views.doctor.again'), () => this.refresh(), { 'data-key': 'doctor-again' });
  }

  private render(report: DoctorReport): void {
    const { t } = this.context;
    const { summary } = report;
    const blocking = blockingFindings(report);
    const intro = this.firstRun
      ? h(
          'p',
          { class: 'first-run', 'data-testid': 'first-run' },
          blocking.length > 0 ? t.t('views.doctor.blocking') : t.t('views.doctor.nothingRead'),
        )
      : null;
    const areas = [...new Set(report.findings.map((f) => f.area))];
    fill(
      this.panel,
      h('h2', null, t.t('views.doctor.heading')),
      intro,
      h(
        'p',
        { class: 'summary', 'data-testid': 'doctor-summary' },
        t.t('views.doctor.summary', { error: summary.error, warn: summary.warn, ok: summary.ok }),
      ),
      this.again(),
      ...areas.map((area) => {
        const findings = report.findings
          .filter((f) => f.area === area)
          .sort((a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level]);
        return h(
          'section',
          { class: 'block', 'data-area': area },
          h('h3', null, wordOr(t, `views.doctor.area.${area}`, area)),
          h('ul', { class: 'findings' }, ...findings.map((finding) => findingItem(t, finding))),
        );
      }),
    );
  }
}

/** The finding's own words (title, detail, fix) are the core's, in English; the badge and labels are ours. */
function findingItem(t: Translator, finding: Finding): HTMLElement {
  return h(
    'li',
    { class: `finding level-${finding.level}`, 'data-level': finding.level },
    h(
      'span',
      { class: `badge level-${finding.level}` },
      wordOr(t, `views.doctor.level.${finding.level}`, finding.level),
    ),
    ' ',
    h('strong', null, finding.title),
    finding.detail ? h('p', { class: 'detail' }, finding.detail) : null,
    finding.fix
      ? h('p', { class: 'fix' }, h('span', { class: 'fix-label' }, t.t('views.doctor.fix')), finding.fix)
      : null,
  );
}
