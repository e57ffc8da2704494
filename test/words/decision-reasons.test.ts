import { describe, expect, it } from 'vitest';
import {
  DECISION_REASON_CODES,
  type DecisionReason,
  decisionReasonLine,
  decodeDecisionReason,
  encodeDecisionReason,
  GATEWAY_LOG_RESTARTING,
  wordDecisionReason,
} from '../../main/words/decision-reasons.js';
import { translator } from '../../main/words/messages/index.js';

const en = translator('en');
const zh = translator('zh-CN');
const MIN = 60_000;
const refused = { code: 'refused', where: '127.0.0.1:18789' } as const;

/** One reason of every code (and the forms a code takes), and the policy's line for it, as it wrote it before. */
const EXAMPLES: Array<[DecisionReason, string]> = [
  [{ code: 'probe', probe: { code: 'live', ms: 3, startupz: 200 } }, 'live (/healthz 200 in 3 ms), started'],
  [
    { code: 'not-openclaw', probe: { code: 'not-openclaw', status: 200 } },
    "the gateway address answers, but not as an OpenClaw gateway (/healthz answered HTTP 200 without OpenClaw's JSON: something else listens there); check gatewayUrl. Nothing is restarted for it",
  ],
  [
    { code: 'dead-streak', probe: refused, count: 1, needed: 2, forMs: 0, afterMs: 15_000, disabled: false },
    'connection refused on 127.0.0.1:18789 (dead probe 1 of 2, for 0 ms of 15 s)',
  ],
  [
    { code: 'dead-streak', probe: refused, count: 5, needed: 2, forMs: 20_000, afterMs: 15_000, disabled: true },
    'connection refused on 127.0.0.1:18789 (dead probe 5 (2 needed), for 20 s of 15 s); watchdog disabled',
  ],
  [{ code: 'dead', probe: refused, forMs: 30_000 }, 'gateway dead for 30 s: connection refused on 127.0.0.1:18789'],
  [
    { code: 'unloaded', probe: refused, parked: true },
    'gateway dead (connection refused on 127.0.0.1:18789) and its service is parked: the service manager stopped respawning it',
  ],
  [
    { code: 'stalled', sessions: 1, deps: [], quietMs: MIN, hungAfterMs: 5 * MIN },
    '1 session stalled (no dependency named) and no upstream attempt for 1 min (hung after 5 min)',
  ],
  [
    { code: 'stalled-disabled', sessions: 2, deps: ['a/b'], quietMs: MIN },
    '2 sessions stalled (a/b) and no upstream attempt for 1 min; watchdog disabled',
  ],
  [
    { code: 'hung', sessions: 2, deps: ['a/b', 'c/d'], quietMs: 6 * MIN },
    'gateway hung: it answers its probes, but 2 sessions stalled (a/b, c/d) and no upstream attempt for 6 min',
  ],
  [
    { code: 'divergence', stuck: [{ dep: 'a/b', state: 'open', forMs: 4 * MIN }] },
    'Health probes are green while a/b has been open for 4 min: health checks alone are lying.',
  ],
  [{ code: 'no-storm', reset: true }, 'no new rate-limited calls: count reset'],
  [{ code: 'storm-disabled', total: 4 }, '4 new rate-limited calls; watchdog disabled'],
  [
    { code: 'storm-counting', deps: [{ dep: 'a/b', count: 1 }], check: 1, threshold: 3 },
    '1 new rate-limited call (a/b 1), check 1 of 3',
  ],
  [
    { code: 'storm-held', dep: 'a/b', by: 'cooldown', leftMs: 90_000, count: 2, threshold: 3 },
    "no new rate-limited calls while a/b waits out OpenClaw's cooldown (1 min 30 s left): count held at 2 of 3",
  ],
  [
    { code: 'retry-due', dep: 'a/b', agoMs: 5000, count: 3, threshold: 3 },
    'no new rate-limited calls yet, but the retry of a/b is due (its Retry-After ended 5 s ago): the storm stays judged',
  ],
  [
    { code: 'fallbacks', deps: [{ dep: 'a/b', fallbacks: ['c/d', 'e/f'] }] },
    'rate limited, but fallbacks are answering (a/b → c/d, e/f); not restarting',
  ],
  [
    { code: 'storm-waited', deps: ['a/b'], forMs: 3 * MIN },
    "429 storm on a/b for 3 min, no fallback answering: waited out, not restarted (watchdog.stormRestart is off: OpenClaw retries its runs through a storm, and a restart cannot lift a provider's limit)",
  ],
  [
    { code: 'storm', deps: ['a/b'], forMs: 3 * MIN, upstream: 'held_longest', heldMs: 10 * MIN },
    '429 storm on a/b for 3 min, held the longest allowed (10 min) for Retry-After or cooldown, no fallback answering: restarting',
  ],
  [
    { code: 'deferred', deps: ['a/b'], dep: 'a/b', cause: 'retry_after', askedMs: 2 * MIN, heldMs: 2 * MIN },
    "429 storm on a/b: a/b asked to retry after 2 min; restart held 2 min (a restart cannot lift a provider's limit, and OpenClaw keeps its cooldowns across restarts)",
  ],
  [{ code: 'paused', forMs: 10 * MIN, another: false }, 'watchdog paused for 10 min'],
  [{ code: 'paused', forMs: 5 * MIN, another: true }, 'watchdog paused for another 5 min'],
  [{ code: 'paused', forMs: null, another: false, note: null }, 'watchdog paused until resumed (paused by the user)'],
  [{ code: 'maintenance', note: 'ops window' }, 'maintenance window (ops window): no automatic restart'],
  [{ code: 'in-flight', trigger: 'storm', sinceMs: 2 * MIN }, 'a storm restart is already running (since 2 min)'],
  [
    { code: 'pending', agoMs: MIN, manual: false },
    'OpenClaw accepted a restart 1 min ago and will do it once work has drained; not issuing another',
  ],
  [{ code: 'busy', state: 'draining' }, 'the gateway reports draining; never restarted while it is'],
  [
    { code: 'recovering', self: true, agoMs: 30_000, graceMs: 5 * MIN },
    'the gateway restarted itself 30 s ago; waiting for started (grace 5 min)',
  ],
  [
    { code: 'budget', restarts: 2, max: 2, nextInMs: 40 * MIN },
    'restart budget spent: 2 restarts in the last hour (max 2); next in 40 min or when you act',
  ],
  [
    { code: 'spacing', sinceMs: 30_000, nth: 2, spacingMs: MIN },
    'last restart 30 s ago; restart 2 this hour waits 1 min after it',
  ],
  [
    { code: 'blocked', cause: 'never_healthy', problem: null },
    "not restarting: BreakerBar has not seen this gateway healthy since it started, so its failures may be BreakerBar's own wrong address or a gateway that was never installed. Run `breakerbar doctor`",
  ],
  [
    {
      code: 'blocked',
      cause: 'owner',
      rule: 'external_supervisor',
      who: 'pm2',
      said: 'an external supervisor restarts it',
    },
    'not restarting: an external supervisor restarts it',
  ],
  [
    { code: 'dry-run', order: { code: 'manual', note: null } },
    'dry run: would restart (restart requested by the user)',
  ],
  [{ code: 'pause-ended' }, 'pause ended; watchdog active again'],
  [{ code: 'budget-refilled' }, 'restart budget refilled'],
  [{ code: 'resumed' }, 'watchdog resumed; restart budget reset'],
  [
    { code: 'recovered', self: false, afterMs: 130_000 },
    'gateway started and answers its probes 2 min 10 s after the restart',
  ],
  [
    { code: 'not-recovered', how: 'pending', graceMs: 5 * MIN },
    'OpenClaw accepted the restart but had not done it 5 min later',
  ],
  [
    { code: 'restarted-itself', uptimeMs: 1000 },
    'the gateway restarted by itself 1 s ago (its uptime went back); not counted as an outage',
  ],
  [
    { code: 'gateway-restarting', said: GATEWAY_LOG_RESTARTING, stands: 'counted' },
    'the gateway log says it is restarting itself (SIGUSR2); counted toward the restart in progress',
  ],
  [{ code: 'manual', note: '升级之前' }, '升级之前'],
  [{ code: 'text', text: 'something an older core said' }, 'something an older core said'],
];

/** Three English words in a row (as the acceptance test of the Chinese dashboard counts them). */
const ENGLISH_SENTENCE = /\b[A-Za-z][a-z]+(?:[,:;]?\s+[a-z]+){2,}\b/;
const CJK = /[\u4e00-\u9fff]/;

describe('decision reasons: codes and facts, worded when read', () => {
  it('has an example of every code', () => {
    expect(new Set(EXAMPLES.map(([r]) => r.code))).toEqual(new Set(DECISION_REASON_CODES));
  });

  it.each(EXAMPLES)('%o reads as the policy line it always wrote', (reason, line) => {
    expect(decisionReasonLine(reason)).toBe(line);
  });

  it.each(EXAMPLES.filter(([r]) => r.code !== 'text' && r.code !== 'manual'))(
    '%o is worded in English and in Chinese',
    (reason) => {
      const english = wordDecisionReason(reason, en);
      const chinese = wordDecisionReason(reason, zh);
      expect(english).not.toMatch(CJK);
      expect(chinese).toMatch(CJK);
      expect(chinese).not.toMatch(ENGLISH_SENTENCE);
    },
  );

  it('words the facts it carries: a quoted probe, a time, the user note', () => {
    expect(wordDecisionReason({ code: 'dead', probe: refused, forMs: 30_000 }, zh)).toBe(
      '网关已宕机 30 秒：127.0.0.1:18789 拒绝连接',
    );
    expect(wordDecisionReason({ code: 'dead', probe: refused, forMs: 30_000 }, en)).toBe(
      'Gateway dead for 30 s: Connection refused on 127.0.0.1:18789',
    );
    expect(wordDecisionReason({ code: 'manual', note: null }, zh)).toBe('用户请求重启');
    expect(wordDecisionReason({ code: 'manual', note: 'before the upgrade' }, zh)).toBe('before the upgrade');
  });

  it('is stored as its code and facts, and read back the same', () => {
    for (const [reason] of EXAMPLES) expect(decodeDecisionReason(encodeDecisionReason(reason))).toEqual(reason);
  });

  it('reads a row stored before reasons were codes as it was, but a probe detail alone is worded as one', () => {
    expect(decodeDecisionReason('restart budget refilled')).toEqual({ code: 'text', text: 'restart budget refilled' });
    expect(wordDecisionReason(decodeDecisionReason('restart budget refilled'), zh)).toBe('restart budget refilled');
    expect(wordDecisionReason(decodeDecisionReason('starting (/startupz 503)'), zh)).toBe('正在启动（/startupz 503）');
    expect(decodeDecisionReason('{"code":"unheard-of"}')).toEqual({ code: 'text', text: '{"code":"unheard-of"}' });
  });
});
