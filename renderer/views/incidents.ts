/**
 * Incidents: the list (newest first: when each opened, how long it lasted or
 * has been open, how bad it got, why, what it touched, the turns it cost and
 * the restarts it took), and one incident's timeline. Rows are buttons, so the
 * keyboard opens them as a pointer does; the detail's back button returns focus
 * to the row it came from. A core that keeps no incidents is said as such.
 */
import type { IncidentDetail, IncidentEvent, IncidentSummary } from '../../main/api/types.js';
import { ApiFailure, Cancelled } from '../api.js';
import { button, fill as fillPanel, h, keepingFocus } from '../dom.js';
import { describeFailure } from '../errors-ui.js';
import { renderLive } from '../ticker.js';
import type { Target, View, ViewContext } from '../view.js';

const LIMIT = 200;

type Shown =
  | { kind: 'list'; incidents: IncidentSummary[] }
  | { kind: 'detail'; incident: IncidentDetail }
  | { kind: 'unavailable' }
  | { kind: 'failed'; what: 'list' | 'detail'; error: unknown };

/** A 404 from the API: this core has no incidents endpoint (older than them, or keeps none). */
function absent(error: unknown): boolean {
  return error instanceof ApiFailure && error.status === 404;
}

export class IncidentsView implements View {
  readonly key = 'incidents' as const;
  readonly panel = h('section', { class: 'view incidents' });
  readonly debounceMs = 1000;
  private shown: Shown | null = null;
  /** The incident open in the detail (kept across refreshes), null for the list. */
  private openId: number | null = null;
  /** The row to focus when going back to the list. */
  private returnTo: number | null = null;

  constructor(private readonly context: ViewContext) {}

  get label(): string {
    return this.context.t.t('dashboard.tab.incidents');
  }

  affectedBy(type: string): boolean {
    return type === 'transition' || type === 'restart' || type === 'notification' || type === 'probe';
  }

  async refresh(): Promise<void> {
    const { api } = this.context;
    if (!api.incidents || !api.incident) {
      this.show({ kind: 'unavailable' });
      return;
    }
    const id = this.openId;
    try {
      if (id === null) {
        const list = await api.incidents({ limit: LIMIT });
        if (this.openId === null) this.show({ kind: 'list', incidents: list.incidents });
      } else {
        const incident = await api.incident(id);
        if (this.openId === id) this.show({ kind: 'detail', incident });
      }
    } catch (error) {
      if (error instanceof Cancelled) return;
      this.show(
        absent(error) && id === null
          ? { kind: 'unavailable' }
          : { kind: 'failed', what: id === null ? 'list' : 'detail', error },
      );
    }
  }

  retranslate(): void {
    if (this.shown) this.show(this.shown);
  }

  /** `#view=incidents&incident=<id>` (a card's link): opens that incident. */
  reveal(target: Target): void {
    if (target.incident !== null) void this.open(target.incident);
  }

  /** Opens an incident's timeline (or the list with null). */
  async open(id: number | null): Promise<void> {
    if (id !== null && this.openId === null) this.returnTo = id;
    this.openId = id;
    await this.refresh();
    const focus = id === null ? this.rowButton(this.returnTo) : this.panel.querySelector<HTMLElement>('h2');
    focus?.focus();
  }

  private rowButton(id: number | null): HTMLElement | null {
    if (id === null) return null;
    return this.panel.querySelector<HTMLElement>(`[data-incident="${id}"] button`);
  }

  private show(shown: Shown): void {
    this.shown = shown;
    keepingFocus(this.panel, () => {
      this.fillShown(shown);
    });
    renderLive(this.panel);
  }

  private fillShown(shown: Shown): void {
    const t = this.context.t;
    const fill = (panel: HTMLElement, ...children: Array<Node | null>) =>
      fillPanel(panel, h('section', { class: 'block' }, ...children));
    switch (shown.kind) {
      case 'unavailable':
        fill(
          this.panel,
          h('h2', null, t.t('dashboard.incidents.heading')),
          h('p', { class: 'muted', 'data-testid': 'incidents-unavailable' }, t.t('dashboard.incidents.unavailable')),
        );
        break;
      case 'failed':
        fill(
          this.panel,
          h('h2', null, t.t('dashboard.incidents.heading')),
          h(
            'p',
            { class: 'failure', role: 'alert' },
            `${t.t(shown.what === 'list' ? 'dashboard.incidents.failed' : 'dashboard.incidents.detailFailed')}: ${describeFailure(shown.error)}`,
          ),
          shown.what === 'detail' ? this.backButton() : null,
        );
        break;
      case 'list':
        fill(this.panel, h('h2', { tabindex: -1 }, t.t('dashboard.incidents.heading')), this.list(shown.incidents));
        break;
      case 'detail':
        fill(this.panel, ...this.detail(shown.incident));
        break;
    }
  }

  private list(incidents: IncidentSummary[]): HTMLElement {
    const t = this.context.t;
    if (incidents.length === 0)
      return h('p', { class: 'muted', 'data-testid': 'incidents-none' }, t.t('dashboard.incidents.none'));
    const now = Date.now();
    const head = h(
      'tr',
      null,
      ...(
        [
          'dashboard.incidents.opened',
          'dashboard.incidents.duration',
          'dashboard.incidents.severity',
          'dashboard.incidents.causes',
          'dashboard.incidents.deps',
          'dashboard.incidents.turnsLost',
          'dashboard.incidents.restarts',
        ] as const
      ).map((key) => h('th', { scope: 'col' }, t.t(key))),
    );
    const rows = incidents.map((incident) =>
      h(
        'tr',
        { 'data-incident': incident.id, class: incident.closedAt === null ? 'open' : null },
        h(
          'td',
          null,
          button(t.dateTime(incident.openedAt), () => this.open(incident.id), {
            class: 'link',
            'data-key': `incident:${incident.id}`,
            'aria-label': `${t.t('dashboard.incidents.title', { id: incident.id })}, ${t.dateTime(incident.openedAt)}`,
          }),
        ),
        h('td', null, this.lasted(incident, now)),
        h('td', null, this.severity(incident)),
        h('td', null, this.causes(incident)),
        h('td', { class: 'deps' }, incident.deps.join(', ')),
        h('td', { class: 'number' }, t.integer(incident.turnsLost)),
        h('td', { class: 'number' }, t.integer(incident.restarts)),
      ),
    );
    return h(
      'table',
      { class: 'incidents-table', 'data-testid': 'incidents-table' },
      h('thead', null, head),
      h('tbody', null, ...rows),
    );
  }

  private lasted(incident: IncidentSummary, now: number): Node | string {
    const t = this.context.t;
    if (incident.closedAt !== null) return t.duration(incident.closedAt - incident.openedAt);
    return h(
      'span',
      { class: 'still-open' },
      h('span', { class: 'badge state-open' }, t.t('dashboard.incidents.open')),
      ' ',
      t.t('dashboard.incidents.stillOpen', { ms: now - incident.openedAt }),
    );
  }

  private severity(incident: IncidentSummary): HTMLElement {
    return h(
      'span',
      { class: `badge severity-${incident.severity}` },
      this.context.t.t(`common.severity.${incident.severity}`),
    );
  }

  private causes(incident: IncidentSummary): string {
    const t = this.context.t;
    return t.list(incident.causes.map((cause) => t.t(`dashboard.cause.${cause}`)));
  }

  private backButton(): HTMLButtonElement {
    return button(this.context.t.t('dashboard.incidents.back'), () => this.open(null), {
      class: 'link back',
      'data-key': 'incidents-back',
    });
  }

  private detail(incident: IncidentDetail): Node[] {
    const t = this.context.t;
    const rows: Array<[string, Node | string]> = [
      [t.t('dashboard.incidents.opened'), t.dateTime(incident.openedAt)],
      [t.t('dashboard.incidents.duration'), this.lasted(incident, Date.now())],
      [t.t('dashboard.incidents.severity'), this.severity(incident)],
      [t.t('dashboard.incidents.causes'), this.causes(incident)],
      [t.t('dashboard.incidents.deps'), incident.deps.join(', ') || '—'],
      [t.t('dashboard.incidents.agents'), incident.agents.join(', ') || '—'],
      [t.t('dashboard.incidents.turnsLost'), t.integer(incident.turnsLost)],
      [
        t.t('dashboard.card.failures'),
        t.t('dashboard.incidents.failedCalls', { failed: incident.failedCalls, limited: incident.rateLimitedCalls }),
      ],
      [t.t('dashboard.incidents.restarts'), t.integer(incident.restarts)],
      [t.t('dashboard.incidents.notifications'), t.integer(incident.notifications)],
    ];
    const timeline = h(
      'ol',
      { class: 'timeline', 'data-testid': 'incident-timeline' },
      ...incident.timeline.map((event) => this.event(event)),
    );
    return [
      this.backButton(),
      h('h2', { tabindex: -1, 'data-testid': 'incident-title' }, t.t('dashboard.incidents.title', { id: incident.id })),
      h(
        'dl',
        { class: 'incident-facts' },
        ...rows.flatMap(([term, value]) => [h('dt', null, term), h('dd', null, value)]),
      ),
      h('h3', null, t.t('dashboard.incidents.timeline')),
      timeline,
    ];
  }

  private event(event: IncidentEvent): HTMLElement {
    const t = this.context.t;
    return h(
      'li',
      { class: `event kind-${event.kind}`, 'data-kind': event.kind },
      h('time', { datetime: new Date(event.ts).toISOString() }, t.dateTime(event.ts)),
      ' ',
      h('span', { class: 'badge' }, t.t(`dashboard.event.${event.kind}`)),
      event.dep === null ? '' : h('span', { class: 'dep' }, ` ${event.dep}`),
      ' ',
      // Stored as it was said when it happened (English), like a log line.
      h('span', { class: 'text', lang: 'en' }, event.text),
    );
  }
}
