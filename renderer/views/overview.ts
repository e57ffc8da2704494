/**
 * Overview: the gateway's health (a line and the last hour's probe timeline),
 * one card per dependency (its state and why, its last 24 hours as a
 * sparkline, today's calls, tokens and cost, OpenClaw's cooldown, the open
 * incident touching it), spend and quota, and the watchdog with its controls.
 * Every word comes from the shared catalogue in the dashboard's language.
 */

import type {
  ApiBreaker,
  ApiHistory,
  ApiStatus,
  SpendReport,
  WatchdogResponse,
  WatchdogStatus,
} from '../../main/api/types.js';
import { ApiFailure, Cancelled } from '../api.js';
import { healthSeries, marksOf, type SparkSeries, sparkSeries, sparkWindow } from '../chart-data.js';
import { type Chart, healthChart, sparkChart } from '../charts.js';
import {
  breakerWaits,
  byAttention,
  dayFigures,
  decisionWhyOf,
  incidentTouching,
  openclawCooldownOf,
  probeDetailOf,
  restartsInLastHour,
  tokensOf,
  watchdogMode,
  whyOf,
} from '../describe.js';
import { button, fill, h, keepingFocus, live, RenderGate } from '../dom.js';
import { describeFailure } from '../errors-ui.js';
import { stateLabel } from '../format.js';
import { confirmRestart } from '../restart-dialog.js';
import { renderLive } from '../ticker.js';
import { markTarget, type Target, type View, type ViewContext } from '../view.js';
import { spendSection } from './spend.js';

const HOUR_MS = 3_600_000;
const REASON = 'requested from the dashboard';
/** A card's 24 h changes by the quarter hour: read again at most this often (a storm refreshes every second). */
const SPARK_FRESH_MS = 60_000;

/** What the last refresh read; re-rendered as it is on a language or colour-scheme change. */
interface Shown {
  status: ApiStatus;
  history: ApiHistory;
  /** Null: the core reports no spend (or the read failed, `spendError` says why). */
  spend: SpendReport | null;
  spendError: unknown;
}

/** A card's sparkline data, kept between refreshes. */
interface Spark {
  at: number;
  from: number;
  to: number;
  series: SparkSeries | null;
}

export class OverviewView implements View {
  readonly key = 'overview' as const;
  readonly panel = h('section', { class: 'view overview' });
  private readonly gate = new RenderGate(this.panel);
  readonly debounceMs = 750;
  private charts: Chart[] = [];
  private last: Shown | null = null;
  private readonly sparks = new Map<string, Spark>();

  constructor(private readonly context: ViewContext) {}

  get label(): string {
    return this.context.t.t('dashboard.tab.overview');
  }

  affectedBy(): boolean {
    // Everything on this page moves with the core: breakers, probes, restarts, decisions, budgets.
    return true;
  }

  async refresh(): Promise<void> {
    const { api } = this.context;
    const now = Date.now();
    try {
      const [status, history, spend] = await Promise.all([
        api.status(),
        api.history({ from: now - HOUR_MS, to: now + 1000, stepSec: 60 }),
        this.readSpend(),
      ]);
      this.context.statusSeen(status);
      await this.readSparks(status, now);
      this.last = { status, history, ...spend };
      this.gate.run(() => this.render(this.last!));
    } catch (error) {
      this.destroyCharts();
      if (error instanceof Cancelled) return;
      fill(
        this.panel,
        h(
          'p',
          { class: 'failure', role: 'alert' },
          `${this.context.t.t('dashboard.statusFailed')}: ${describeFailure(error)}`,
        ),
      );
    }
  }

  redraw(): void {
    if (this.last) this.render(this.last);
  }

  retranslate(): void {
    if (this.last) this.render(this.last);
  }

  reveal(target: Target): void {
    const card = [...this.panel.querySelectorAll<HTMLElement>('.card')].find((c) => c.dataset.dep === target.dep);
    markTarget(card ?? (target.kind?.startsWith('gateway') ? this.panel.querySelector('.gateway') : null));
  }

  /** The spend report, when the core has one; its absence or failure leaves the rest of the page as it is. */
  private async readSpend(): Promise<{ spend: SpendReport | null; spendError: unknown }> {
    const { api } = this.context;
    if (!api.spend) return { spend: null, spendError: null };
    try {
      return { spend: await api.spend(), spendError: null };
    } catch (error) {
      // A 404: this core has no spend report (older, or it keeps none), which is no failure.
      const absent = error instanceof ApiFailure && error.status === 404;
      return { spend: null, spendError: absent ? null : error };
    }
  }

  /** Each card's last 24 h (one request per dependency, in parallel), read again once a minute at most. */
  private async readSparks(status: ApiStatus, now: number): Promise<void> {
    const window = sparkWindow(now);
    const deps = new Set(status.breakers.map((b) => b.dep));
    for (const dep of this.sparks.keys()) if (!deps.has(dep)) this.sparks.delete(dep);
    await Promise.all(
      [...deps].map(async (dep) => {
        const known = this.sparks.get(dep);
        if (known && known.to === window.to && now - known.at < SPARK_FRESH_MS) return;
        try {
          const history = await this.context.api.history({ ...window, dep });
          this.sparks.set(dep, { at: now, from: window.from, to: window.to, series: sparkSeries(history.steps) });
        } catch {
          // The card says its sparkline could not be read; the rest of it stands.
          if (!known) this.sparks.set(dep, { at: now, from: window.from, to: window.to, series: null });
        }
      }),
    );
  }

  private destroyCharts(): void {
    for (const chart of this.charts) chart.destroy();
    this.charts = [];
  }

  private render(shown: Shown): void {
    const { status, history } = shown;
    this.destroyCharts();
    const chartTarget = h('div', { class: 'chart', 'data-chart': 'health' });
    const sparkTargets: Array<[HTMLElement, Spark]> = [];
    keepingFocus(this.panel, () =>
      fill(
        this.panel,
        this.gatewaySection(status, history, chartTarget),
        this.dependencySection(shown, sparkTargets),
        spendSection(shown.spend, shown.spendError, status, this.context.t, this.context.api.spend !== undefined),
        this.watchdogSection(status.watchdog),
      ),
    );
    renderLive(this.panel);
    if (status.gateway !== null) {
      const series = healthSeries(history.probes, history.to);
      chartTarget.dataset.probes = String(series.xs.length);
      chartTarget.dataset.down = String(series.down.length);
      this.charts.push(
        healthChart({
          target: chartTarget,
          series,
          marks: marksOf({ restarts: history.restarts, transitions: [] }),
          range: [history.from / 1000, history.to / 1000],
          yLabel: this.context.t.t('dashboard.gateway.axis'),
          clock: (ms) => this.context.t.clock(ms),
        }),
      );
    }
    const t = this.context.t;
    for (const [target, spark] of sparkTargets) {
      if (spark.series === null) continue;
      this.charts.push(
        sparkChart({
          target,
          series: spark.series,
          range: [spark.from / 1000, spark.to / 1000],
          labels: { calls: t.t('dashboard.card.calls'), failures: t.t('dashboard.card.failures') },
        }),
      );
    }
  }

  private gatewaySection(status: ApiStatus, history: ApiHistory, chartTarget: HTMLElement): HTMLElement {
    const t = this.context.t;
    const { gateway } = status;
    const section = h('section', { class: 'block gateway', 'aria-labelledby': 'gateway-heading' });
    section.append(h('h2', { id: 'gateway-heading' }, t.t('dashboard.gateway.heading')));
    if (gateway === null) {
      section.append(h('p', { class: 'muted' }, t.t('dashboard.gateway.notProbed')));
      return section;
    }
    const last = gateway.last;
    const line = h('p', { class: 'health-line', 'data-testid': 'gateway-line' });
    if (last === null) {
      line.append(
        h('span', { class: 'badge state-unknown' }, t.t('dashboard.gateway.unknown')),
        ` ${t.t('dashboard.gateway.noProbe', { url: gateway.baseUrl })}`,
      );
    } else if (gateway.downSince !== null || !last.ok) {
      line.classList.add('down');
      line.append(
        h('span', { class: 'badge state-open' }, t.t('dashboard.gateway.down')),
        ' ',
        gateway.downSince === null
          ? t.t('dashboard.gateway.lastProbeSince')
          : h('span', null, `${t.t('dashboard.gateway.downSince')} `, live('ago', gateway.downSince)),
        // The probe's class is the prober's code, kept as the logs show it; what it found is worded.
        h('span', null, h('span', { lang: 'en' }, `: ${last.class.replace(/_/g, ' ')}`), `. ${probeDetailOf(last, t)}`),
      );
    } else {
      line.append(
        h('span', { class: 'badge state-closed' }, t.t('dashboard.gateway.up')),
        ' ',
        gateway.upSince === null
          ? ''
          : h('span', null, `${t.t('dashboard.gateway.for')} `, live('since', gateway.upSince)),
        ` · ${t.t('dashboard.gateway.lastProbe')} `,
        live('ago', last.ts),
        last.latencyMs === null ? '' : ` (${t.duration(last.latencyMs)})`,
      );
    }
    const restarts = restartsInLastHour(history.restarts, Date.now());
    const probes = healthSeries(history.probes, history.to);
    section.append(
      line,
      h(
        'p',
        { class: 'muted', 'data-testid': 'gateway-summary' },
        t.t('dashboard.gateway.summary', {
          url: gateway.baseUrl,
          restarts,
          probes: probes.ok + probes.failed,
          failed: probes.failed,
        }),
      ),
      h('figure', null, chartTarget, h('figcaption', { class: 'muted' }, t.t('dashboard.gateway.caption'))),
    );
    return section;
  }

  private dependencySection(shown: Shown, sparkTargets: Array<[HTMLElement, Spark]>): HTMLElement {
    const t = this.context.t;
    const { status } = shown;
    const section = h('section', { class: 'block', 'aria-labelledby': 'deps-heading' });
    section.append(h('h2', { id: 'deps-heading' }, t.t('dashboard.deps.heading')));
    if (status.breakers.length === 0) {
      const doctor = button(t.t('dashboard.deps.openDoctor'), () => this.context.show('doctor'), { class: 'link' });
      section.append(
        h(
          'p',
          { class: 'muted', 'data-testid': 'deps-none' },
          t.t('dashboard.deps.none'),
          doctor,
          t.t('dashboard.deps.noneEnd'),
        ),
      );
      return section;
    }
    const cards = h('div', { class: 'cards' });
    for (const breaker of byAttention(status.breakers)) cards.append(this.card(breaker, shown, sparkTargets));
    section.append(cards);
    return section;
  }

  private card(breaker: ApiBreaker, shown: Shown, sparkTargets: Array<[HTMLElement, Spark]>): HTMLElement {
    const t = this.context.t;
    const { status } = shown;
    const now = Date.now();
    const { window: w } = breaker;
    const waits = breakerWaits(breaker);
    const day = dayFigures(breaker.dep, status, shown.spend);
    const rows: Array<[string, Node | string]> = [
      [
        t.t(day.span === 'today' ? 'dashboard.card.today' : 'dashboard.card.lastDay'),
        h(
          'span',
          { 'data-testid': 'day-figures' },
          t.t('dashboard.card.todayFigures', { calls: day.calls, failures: day.failures }),
          day.tokens === null ? '' : ` · ${t.t('dashboard.card.tokensCost', { tokens: day.tokens, cost: day.cost })}`,
        ),
      ],
    ];
    // The breaker's window is the last minutes only: a calm window says nothing a day's figures do not.
    if (w.calls > 0) {
      rows.push([
        t.t('dashboard.card.window'),
        t.t('dashboard.card.windowFigures', { calls: w.calls, rate: w.failureRate, failures: w.failures }),
      ]);
    }
    if (breaker.consecutiveFailures > 0 || breaker.state !== 'closed')
      rows.push([t.t('dashboard.card.inARow'), t.integer(breaker.consecutiveFailures)]);
    if (waits.nextProbe !== null) rows.push([t.t('dashboard.card.nextProbe'), live('countdown', waits.nextProbe)]);
    if (waits.retryAfter !== null && waits.retryAfter > now) {
      rows.push([t.t('dashboard.card.retryAfter'), live('countdown', waits.retryAfter)]);
    }
    // OpenClaw's own cooldown: it will not call this dependency before then, whatever the breaker says.
    const cooldown = openclawCooldownOf(breaker, now, t);
    if (cooldown) {
      rows.push([
        cooldown.label,
        h('span', { 'data-testid': 'openclaw-cooldown' }, live('left', cooldown.until), cooldown.detail),
      ]);
    }
    if (breaker.rejections > 0 || breaker.state !== 'closed')
      rows.push([t.t('dashboard.card.rejected'), t.integer(breaker.rejections)]);
    if (breaker.lastEventAt !== null) rows.push([t.t('dashboard.card.lastCall'), live('ago', breaker.lastEventAt)]);
    if (breaker.soleDependents.length > 0) rows.push([t.t('dashboard.card.stuck'), breaker.soleDependents.join(', ')]);
    // Other hosts of the fleet (shared over Redis) whose breaker for this dependency is not closed.
    if ((breaker.elsewhere ?? []).length > 0) {
      rows.push([
        t.t('dashboard.card.elsewhere'),
        breaker.elsewhere
          .map((peer) => t.t('dashboard.card.elsewhereEntry', { state: stateLabel(peer.state), host: peer.host }))
          .join(', '),
      ]);
    }
    if (breaker.stalled) {
      rows.push([
        t.t('dashboard.card.stalled'),
        h(
          'span',
          null,
          t.t('dashboard.card.stalledSessions', { n: breaker.stalled.sessions }),
          live('ago', breaker.stalled.since),
        ),
      ]);
    }
    const tokens = tokensOf(status.tokens, breaker.dep);
    const state = breaker.state.replace(/_/g, '-');
    const incident = incidentTouching(breaker.dep, status);
    return h(
      'article',
      { class: `card state-${state}`, 'data-dep': breaker.dep, 'data-state': breaker.state },
      h(
        'header',
        null,
        h('h3', null, breaker.dep),
        h('span', { class: `badge state-${state}` }, stateLabel(breaker.state)),
        breaker.forced
          ? h('span', { class: 'badge forced' }, t.t('dashboard.card.forced', { how: breaker.forced }))
          : null,
        cooldown ? h('span', { class: 'badge openclaw-cooldown' }, cooldown.label) : null,
      ),
      // Why it is where it is; a breaker that never changed state has no meaningful "since" (it is 0: the epoch).
      h(
        'p',
        { class: 'reason', title: breaker.reason, 'data-testid': 'why' },
        whyOf(breaker, t),
        breaker.since > 0 ? h('span', null, ` · ${t.t('dashboard.card.since')} `, live('ago', breaker.since)) : null,
      ),
      incident === null
        ? null
        : h(
            'p',
            { class: `incident-link severity-${incident.severity}`, 'data-testid': 'card-incident' },
            h(
              'a',
              { href: `#view=incidents&incident=${incident.id}` },
              t.t('dashboard.card.incident', { id: incident.id }),
            ),
            ` · ${t.t('dashboard.card.incidentSince')} `,
            live('ago', incident.openedAt),
          ),
      this.spark(breaker.dep, sparkTargets),
      h('dl', null, ...rows.flatMap(([term, value]) => [h('dt', null, term), h('dd', null, value)])),
      tokens.length === 0
        ? null
        : h(
            'ul',
            { class: 'tokens', 'aria-label': t.t('dashboard.card.tokensPerMinute') },
            ...tokens.map((rate) =>
              h(
                'li',
                { class: rate.overBudget ? 'over-budget' : null },
                t.t('dashboard.card.rate', {
                  agent: rate.agentId,
                  rate: rate.tokensPerMinute,
                  budget: rate.budget,
                  over: rate.overBudget,
                }),
              ),
            ),
          ),
      this.controls(breaker),
    );
  }

  /** The card's last 24 h: drawn after the card is in the page (uPlot measures its container). */
  private spark(dep: string, sparkTargets: Array<[HTMLElement, Spark]>): HTMLElement {
    const t = this.context.t;
    const spark = this.sparks.get(dep);
    const figure = h('figure', { class: 'spark' });
    if (!spark || spark.series === null) {
      figure.append(h('figcaption', { class: 'muted' }, t.t('dashboard.card.sparkFailed')));
      return figure;
    }
    const target = h('div', {
      class: 'spark-chart',
      'data-chart': 'spark',
      'data-dep': dep,
      'data-calls': spark.series.totalCalls,
      'data-failures': spark.series.totalFailures,
      role: 'img',
      'aria-label': `${t.t('dashboard.card.spark')}: ${t.t('common.calls', { n: spark.series.totalCalls })}, ${t.t('common.failures', { n: spark.series.totalFailures })}`,
    });
    sparkTargets.push([target, spark]);
    figure.append(
      target,
      h(
        'figcaption',
        { class: 'muted spark-legend' },
        h('span', { class: 'swatch spark-calls' }),
        ` ${t.t('dashboard.card.calls')} `,
        h('span', { class: 'swatch spark-failures' }),
        ` ${t.t('dashboard.card.failures')} · 24 h`,
      ),
    );
    return figure;
  }

  private controls(breaker: ApiBreaker): HTMLElement {
    const t = this.context.t;
    const act = (action: 'force_open' | 'force_closed' | 'reset', done: string) => async () => {
      try {
        await this.context.api.control(breaker.dep, action, REASON);
        this.context.say(`${breaker.dep}: ${done}`, 'success');
        this.context.changed('transition');
      } catch (error) {
        if (!(error instanceof Cancelled)) this.context.say(`${breaker.dep}: ${describeFailure(error)}`, 'error');
      }
    };
    return h(
      'details',
      { class: 'controls', 'data-key': `controls:${breaker.dep}` },
      h('summary', { 'data-key': `controls-summary:${breaker.dep}` }, t.t('dashboard.controls')),
      h(
        'div',
        { class: 'actions' },
        button(t.t('dashboard.controls.forceOpen'), act('force_open', t.t('dashboard.controls.forcedOpen')), {
          'data-key': `force_open:${breaker.dep}`,
        }),
        button(t.t('dashboard.controls.forceClosed'), act('force_closed', t.t('dashboard.controls.forcedClosed')), {
          'data-key': `force_closed:${breaker.dep}`,
        }),
        button(t.t('dashboard.controls.reset'), act('reset', t.t('dashboard.controls.wasReset')), {
          'data-key': `reset:${breaker.dep}`,
        }),
      ),
    );
  }

  private watchdogSection(watchdog: WatchdogStatus | null): HTMLElement {
    const t = this.context.t;
    const section = h('section', { class: 'block watchdog', 'aria-labelledby': 'watchdog-heading' });
    section.append(h('h2', { id: 'watchdog-heading' }, t.t('dashboard.watchdog.heading')));
    if (watchdog === null) {
      section.append(h('p', { class: 'muted' }, t.t('dashboard.watchdog.none')));
      return section;
    }
    const mode = watchdogMode(watchdog, t);
    const modeLine = h('p', { class: `mode mode-${mode.kind}`, 'data-testid': 'watchdog-mode' }, mode.text);
    if (mode.kind === 'paused' && mode.until !== null)
      modeLine.append(t.t('dashboard.watchdog.resumes'), live('countdown', mode.until));
    const rows: Array<[string, Node | string]> = [
      [
        t.t('dashboard.watchdog.stormChecks'),
        watchdog.stormRestart
          ? t.t('dashboard.watchdog.inARow', { n: watchdog.consecutiveChecks, of: watchdog.threshold })
          : t.t('dashboard.watchdog.stormWaited', { n: watchdog.consecutiveChecks }),
      ],
      [
        t.t('dashboard.watchdog.deadProbes'),
        t.t('dashboard.watchdog.inARow', { n: watchdog.healthFailures, of: watchdog.healthFailuresBeforeRestart }),
      ],
      [
        t.t('dashboard.watchdog.budget'),
        t.t('dashboard.watchdog.budgetLeft', { left: watchdog.budgetRemaining, max: watchdog.maxRestartsPerHour }),
      ],
    ];
    if (watchdog.restartInFlight) {
      rows.push([
        t.t('dashboard.watchdog.restartRunning'),
        h(
          'span',
          null,
          t.t('dashboard.watchdog.restartFor', { trigger: watchdog.restartInFlight.trigger }),
          live('since', watchdog.restartInFlight.since),
        ),
      ]);
    }
    const rec = watchdog.recovering;
    if (rec) {
      const what = rec.pending
        ? t.t('dashboard.watchdog.pendingFor')
        : rec.trigger === 'gateway'
          ? t.t('dashboard.watchdog.selfRestart')
          : t.t('dashboard.watchdog.afterRestart', { trigger: rec.trigger });
      rows.push([
        t.t(rec.pending ? 'dashboard.watchdog.restartPending' : 'dashboard.watchdog.recovering'),
        h('span', null, what, live('since', rec.since)),
      ]);
    }
    if (watchdog.deferral) {
      const holder =
        watchdog.deferral.cause === 'cooldown'
          ? t.t('dashboard.watchdog.heldCooldown', { dep: watchdog.deferral.dep })
          : t.t('dashboard.watchdog.heldRetryAfter', { dep: watchdog.deferral.dep });
      rows.push([t.t('dashboard.watchdog.held'), h('span', null, holder, live('countdown', watchdog.deferral.until))]);
    }
    if (watchdog.enabled && (!watchdog.seenHealthy || watchdog.verified?.runnable === false)) {
      rows.push([
        t.t('dashboard.watchdog.notRestarting'),
        !watchdog.seenHealthy
          ? t.t('dashboard.watchdog.neverHealthy')
          : (watchdog.verified?.problem ?? t.t('dashboard.watchdog.cannotRun')),
      ]);
    }
    if (watchdog.lastDecision) {
      const d = watchdog.lastDecision;
      rows.push([
        t.t('dashboard.watchdog.lastDecision'),
        // The decision's kind is the watchdog's code, as its log keeps it; its reason is worded.
        h(
          'span',
          null,
          h('span', { lang: 'en' }, d.decision.replace(/_/g, ' ')),
          `: ${decisionWhyOf(d, t)}`,
          ' (',
          live('ago', d.ts),
          ')',
        ),
      ]);
    }
    if (watchdog.lastRestart) {
      const r = watchdog.lastRestart;
      rows.push([
        t.t('dashboard.watchdog.lastRestart'),
        h(
          'span',
          null,
          live('ago', r.ts),
          `, ${r.trigger}${r.evidence && r.evidence !== 'manual' ? ` (${r.evidence})` : ''}: ${r.result.replace(/_/g, ' ')}`,
          r.recoveryMs === null ? '' : t.t('dashboard.watchdog.recoveredIn', { ms: r.recoveryMs }),
        ),
      ]);
    }
    rows.push([
      t.t('dashboard.watchdog.via'),
      watchdog.strategy.description ?? t.t('dashboard.watchdog.noStrategy', { problem: watchdog.strategy.problem }),
    ]);
    const actions = h(
      'div',
      { class: 'actions', role: 'group', 'aria-label': t.t('dashboard.watchdog.actions') },
      button(t.t('dashboard.watchdog.restart'), () => this.restart(watchdog), {
        class: 'primary',
        'data-action': 'restart',
        'data-key': 'restart',
      }),
      button(
        t.t('dashboard.watchdog.pause15'),
        () => this.watchdogAction(() => this.context.api.pause(900), t.t('dashboard.watchdog.did.pause15')),
        { 'data-key': 'pause-15m' },
      ),
      button(
        t.t('dashboard.watchdog.pause1h'),
        () => this.watchdogAction(() => this.context.api.pause(3600), t.t('dashboard.watchdog.did.pause1h')),
        { 'data-key': 'pause-1h' },
      ),
      button(
        t.t('dashboard.watchdog.pauseForever'),
        () => this.watchdogAction(() => this.context.api.pause(null), t.t('dashboard.watchdog.did.pauseForever')),
        { 'data-key': 'pause-forever' },
      ),
      button(
        t.t('dashboard.watchdog.resume'),
        () => this.watchdogAction(() => this.context.api.resume(), t.t('dashboard.watchdog.did.resume')),
        { disabled: !watchdog.paused, 'data-action': 'resume', 'data-key': 'resume' },
      ),
    );
    section.append(
      modeLine,
      h('dl', null, ...rows.flatMap(([term, value]) => [h('dt', null, term), h('dd', null, value)])),
      actions,
    );
    return section;
  }

  private async restart(watchdog: WatchdogStatus): Promise<void> {
    const choice = await confirmRestart(watchdog.strategy.description);
    if (choice === null) return;
    const t = this.context.t;
    await this.watchdogAction(
      () => this.context.api.restart({ force: choice === 'force', reason: `restart ${REASON}` }),
      t.t(choice === 'force' ? 'dashboard.watchdog.did.forced' : 'dashboard.watchdog.did.restart'),
    );
  }

  private async watchdogAction(run: () => Promise<WatchdogResponse>, what: string): Promise<void> {
    try {
      const answer = await run();
      const accepted = ['restart', 'paused', 'quiet'].includes(answer.decision);
      this.context.say(
        `${what}: ${answer.decision.replace(/_/g, ' ')} (${answer.reason})`,
        accepted ? 'success' : 'info',
      );
      this.context.changed('decision', 'restart');
    } catch (error) {
      if (!(error instanceof Cancelled))
        this.context.say(
          this.context.t.t('dashboard.watchdog.failed', { what, error: describeFailure(error) }),
          'error',
        );
    }
  }
}
