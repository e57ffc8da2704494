/**
 * The peer view without Redis: which reports count, in what order, for how
 * long; and the wire format's validation (anyone with Redis access can
 * publish on the channel).
 */
import { describe, expect, it } from 'vitest';
import {
  formatTransitionMessage,
  PeerView,
  parseTransitionMessage,
  type TransitionMessage,
} from '../../../main/core/fleet/peers.js';

const TTL = 600_000;

function message(overrides: Partial<TransitionMessage> = {}): TransitionMessage {
  return {
    host: 'a',
    dep: 'openai/gpt-4o',
    from: 'closed',
    to: 'open',
    reason: '5 consecutive failures',
    ts: 1_000,
    openUntil: 31_000,
    at: 1_000,
    seq: 1,
    ...overrides,
  };
}

function setup(start = 1_000) {
  let now = start;
  const view = new PeerView({ hostId: 'me', ttlMs: TTL, clock: () => now });
  return {
    view,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('PeerView', () => {
  it('shows a peer that opened, and forgets it when it reports closed', () => {
    const { view } = setup();
    expect(view.apply(message(), true)).toEqual({
      host: 'a',
      dep: 'openai/gpt-4o',
      state: 'open',
      since: 1_000,
      reason: '5 consecutive failures',
      openUntil: 31_000,
    });
    expect(view.peers().map((p) => p.state)).toEqual(['open']);
    const closed = view.apply(message({ from: 'half_open', to: 'closed', at: 2_000, seq: 2, openUntil: null }), true);
    expect(closed?.state).toBe('closed');
    expect(view.peers()).toEqual([]);
    expect(view.peers('openai/gpt-4o')).toEqual([]);
  });

  it('ignores its own reports', () => {
    const { view } = setup();
    expect(view.apply(message({ host: 'me' }), true)).toBeNull();
    expect(view.peers()).toEqual([]);
  });

  it('keeps the newest report per host and dependency, whatever the arrival order', () => {
    const { view } = setup(10_000);
    const open = message({ at: 5_000, seq: 7 });
    const halfOpen = message({ from: 'open', to: 'half_open', at: 5_000, seq: 8 });
    expect(view.apply(halfOpen, true)).not.toBeNull();
    // The older report arrives late (read from the hash after a reconnect): ignored.
    expect(view.apply(open, false)).toBeNull();
    // The same report twice (republished after an outage): not news.
    expect(view.apply(halfOpen, true)).toBeNull();
    expect(view.peers().map((p) => p.state)).toEqual(['half_open']);
  });

  it('does not let an old "open" read late resurrect a breaker its host has closed', () => {
    const { view } = setup(10_000);
    view.apply(message({ to: 'closed', from: 'half_open', at: 9_000, seq: 3, openUntil: null }), true);
    expect(view.apply(message({ at: 8_000, seq: 2 }), false)).toBeNull();
    expect(view.peers()).toEqual([]);
  });

  it('does not announce a closed report read on connect for a peer never seen open', () => {
    const { view } = setup(10_000);
    expect(view.apply(message({ to: 'closed', from: 'half_open', at: 9_000, openUntil: null }), false)).toBeNull();
  });

  it('lists peers by dependency then host, and filters by dependency', () => {
    const { view } = setup();
    view.apply(message({ host: 'c', dep: 'z' }), true);
    view.apply(message({ host: 'b', dep: 'y' }), true);
    view.apply(message({ host: 'a', dep: 'y', to: 'throttled' }), true);
    expect(view.peers().map((p) => `${p.dep}/${p.host}/${p.state}`)).toEqual(['y/a/throttled', 'y/b/open', 'z/c/open']);
    expect(view.peers('z').map((p) => p.host)).toEqual(['c']);
    expect(view.peers('nothing')).toEqual([]);
  });

  it('forgets a report older than the TTL, counted from when it arrived', () => {
    const { view, advance } = setup();
    view.apply(message({ openUntil: 2_000 }), true);
    advance(TTL);
    expect(view.peers()).toHaveLength(1);
    advance(1);
    expect(view.peers()).toEqual([]);
  });

  it('keeps a report past the TTL while its openUntil is later (a long Retry-After)', () => {
    const { view, advance } = setup();
    view.apply(message({ to: 'throttled', openUntil: 1_000 + 3_600_000 }), true);
    advance(TTL + 1);
    expect(view.peers()).toHaveLength(1);
    advance(3_600_000 - TTL);
    expect(view.peers()).toEqual([]);
  });

  it('ages a report read from the hash by its publish time', () => {
    const { view } = setup(1_000 + TTL + 5);
    // Published TTL+5 ms ago by the peer's clock: stale, not news.
    expect(view.apply(message({ openUntil: null }), false)).toBeNull();
    expect(view.apply(message({ at: 100 + TTL, openUntil: null }), false)).not.toBeNull();
  });
});

describe('transition messages', () => {
  it('round-trip through JSON', () => {
    const m = message({ reason: 'Retry-After 120 s "quoted"', openUntil: null });
    expect(parseTransitionMessage(formatTransitionMessage(m))).toEqual(m);
  });

  it('leave out fields that are not part of the format', () => {
    const text = formatTransitionMessage({ ...message(), extra: 'x' } as TransitionMessage);
    expect(JSON.parse(text)).not.toHaveProperty('extra');
  });

  it.each([
    ['not JSON', '{'],
    ['not an object', '42'],
    ['null', 'null'],
    ['no host', formatTransitionMessage(message({ host: '' }))],
    ['an unknown state', formatTransitionMessage(message()).replace('"open"', '"exploded"')],
    ['a string ts', formatTransitionMessage(message()).replace('"ts":1000', '"ts":"1000"')],
    ['a fractional seq', formatTransitionMessage(message()).replace('"seq":1', '"seq":1.5')],
    ['a string openUntil', formatTransitionMessage(message()).replace('"openUntil":31000', '"openUntil":"soon"')],
  ])('are refused when %s', (_, text) => {
    expect(parseTransitionMessage(text)).toBeNull();
  });
});
