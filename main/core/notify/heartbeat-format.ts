/**
 * How a heartbeat push looks for each kind of push monitor: pure functions from
 * (config, what to say) to an HTTP request. The monitor raises its alarm when
 * the pushes stop (BreakerBar, its machine or its network is gone) or when a
 * push says critical. Push URLs carry their token, so anything shown to a human
 * goes through redactUrl.
 */
import type { HeartbeatSettings } from './config.js';

export type HeartbeatStatus = 'ok' | 'warning' | 'critical';

export interface HeartbeatPush {
  status: HeartbeatStatus;
  /** The headline in the daemon's language. */
  headline: string;
  ts: number;
  /** The last health probe's latency (ms), when there is one: Uptime Kuma charts it. */
  pingMs?: number | null;
}

export interface HeartbeatRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string | null;
}

/** Uptime Kuma stores a push message of up to 255 characters; longer ones are cut. */
const KUMA_MSG_MAX = 250;

export function formatHeartbeat(
  config: Pick<HeartbeatSettings, 'url' | 'method' | 'kind'>,
  push: HeartbeatPush,
): HeartbeatRequest {
  const body =
    config.method === 'POST'
      ? JSON.stringify({ status: push.status, headline: push.headline, ts: new Date(push.ts).toISOString() })
      : null;
  const headers: Record<string, string> = body === null ? {} : { 'Content-Type': 'application/json; charset=utf-8' };
  switch (config.kind) {
    case 'generic':
      return { url: config.url, method: config.method, headers, body };
    case 'healthchecks': {
      // https://hc-ping.com/<uuid> signals success; <url>/fail signals failure (the check goes down at once).
      if (push.status !== 'critical') return { url: config.url, method: config.method, headers, body };
      const url = new URL(config.url);
      url.pathname = `${url.pathname.replace(/\/+$/, '')}/fail`;
      return { url: url.toString(), method: config.method, headers, body };
    }
    case 'uptime-kuma': {
      // https://kuma.example/api/push/<token>?status=up&msg=OK&ping= : the push's own query says it all.
      const url = new URL(config.url);
      url.searchParams.set('status', push.status === 'critical' ? 'down' : 'up');
      url.searchParams.set('msg', cut(push.headline, KUMA_MSG_MAX));
      url.searchParams.set('ping', push.pingMs == null ? '' : String(Math.round(push.pingMs)));
      return { url: url.toString(), method: config.method, headers, body };
    }
  }
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
