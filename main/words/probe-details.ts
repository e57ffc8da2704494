/**
 * What a health probe of the gateway found, carried and stored as a code and
 * its facts (never as a sentence), and worded only when read: in the reader's
 * language for the dashboard (`wordProbeDetail`), and in the prober's terse
 * English for the log, the doctor and the decisions that quote it
 * (`probeDetailLine`, the very line the probe wrote before it had codes).
 *
 * The store keeps a detail as the JSON of its code and facts in the `detail`
 * column it always had (no migration). Rows written before hold the English
 * line: `decodeProbeDetail` reads those as `{ code: 'text' }`, and the wording
 * reads the prober's known forms back into their codes (yesterday's probes read
 * in Chinese too) and shows any other text as it was stored.
 *
 * Facts that come from elsewhere stay as they came: an operating system's error
 * message, the names of the gateway's failing readiness checks, an address.
 */
import { formatters } from './i18n.js';
import type { Translator } from './messages/index.js';
import { decodeCoded, encodeCoded } from './stored-codes.js';

/** A readiness that failed: the names of the gateway's failing checks (none named: empty). */
type NotReady = { notReady?: string[] };

export type ProbeDetail =
  /** Nothing accepted the connection at `where` (host:port). */
  | { code: 'refused'; where: string }
  | { code: 'connect-timeout'; where: string; ms: number }
  | { code: 'read-timeout'; path: string; ms: number }
  | { code: 'reset'; where: string; path: string }
  /** Any other failure of the request; `message` is the operating system's own words. */
  | { code: 'failed'; path: string; where: string; message: string }
  | { code: 'not-url'; url: string }
  /** `protocol` as URL gives it (`https:`). */
  | { code: 'not-http'; protocol: string }
  /** BreakerBar's own event loop was blocked for `stallMs` while the probe waited. */
  | { code: 'delayed'; stallMs: number }
  /** /startupz said starting or draining; `startupz`: its status (null: no answer). */
  | { code: 'busy'; state: 'starting' | 'draining'; startupz: number | null }
  /**
   * /healthz answered 200 in `ms`; `startupz`: /startupz's status (null: no answer). 200 says started, 404 an
   * older gateway without it, anything else leaves the startup unknown.
   */
  | ({ code: 'live'; ms: number; startupz: number | null } & NotReady)
  /** /healthz answered, but not with OpenClaw's JSON: something else listens there. */
  | ({ code: 'not-openclaw'; status: number } & NotReady)
  | ({ code: 'http'; status: number } & NotReady)
  /** The probe itself threw (a bug, not the gateway); `message` as thrown. */
  | { code: 'probe-threw'; message: string }
  /** A row stored before details were codes, or any line from elsewhere: shown as it is. */
  | { code: 'text'; text: string };

export type ProbeDetailCode = ProbeDetail['code'];

export const PROBE_DETAIL_CODES: readonly ProbeDetailCode[] = [
  'refused',
  'connect-timeout',
  'read-timeout',
  'reset',
  'failed',
  'not-url',
  'not-http',
  'delayed',
  'busy',
  'live',
  'not-openclaw',
  'http',
  'probe-threw',
  'text',
];

/** How a detail is kept in the store's `detail` column: its code and facts as JSON (a legacy line stays a line). */
export function encodeProbeDetail(detail: ProbeDetail): string {
  return encodeCoded(detail);
}

/** A stored `detail` column read back: a coded detail, or the English line an older BreakerBar stored. */
export function decodeProbeDetail(stored: string): ProbeDetail {
  return decodeCoded<ProbeDetail>(stored, PROBE_DETAIL_CODES);
}

/** The prober's line states a timeout with its tenths (`2.5 s`), as it always has. */
const EN = formatters('en');
const seconds = (ms: number) => EN.duration(ms, 'precise');

function startupzLine(status: number | null): string {
  return status === null ? 'no /startupz answer' : `/startupz ${status}`;
}

function notReadyLine(d: NotReady): string {
  if (d.notReady === undefined) return '';
  return d.notReady.length > 0 ? `; not ready: ${d.notReady.join(', ')}` : '; not ready';
}

/** The English line of a detail, for the log, the doctor, the decisions that quote it and the rehearsal report. */
export function probeDetailLine(d: ProbeDetail): string {
  switch (d.code) {
    case 'refused':
      return `connection refused on ${d.where}`;
    case 'connect-timeout':
      return `no connection to ${d.where} within ${seconds(d.ms)} (connect timeout)`;
    case 'read-timeout':
      return `no answer to ${d.path} within ${seconds(d.ms)} (read timeout)`;
    case 'reset':
      return `connection reset by ${d.where} during ${d.path}`;
    case 'failed':
      return `${d.path} on ${d.where} failed: ${d.message}`;
    case 'not-url':
      return `not a URL: ${JSON.stringify(d.url)}`;
    case 'not-http':
      return `only plain http on loopback is probed, not ${d.protocol}//`;
    case 'delayed':
      return `probe delayed by BreakerBar's own event loop (${seconds(d.stallMs)}): gateway state unknown`;
    case 'busy':
      return `${d.state} (${startupzLine(d.startupz)})`;
    case 'live': {
      const live = `live (/healthz 200 in ${Math.round(d.ms)} ms)`;
      const startup =
        d.startupz === 200
          ? 'started'
          : d.startupz === 404
            ? 'no /startupz (older gateway)'
            : `startup unknown (${startupzLine(d.startupz)})`;
      return `${live}, ${startup}${notReadyLine(d)}`;
    }
    case 'not-openclaw':
      return `/healthz answered HTTP ${d.status} without OpenClaw's JSON: something else listens there${notReadyLine(d)}`;
    case 'http':
      return `/healthz answered HTTP ${d.status}${notReadyLine(d)}`;
    case 'probe-threw':
      return `probe failed: ${d.message}`;
    case 'text':
      return d.text;
  }
}

function notReadyWords(d: NotReady, t: Translator): string {
  if (d.notReady === undefined) return '';
  return d.notReady.length > 0 ? t.t('probe.notReadyNamed', { failing: d.notReady }) : t.t('probe.notReady');
}

function startupWords(status: number | null, t: Translator): string {
  if (status === 200) return t.t('probe.started');
  if (status === 404) return t.t('probe.olderGateway');
  return t.t('probe.startupUnknown', { startupz: status });
}

/** What a probe found, in the reader's language. */
export function wordProbeDetail(d: ProbeDetail, t: Translator): string {
  switch (d.code) {
    case 'refused':
      return t.t('probe.refused', { where: d.where });
    case 'connect-timeout':
      return t.t('probe.connectTimeout', { where: d.where, ms: d.ms });
    case 'read-timeout':
      return t.t('probe.readTimeout', { path: d.path, ms: d.ms });
    case 'reset':
      return t.t('probe.reset', { where: d.where, path: d.path });
    case 'failed':
      return t.t('probe.failed', { where: d.where, path: d.path, message: d.message });
    case 'not-url':
      return t.t('probe.notUrl', { url: d.url });
    case 'not-http':
      return t.t('probe.notHttp', { protocol: d.protocol });
    case 'delayed':
      return t.t('probe.delayed', { ms: d.stallMs });
    case 'busy':
      return t.t(d.state === 'starting' ? 'probe.starting' : 'probe.draining', { startupz: d.startupz });
    case 'live':
      return `${t.t('probe.live', { ms: Math.round(d.ms) })}${t.t('probe.then', { what: startupWords(d.startupz, t) })}${notReadyWords(d, t)}`;
    case 'not-openclaw':
      return `${t.t('probe.notOpenClaw', { status: d.status })}${notReadyWords(d, t)}`;
    case 'http':
      return `${t.t('probe.http', { status: d.status })}${notReadyWords(d, t)}`;
    case 'probe-threw':
      return t.t('probe.threw', { message: d.message });
    case 'text': {
      const known = legacyProbeDetail(d.text);
      return known === null ? d.text : wordProbeDetail(known, t);
    }
  }
}

/** The code a prober line of an older BreakerBar stands for, or null for any other text. */
export function legacyProbeDetail(line: string): ProbeDetail | null {
  const ms = (s: string | undefined) => durationMs(s ?? '');
  const notReady = (s: string | undefined): NotReady =>
    s === undefined ? {} : { notReady: s === '' ? [] : s.replace(/^: /, '').split(', ') };
  const startupz = (s: string | undefined) => (s === undefined ? null : Number(s));
  const forms: Array<[RegExp, (m: RegExpMatchArray) => ProbeDetail | null]> = [
    [/^connection refused on (\S+)$/, (m) => ({ code: 'refused', where: m[1] ?? '' })],
    [
      /^no connection to (\S+) within (.+) \(connect timeout\)$/,
      (m) => withMs(ms(m[2]), (n) => ({ code: 'connect-timeout', where: m[1] ?? '', ms: n })),
    ],
    [
      /^no answer to (\S+) within (.+) \(read timeout\)$/,
      (m) => withMs(ms(m[2]), (n) => ({ code: 'read-timeout', path: m[1] ?? '', ms: n })),
    ],
    [/^connection reset by (\S+) during (\S+)$/, (m) => ({ code: 'reset', where: m[1] ?? '', path: m[2] ?? '' })],
    [
      /^probe delayed by BreakerBar's own event loop \((.+)\): gateway state unknown$/,
      (m) => withMs(ms(m[1]), (n) => ({ code: 'delayed', stallMs: n })),
    ],
    [
      /^(starting|draining) \((?:\/startupz (\d+)|no \/startupz answer)\)$/,
      (m) => ({ code: 'busy', state: m[1] as 'starting' | 'draining', startupz: startupz(m[2]) }),
    ],
    [
      /^live \(\/healthz 200 in (\d+) ms\), (started|no \/startupz \(older gateway\)|startup unknown \((?:\/startupz (\d+)|no \/startupz answer)\))(?:; not ready(: .+)?)?$/,
      (m) => ({
        code: 'live',
        ms: Number(m[1]),
        startupz: m[2] === 'started' ? 200 : m[2]?.startsWith('no /startupz (') ? 404 : startupz(m[3]),
        ...notReady(m[0].includes('; not ready') ? (m[4] ?? '') : undefined),
      }),
    ],
    [
      /^\/healthz answered HTTP (\d+) without OpenClaw's JSON: something else listens there(?:; not ready(: .+)?)?$/,
      (m) => ({
        code: 'not-openclaw',
        status: Number(m[1]),
        ...notReady(m[0].includes('; not ready') ? (m[2] ?? '') : undefined),
      }),
    ],
    [
      /^\/healthz answered HTTP (\d+)(?:; not ready(: .+)?)?$/,
      (m) => ({
        code: 'http',
        status: Number(m[1]),
        ...notReady(m[0].includes('; not ready') ? (m[2] ?? '') : undefined),
      }),
    ],
    [
      /^(\/\w+) on (\S+) failed: (.*)$/s,
      (m) => ({ code: 'failed', path: m[1] ?? '', where: m[2] ?? '', message: m[3] ?? '' }),
    ],
    [/^not a URL: (".*")$/s, (m) => ({ code: 'not-url', url: JSON.parse(m[1] ?? '""') as string })],
    [/^only plain http on loopback is probed, not (\w+:)\/\/$/, (m) => ({ code: 'not-http', protocol: m[1] ?? '' })],
    [/^probe failed: (.*)$/s, (m) => ({ code: 'probe-threw', message: m[1] ?? '' })],
  ];
  for (const [pattern, detail] of forms) {
    const match = line.match(pattern);
    if (match) return detail(match);
  }
  return null;
}

function withMs(ms: number | null, detail: (ms: number) => ProbeDetail): ProbeDetail | null {
  return ms === null ? null : detail(ms);
}

/** A duration as the English formatter writes it (`2.5 s`, `500 ms`, `1 min`), back in ms; null if not one. */
function durationMs(text: string): number | null {
  const units: Record<string, number> = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };
  let total = 0;
  const parts = text.trim().split(/\s+/);
  if (parts.length % 2 !== 0) return null;
  for (let i = 0; i < parts.length; i += 2) {
    const n = Number(parts[i]);
    const unit = units[parts[i + 1] ?? ''];
    if (!Number.isFinite(n) || unit === undefined) return null;
    total += n * unit;
  }
  return Math.round(total);
}
