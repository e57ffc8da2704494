/**
 * A CallEvent for tests: `dep` decides provider and model, `outcome` decides
 * stopReason and phase, everything else has a plain default. Tests pass only
 * what their rule is about.
 */
import type { CallEvent, TokenUsage } from '../../main/core/calls/events.js';

export function callEvent(over: Partial<CallEvent> & Pick<CallEvent, 'key' | 'ts'>): CallEvent {
  const dep = over.dep ?? 'zhipu/glm-5.1';
  const [provider = '', model = ''] = dep.split('/');
  const outcome = over.outcome ?? 'ok';
  const failed = outcome !== 'ok';
  return {
    source: 'jsonl',
    agentId: 'main',
    sessionId: 's1',
    dep,
    provider,
    model,
    api: 'openai-completions',
    stopReason: failed ? 'error' : 'stop',
    outcome,
    phase: failed ? 'before_output' : 'complete',
    httpStatus: null,
    errorCode: null,
    retryAfterMs: null,
    credential: null,
    usage: tokenUsage(0),
    ...over,
  };
}

/** Usage with `totalTokens`, split as `input` + `output` (all input unless said otherwise). */
export function tokenUsage(totalTokens: number, input = totalTokens, cost = 0): TokenUsage {
  return { input, output: totalTokens - input, cacheRead: 0, cacheWrite: 0, totalTokens, cost };
}
