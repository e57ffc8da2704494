/**
 * Overview: the gateway's health (a line and the last hour's probe timeline),
 * one card per dependency, and the watchdog with its controls.
 */
import type { ApiBreaker, ApiHistory, ApiStatus, WatchdogResponse } from '../../main/core/server/api-types.js';
import type { WatchdogStatus } from '../../main/core/watchdog/runner.js';
import { Cancelled } from '../api.js';
import { healthSeries, marksOf } from '../chart-data.js';
import { type Chart, healthChart } from '../charts.js';
import {
  breakerWaits,
  byAttention,
  openclawCooldownOf,
  restartsInLastHour,
  tokensOf,
  watchdogMode,
} from '../describe.js';
import { button, fill, h, keepingFocus, live, RenderGate } from '../dom.js';
import { describeFailure, failureBox } from '../errors-ui.js';
import { compact, count, duration, inLast, integer, percent, stateLabel } from '../format.js';
import { confirmRestart } from '../restart-dialog.js';
import { renderLive } from '../ticker.js';
import { markTarget, type Target, type View, type ViewContext } from '../view.js';

const HOUR_MS = 3_600_000;
const REASON = 'requested from the dashboard';

export class OverviewView implements View {
  readonly key = 'overview' as const;
  readonly label = 'Overview';
  readonly panel = h('section', { class: 'view overview' });
  private readonly gate = new RenderGate(this.panel);
  readonly debounceMs = 750;
  private chart: Chart | null = null;
  private last: { status: ApiStatus; history: ApiHistory } | null = null;

  constructor(private readonly context: ViewContext) {}

  affectedBy(): boolean {
    // Everything on this page moves with the core: breakers, probes, restarts, decisions, budgets.
    return true;
  }

  async refresh(): Promise<void> {
    const { api } = this.context;
    const now = Date.now();
    try {
      const [status, history] = await Promise.all([
        api.status(),
        api.history({ from: now - HOUR_MS, to: now + 1000, stepSec: 60 }),
      ]);
      this.last = { status, history };
      this.gate.run(() => this.render(status, history));
    } catch (error) {
      this.chart?.destroy();
      this.chart = null;
      fill(this.panel, failureBox('Could not load the status', error));
    }
  }

  redraw(): void {
    if (this.last) this.render(this.last.status, this.last.history);
  }

  reveal(target: Target): void {
    const card = [...this.panel.querySelectorAll<HTMLElement>('.card')].find((c) => c.dataset.dep === target.dep);
    markTarget(card ?? (target.kind?.startsWith('gateway') ? this.panel.querySelector('.gateway') : null));
  }

  private render(status: ApiStatus, history: ApiHistory): void {
    this.chart?.destroy();
    this.chart = null;
    const chartTarget = h('div', { class: 'chart', 'data-chart': 'health' });
    keepingFocus(this.panel, () =>
      fill(
        this.panel,
        this.gatewaySection(status, history, chartTarget),
        this.dependencySection(status),
        this.watchdogSection(status.watchdog),
      ),
    );
    renderLive(this.panel);
    if (status.gateway !== null) {
      const series = healthSeries(history.probes, history.to);
      chartTarget.dataset.probes = String(series.xs.length);
      chartTarget.dataset.down = String(series.down.length);
      this.chart = healthChart({
        target: chartTarget,
        series,
        marks: marksOf({ restarts: history.restarts, transitions: [] }),
        range: [history.from / 1000, history.to / 1000],
      });
    }
  }

  private gatewaySection(status: ApiStatus, history: ApiHistory, chartTarget: HTMLElement): HTMLElement {
    const { gateway } = status;
    const section = h('section', { class: 'block gateway', 'aria-labelledby': 'gateway-heading' });
    section.append(h('h2', { id: 'gateway-heading' }, 'Gateway'));
    if (gateway === null) {
      section.append(h('p', { class: 'muted' }, 'This BreakerBar instance does not probe the gateway.'));
      return section;
    }
    const last = gateway.last;
    const line = h('p', { class: 'health-line', 'data-testid': 'gateway-line' });
    if (last === null) {
      line.append(h('span', { class: 'badge state-unknown' }, 'unknown'), ` No probe of ${gateway.baseUrl} yet.`);
    } else if (gateway.downSince !== null || !last.ok) {
      line.classList.add('down');
      line.append(
        h('span', { class: 'badge state-open' }, 'down'),
        ' since ',
        gateway.downSince === null ? 'the last probe' : live('ago', gateway.downSince),
        `: ${last.class.replace(/_/g, ' ')}. ${last.detail}`,
      );
    } else {
      line.append(
        h('span', { class: 'badge state-closed' }, 'up'),
        ' ',
        gateway.upSince === null ? '' : h('span', null, 'for ', live('since', gateway.upSince)),
        ' · last probe ',
        live('ago', last.ts),
        last.latencyMs === null ? '' : ` (${integer(last.latencyMs)} ms)`,
      );
    }
    const restarts = restartsInLastHour(history.restarts, Date.now());
    const probes = healthSeries(history.probes, history.to);
    section.append(
      line,
      h(
        'p',
        { class: 'muted', 'data-testid': 'gateway-summary' },
        `${gateway.baseUrl} · ${inLast(restarts, 'restart', 'hour')} · ${count(probes.ok + probes.failed, 'probe')}, ${integer(probes.failed)} failed`,
      ),
      h(
        'figure',
        null,
        chartTarget,
        h('figcaption', { class: 'muted' }, 'Probe latency over the last hour; shaded: gateway down; lines: restarts.'),
      ),
    );
    return section;
  }

  private dependencySection(status: ApiStatus): HTMLElement {
    const section = h('section', { class: 'block', 'aria-labelledby': 'deps-heading' });
    section.append(h('h2', { id: 'deps-heading' }, 'Dependencies'));
    if (status.breakers.length === 0) {
      const doctor = button('Open the Doctor', () => this.context.show('doctor'), { class: 'link' });
      section.append(
        h(
          'p',
          { class: 'muted' },
          'No model calls seen yet. BreakerBar reads the transcripts OpenClaw writes; if nothing arrives, ',
          doctor,
          ' shows what it looked for and where.',
        ),
      );
      return section;
    }
    const cards = h('div', { class: 'cards' });
    for (const breaker of byAttention(status.breakers)) cards.append(this.card(breaker, status));
    section.append(cards);
    return section;
  }

  private card(breaker: ApiBreaker, status: ApiStatus): HTMLElement {
    const { window: w } = breaker;
    const waits = breakerWaits(breaker);
    const rows: Array<[string, Node | string]> = [
      [
        'Failure rate',
        w.calls === 0 ? 'no calls in the window' : `${percent(w.failureRate)} of ${count(w.calls, 'call')}`,
      ],
      ['Window', `${integer(w.successes)} ok · ${integer(w.failures)} failed`],
      ['Failures in a row', integer(breaker.consecutiveFailures)],
    ];
    if (waits.nextProbe !== null) rows.push(['Next probe', live('countdown', waits.nextProbe)]);
    if (waits.retryAfter !== null && waits.retryAfter > Date.now()) {
      rows.push(['Retry-After ends', live('countdown', waits.retryAfter)]);
    }
    // OpenClaw's own cooldown: it will not call this dependency before then, whatever the breaker says.
    const cooldown = openclawCooldownOf(breaker, Date.now());
    if (cooldown) {
      rows.push([
        cooldown.label,
        h(
          'span',
          { 'data-testid': 'openclaw-cooldown' },
          live('left', cooldown.until),
          ` (${cooldown.reason}) · profile ${cooldown.profile}`,
        ),
      ]);
    }
    rows.push(['Rejected while open', integer(breaker.rejections)]);
    if (breaker.lastEventAt !== null) rows.push(['Last call', live('ago', breaker.lastEventAt)]);
    if (breaker.soleDependents.length > 0) rows.push(['Stuck while down', breaker.soleDependents.join(', ')]);
    // Other hosts of the fleet (shared over Redis) whose breaker for this dependency is not closed.
    if ((breaker.elsewhere ?? []).length > 0) {
      rows.push(['Elsewhere', breaker.elsewhere.map((peer) => `${peer.state} on ${peer.host}`).join(', ')]);
    }
    if (breaker.stalled) {
      rows.push([
        'Stalled',
        h('span', null, `${count(breaker.stalled.sessions, 'session')} since `, live('ago', breaker.stalled.since)),
      ]);
    }
    const tokens = tokensOf(status.tokens, breaker.dep);
    const state = breaker.state.replace(/_/g, '-');
    return h(
      'article',
      { class: `card state-${state}`, 'data-dep': breaker.dep, 'data-state': breaker.state },
      h(
        'header',
        null,
        h('h3', null, breaker.dep),
        h('span', { class: `badge state-${state}` }, stateLabel(breaker.state)),
        breaker.forced ? h('span', { class: 'badge forced' }, `forced ${breaker.forced}`) : null,
        cooldown ? h('span', { class: 'badge openclaw-cooldown' }, cooldown.label) : null,
      ),
      // A breaker that never changed state has no meaningful "since" (it is 0: the epoch).
      h(
        'p',
        { class: 'reason' },
        breaker.reason,
        breaker.since > 0 ? h('span', null, ' · since ', live('ago', breaker.since)) : null,
      ),
      h('dl', null, ...rows.flatMap(([term, value]) => [h('dt', null, term), h('dd', null, value)])),
      tokens.length === 0
        ? null
        : h(
            'ul',
            { class: 'tokens', 'aria-label': 'Tokens per minute' },
            ...tokens.map((rate) =>
              h(
                'li',
                { class: rate.overBudget ? 'over-budget' : null },
                `${rate.agentId}: ${compact(rate.tokensPerMinute)} tokens/min`,
                rate.budget === null ? '' : ` of ${compact(rate.budget)} budget`,
                rate.overBudget ? ' (over budget)' : '',
              ),
            ),
          ),
      this.controls(breaker),
    );
  }

  private controls(breaker: ApiBreaker): HTMLElement {
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
      h('summary', { 'data-key': `controls-summary:${breaker.dep}` }, 'Breaker controls'),
      h(
        'div',
        { class: 'actions' },
        button('Force open', act('force_open', 'forced open'), { 'data-key': `force_open:${breaker.dep}` }),
        button('Force closed', act('force_closed', 'forced closed'), { 'data-key': `force_closed:${breaker.dep}` }),
        button('Reset', act('reset', 'reset to automatic'), { 'data-key': `reset:${breaker.dep}` }),
      ),
    );
  }

  private watchdogSection(watchdog: WatchdogStatus | null): HTMLElement {
    const section = h('section', { class: 'block watchdog', 'aria-labelledby': 'watchdog-heading' });
    section.append(h('h2', { id: 'watchdog-heading' }, 'Watchdog'));
    if (watchdog === null) {
      section.append(h('p', { class: 'muted' }, 'This BreakerBar instance runs no watchdog.'));
      return section;
    }
    const mode = watchdogMode(watchdog);
    const modeLine = h('p', { class: `mode mode-${mode.kind}`, 'data-testid': 'watchdog-mode' }, mode.text);
    if (mode.kind === 'paused' && mode.until !== null) modeLine.append(' · resumes ', live('countdown', mode.until));
    const rows: Array<[string, Node | string]> = [
      ['Storm checks', `${watchdog.consecutiveChecks} / ${watchdog.threshold} in a row`],
      ['Dead probes', `${watchdog.healthFailures} / ${watchdog.healthFailuresBeforeRestart} in a row`],
      ['Restart budget', `${watchdog.budgetRemaining} of ${watchdog.maxRestartsPerHour} left this hour`],
    ];
    if (watchdog.restartInFlight) {
      rows.push([
        'Restart running',
        h('span', null, `${watchdog.restartInFlight.trigger}, for `, live('since', watchdog.restartInFlight.since)),
      ]);
    }
    const rec = watchdog.recovering;
    if (rec) {
      const what = rec.pending
        ? 'OpenClaw restarts once its work has drained; pending for '
        : rec.trigger === 'gateway'
          ? 'the gateway restarted itself; waiting for it to start, for '
          : `after a ${rec.trigger} restart, for `;
      rows.push([rec.pending ? 'Restart pending' : 'Recovering', h('span', null, what, live('since', rec.since))]);
    }
    if (watchdog.deferral) {
      const holder =
        watchdog.deferral.cause === 'cooldown'
          ? `OpenClaw holds ${watchdog.deferral.dep} in cooldown`
          : `${watchdog.deferral.dep} asked to wait`;
      rows.push([
        'Storm restart held',
        h('span', null, `${holder}; until `, live('countdown', watchdog.deferral.until)),
      ]);
    }
    if (watchdog.enabled && (!watchdog.seenHealthy || watchdog.verified?.runnable === false)) {
      rows.push([
        'Not restarting',
        !watchdog.seenHealthy
          ? 'the gateway has not been seen healthy since BreakerBar started'
          : (watchdog.verified?.problem ?? 'the restart strategy cannot run here'),
      ]);
    }
    if (watchdog.lastDecision) {
      const d = watchdog.lastDecision;
      rows.push([
        'Last decision',
        h('span', null, `${d.decision.replace(/_/g, ' ')}: ${d.reason} (`, live('ago', d.ts), ')'),
      ]);
    }
    if (watchdog.lastRestart) {
      const r = watchdog.lastRestart;
      rows.push([
        'Last restart',
        h(
          'span',
          null,
          live('ago', r.ts),
          `, ${r.trigger}${r.evidence && r.evidence !== 'manual' ? ` (${r.evidence})` : ''}: ${r.result.replace(/_/g, ' ')}`,
          r.recoveryMs === null ? '' : `, recovered in ${duration(r.recoveryMs)}`,
        ),
      ]);
    }
    rows.push([
      'Restarts via',
      watchdog.strategy.description ?? `nothing: ${watchdog.strategy.problem ?? 'no restart strategy'}`,
    ]);
    const actions = h(
      'div',
      { class: 'actions', role: 'group', 'aria-label': 'Watchdog actions' },
      button('Restart gateway…', () => this.restart(watchdog), {
        class: 'primary',
        'data-action': 'restart',
        'data-key': 'restart',
      }),
      button('Pause 15 min', () => this.watchdogAction(() => this.context.api.pause(900), 'Pause for 15 minutes'), {
        'data-key': 'pause-15m',
      }),
      button('Pause 1 h', () => this.watchdogAction(() => this.context.api.pause(3600), 'Pause for an hour'), {
        'data-key': 'pause-1h',
      }),
      button(
        'Pause until resumed',
        () => this.watchdogAction(() => this.context.api.pause(null), 'Pause until resumed'),
        {
          'data-key': 'pause-forever',
        },
      ),
      button('Resume', () => this.watchdogAction(() => this.context.api.resume(), 'Resumed'), {
        disabled: !watchdog.paused,
        'data-action': 'resume',
        'data-key': 'resume',
      }),
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
    await this.watchdogAction(
      () => this.context.api.restart({ force: choice === 'force', reason: `restart ${REASON}` }),
      choice === 'force' ? 'Forced restart' : 'Restart',
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
      if (!(error instanceof Cancelled)) this.context.say(`${what} failed: ${describeFailure(error)}`, 'error');
    }
  }
}
