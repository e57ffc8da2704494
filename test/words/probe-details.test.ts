import { describe, expect, it } from 'vitest';
import { translator } from '../../main/words/messages/index.js';
import {
  decodeProbeDetail,
  encodeProbeDetail,
  PROBE_DETAIL_CODES,
  type ProbeDetail,
  probeDetailLine,
  wordProbeDetail,
} from '../../main/words/probe-details.js';

const en = translator('en');
const zh = translator('zh-CN');

/** One detail of every code (and the forms a code takes), and how each reads: the prober's line, English, Chinese. */
const EXAMPLES: Array<[ProbeDetail, string, string, string]> = [
  [
    { code: 'refused', where: '127.0.0.1:18789' },
    'connection refused on 127.0.0.1:18789',
    'Connection refused on 127.0.0.1:18789',
    '127.0.0.1:18789 拒绝连接',
  ],
  [
    { code: 'connect-timeout', where: '127.0.0.1:18789', ms: 2500 },
    'no connection to 127.0.0.1:18789 within 2.5 s (connect timeout)',
    'No connection to 127.0.0.1:18789 within 2.5 s (connect timeout)',
    '2.5 秒内未能连接 127.0.0.1:18789（连接超时）',
  ],
  [
    { code: 'read-timeout', path: '/healthz', ms: 10_000 },
    'no answer to /healthz within 10 s (read timeout)',
    'No answer to /healthz within 10 s (read timeout)',
    '/healthz 在 10 秒内没有应答（读取超时）',
  ],
  [
    { code: 'reset', where: '127.0.0.1:18789', path: '/startupz' },
    'connection reset by 127.0.0.1:18789 during /startupz',
    'Connection reset by 127.0.0.1:18789 during /startupz',
    '请求 /startupz 时 127.0.0.1:18789 重置了连接',
  ],
  [
    { code: 'failed', path: '/healthz', where: 'gw:1', message: 'getaddrinfo ENOTFOUND gw' },
    '/healthz on gw:1 failed: getaddrinfo ENOTFOUND gw',
    '/healthz on gw:1 failed: getaddrinfo ENOTFOUND gw',
    'gw:1 上的 /healthz 请求失败：getaddrinfo ENOTFOUND gw',
  ],
  [
    { code: 'not-url', url: '127.0.0.1:18789' },
    'not a URL: "127.0.0.1:18789"',
    'The gateway address is not a URL: "127.0.0.1:18789"',
    '网关地址不是有效的 URL："127.0.0.1:18789"',
  ],
  [
    { code: 'not-http', protocol: 'https:' },
    'only plain http on loopback is probed, not https://',
    'Only plain http on loopback is probed, not https://',
    '只探测回环地址上的普通 http，不探测 https://',
  ],
  [
    { code: 'delayed', stallMs: 3200 },
    "probe delayed by BreakerBar's own event loop (3.2 s): gateway state unknown",
    "Probe delayed by BreakerBar's own event loop (3.2 s): gateway state unknown",
    '探测被 BreakerBar 自身的事件循环延误（3.2 秒）：网关状态未知',
  ],
  [
    { code: 'busy', state: 'starting', startupz: 503 },
    'starting (/startupz 503)',
    'Starting (/startupz 503)',
    '正在启动（/startupz 503）',
  ],
  [
    { code: 'busy', state: 'draining', startupz: null },
    'draining (no /startupz answer)',
    'Draining (no /startupz answer)',
    '正在收尾（/startupz 无应答）',
  ],
  [
    { code: 'live', ms: 3, startupz: 200 },
    'live (/healthz 200 in 3 ms), started',
    'Live (/healthz 200 in 3 ms), started',
    '存活（/healthz 200，用时 3 毫秒），已启动',
  ],
  [
    { code: 'live', ms: 12, startupz: 404, notReady: [] },
    'live (/healthz 200 in 12 ms), no /startupz (older gateway); not ready',
    'Live (/healthz 200 in 12 ms), no /startupz (older gateway); not ready',
    '存活（/healthz 200，用时 12 毫秒），没有 /startupz（较旧的网关）；未就绪',
  ],
  [
    { code: 'live', ms: 4, startupz: null, notReady: ['telegram', 'discord'] },
    'live (/healthz 200 in 4 ms), startup unknown (no /startupz answer); not ready: telegram, discord',
    'Live (/healthz 200 in 4 ms), startup unknown (no /startupz answer); not ready: telegram and discord',
    '存活（/healthz 200，用时 4 毫秒），启动状态未知（/startupz 无应答）；未就绪：telegram和discord',
  ],
  [
    { code: 'not-openclaw', status: 200 },
    "/healthz answered HTTP 200 without OpenClaw's JSON: something else listens there",
    "/healthz answered HTTP 200 without OpenClaw's JSON: something else listens there",
    '/healthz 返回 HTTP 200，但不是 OpenClaw 的 JSON：该地址上是别的服务',
  ],
  [
    { code: 'http', status: 503, notReady: ['slack'] },
    '/healthz answered HTTP 503; not ready: slack',
    '/healthz answered HTTP 503; not ready: slack',
    '/healthz 返回 HTTP 503；未就绪：slack',
  ],
  [{ code: 'probe-threw', message: 'boom' }, 'probe failed: boom', 'The probe failed: boom', '探测出错：boom'],
  [
    { code: 'text', text: 'something a peer said' },
    'something a peer said',
    'something a peer said',
    'something a peer said',
  ],
];

describe('probe details: codes and facts, worded when read', () => {
  it('has an example of every code', () => {
    expect(new Set(EXAMPLES.map(([d]) => d.code))).toEqual(new Set(PROBE_DETAIL_CODES));
  });

  it.each(EXAMPLES)('%o reads as the prober line, in English and in Chinese', (detail, line, english, chinese) => {
    expect(probeDetailLine(detail)).toBe(line);
    expect(wordProbeDetail(detail, en)).toBe(english);
    expect(wordProbeDetail(detail, zh)).toBe(chinese);
  });

  it('is stored as its code and facts, and read back the same', () => {
    for (const [detail] of EXAMPLES) expect(decodeProbeDetail(encodeProbeDetail(detail))).toEqual(detail);
    expect(JSON.parse(encodeProbeDetail({ code: 'refused', where: 'h:1' }))).toEqual({ code: 'refused', where: 'h:1' });
  });

  it('reads a row stored before details were codes: known prober lines are worded again, any other text kept', () => {
    for (const [detail, line] of EXAMPLES) {
      const stored = decodeProbeDetail(line);
      expect(stored).toEqual({ code: 'text', text: line });
      expect(wordProbeDetail(stored, zh)).toBe(wordProbeDetail(detail, zh));
    }
    expect(decodeProbeDetail('{not json')).toEqual({ code: 'text', text: '{not json' });
    expect(decodeProbeDetail('{"code":"unheard-of"}')).toEqual({ code: 'text', text: '{"code":"unheard-of"}' });
  });
});
