/**
 * The budgets' config, declared once: the `budgets` group of config.json (token-rate and spend budgets; keys,
 * defaults, docs), with the upgrade that still reads a file from before spend budgets.
 */
import { checked, group, type Infer, int, list, numList, oneOf, optionalNum, str } from '../config/schema.js';

export const budgetsConfig = group(
  {
    rates: list(
      {
        agent: str('*', 'Agent id, or * for every agent.'),
        dep: str('*', 'Dependency pattern, e.g. anthropic/*.'),
        tokensPerMinute: int(1, 1, 1e12, 'Tokens per minute (usage.totalTokens) allowed before it is an event.'),
      },
      'Token-rate budgets per agent and dependency: crossing one is an event (notification, metric).',
      'budgets {agent, dep, tokensPerMinute}',
      ['tokensPerMinute'],
    ),
    spend: checked(
      list(
        {
          provider: str('*', 'Provider (as in provider/model), or * for all providers together.'),
          period: oneOf(
            'day',
            ['day', 'week', 'month'] as const,
            'Calendar period in local time (weeks begin on Monday).',
          ),
          tokens: optionalNum(1, 1e15, 'Tokens allowed in the period (usage.totalTokens); null: no token limit.'),
          usd: optionalNum(
            0.000001,
            1e9,
            'USD allowed in the period (the cost transcripts report); null: no cost limit.',
          ),
          alertAt: numList(
            [0.8, 1],
            0.01,
            10,
            'Shares of the limit that raise a notice when crossed, once per period.',
          ),
        },
        'Spend budgets per provider and calendar period: crossing an alert share is a notice (once per period), and the standing is in the status, `breakerbar spend` and /metrics.',
        'budgets {provider, period, tokens?, usd?, alertAt?}',
        ['provider', 'period'],
      ),
      (budgets, path) => {
        const i = budgets.findIndex((b) => b.tokens === null && b.usd === null);
        return i < 0 ? null : `config key "${path}[${i}]" sets neither "tokens" nor "usd" (a budget needs a limit)`;
      },
    ),
  },
  // Before spend budgets, `budgets` was the list of rate budgets alone: such a file still loads.
  (value) => (Array.isArray(value) ? { rates: value } : value),
);

export type BudgetsConfig = Infer<typeof budgetsConfig>;
