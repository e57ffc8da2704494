/**
 * The overview's spend panel, compact: tokens and cost per provider today and
 * over 7 and 30 days with the burn rate, each budget as a bar (used, and
 * projected to the period's end, against its limit), and each quota window with
 * what is left and when it resets. Without a spend report it still shows the
 * budgets and quota windows the status carries, and says why the rest is missing.
 */

import type { ApiStatus, BudgetStanding, QuotaWindow, SpendReport, SpendRow } from '../../main/api/types.js';
import type { Translator } from '../../main/words/messages/index.js';
import { h, live } from '../dom.js';
import { describeFailure } from '../errors-ui.js';

export function spendSection(
  spend: SpendReport | null,
  error: unknown,
  status: ApiStatus,
  t: Translator,
  supported: boolean,
): HTMLElement {
  const section = h('section', { class: 'block spend', 'aria-labelledby': 'spend-heading', 'data-testid': 'spend' });
  section.append(h('h2', { id: 'spend-heading' }, t.t('dashboard.spend.heading')));
  if (spend === null) {
    section.append(
      h(
        'p',
        { class: 'muted', 'data-testid': 'spend-unavailable' },
        !supported || error === null
          ? t.t('dashboard.spend.unavailable')
          : t.t('dashboard.spend.failed', { error: describeFailure(error) }),
      ),
    );
  } else {
    section.append(providerTable(spend, t));
  }
  const budgets = spend?.budgets ?? status.budgets;
  const quota = spend?.quota ?? status.quota;
  if (budgets.length > 0) section.append(h('h3', null, t.t('dashboard.spend.budgets')), budgetList(budgets, t));
  if (quota.length > 0) section.append(h('h3', null, t.t('dashboard.spend.quota')), quotaList(quota, t));
  return section;
}

function providerTable(spend: SpendReport, t: Translator): HTMLElement {
  const providers = [
    ...new Set([...spend.month.byProvider, ...spend.week.byProvider, ...spend.today.byProvider].map((r) => r.key)),
  ].sort();
  if (providers.length === 0) return h('p', { class: 'muted' }, t.t('dashboard.spend.none'));
  const cell = (rows: SpendRow[], key: string) => {
    const row = rows.find((r) => r.key === key);
    return h(
      'td',
      { class: 'number' },
      t.t('dashboard.spend.cell', { tokens: row?.tokens ?? 0, cost: row?.cost ?? 0 }),
    );
  };
  const burn = (provider: string) => {
    const rate = spend.burn.find((b) => b.provider === provider);
    return h(
      'td',
      { class: 'number' },
      rate ? t.t('dashboard.spend.perHour', { tokens: rate.tokensPerHour, cost: rate.usdPerHour }) : '—',
    );
  };
  const total = (period: SpendReport['today']) =>
    h('td', { class: 'number' }, t.t('dashboard.spend.cell', { tokens: period.total.tokens, cost: period.total.cost }));
  return h(
    'table',
    { class: 'spend-table', 'data-testid': 'spend-table' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ...(
          [
            'dashboard.spend.provider',
            'dashboard.spend.today',
            'dashboard.spend.week',
            'dashboard.spend.month',
            'dashboard.spend.burn',
          ] as const
        ).map((key) => h('th', { scope: 'col' }, t.t(key))),
      ),
    ),
    h(
      'tbody',
      null,
      ...providers.map((provider) =>
        h(
          'tr',
          { 'data-provider': provider },
          h('th', { scope: 'row' }, provider),
          cell(spend.today.byProvider, provider),
          cell(spend.week.byProvider, provider),
          cell(spend.month.byProvider, provider),
          burn(provider),
        ),
      ),
    ),
    providers.length < 2
      ? null
      : h(
          'tfoot',
          null,
          h(
            'tr',
            null,
            h('th', { scope: 'row' }, t.t('dashboard.spend.total')),
            total(spend.today),
            total(spend.week),
            total(spend.month),
            h('td'),
          ),
        ),
  );
}

/** A share of a limit as a bar width class (10 steps: the CSP allows no inline style). */
function tenths(share: number): number {
  return Math.max(0, Math.min(10, Math.round(share * 10)));
}

function budgetList(budgets: BudgetStanding[], t: Translator): HTMLElement {
  const amount = (b: BudgetStanding, n: number) => (b.unit === 'usd' ? t.usd(n) : t.t('dashboard.spend.tokens', { n }));
  return h(
    'ul',
    { class: 'bars', 'data-testid': 'budgets' },
    ...budgets.map((b) => {
      const used = b.limit > 0 ? b.used / b.limit : 0;
      const projected = b.limit > 0 ? b.projected / b.limit : 0;
      const tone = used >= 1 ? 'over' : projected >= 1 ? 'projected-over' : 'within';
      return h(
        'li',
        { class: `bar-row ${tone}`, 'data-provider': b.provider, 'data-period': b.period },
        h('span', { class: 'bar-label' }, t.t('dashboard.spend.budget', { provider: b.provider, period: b.period })),
        h(
          'span',
          {
            class: 'bar',
            role: 'meter',
            'aria-valuemin': 0,
            'aria-valuemax': b.limit,
            'aria-valuenow': Math.min(b.used, b.limit),
            'aria-label': t.t('dashboard.spend.budget', { provider: b.provider, period: b.period }),
          },
          h('span', { class: `bar-projected w${tenths(projected)}` }),
          h('span', { class: `bar-used w${tenths(used)}` }),
        ),
        h(
          'span',
          { class: 'bar-figures' },
          t.t('dashboard.spend.budgetFigures', {
            used: amount(b, b.used),
            projected: amount(b, b.projected),
            limit: amount(b, b.limit),
          }),
        ),
      );
    }),
  );
}

function quotaList(quota: QuotaWindow[], t: Translator): HTMLElement {
  return h(
    'ul',
    { class: 'bars', 'data-testid': 'quota' },
    ...quota.map((q) => {
      const left = q.exhausted ? 0 : q.usedShare === null ? null : Math.max(0, 1 - q.usedShare);
      return h(
        'li',
        { class: `bar-row ${q.exhausted ? 'over' : 'within'}`, 'data-provider': q.provider },
        h(
          'span',
          { class: 'bar-label' },
          t.t('dashboard.spend.quotaWindow', { provider: q.provider, window: q.window }),
        ),
        h(
          'span',
          { class: 'bar', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': 1, 'aria-valuenow': left ?? 0 },
          h('span', { class: `bar-used w${tenths(q.exhausted ? 1 : (q.usedShare ?? 0))}` }),
        ),
        h(
          'span',
          { class: 'bar-figures' },
          t.t('dashboard.spend.quotaLeft', { left, exhausted: q.exhausted }),
          q.resetsAt === null
            ? ''
            : h('span', null, ` · ${t.t('dashboard.spend.resets')} `, live('countdown', q.resetsAt)),
        ),
      );
    }),
  );
}
