/**
 * The gateway's metrics endpoint as a place to ask: loopback only (the request carries the operator
 * token), a bounded body, and every way a scrape can go wrong turned into a state and a plain
 * explanation that never contains the token.
 */

export const METRICS_PATH = '/api/diagnostics/prometheus';
/** OpenClaw caps itself at 2048 series; a body far beyond that is not its exporter. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Why the endpoint answers 404 (or the Control UI's page). Worded to hold on any OpenClaw version (the plugin
 * has been bundled, installable separately, or absent): it suggests no command that may not exist.
 */
export const METRICS_OFF_MESSAGE =
  "OpenClaw's metrics endpoint is not served by this gateway: its `diagnostics-prometheus` plugin is not installed or not enabled here. BreakerBar does not need those metrics (it reads the gateway log and the transcripts); `openclaw plugins list` shows whether this installation has the plugin";

/** The endpoint is there (the plugin serves it) but has nothing yet. */
export const METRICS_EMPTY_MESSAGE =
  "OpenClaw's metrics endpoint answers, but with no metrics: OpenClaw's diagnostics are off (`diagnostics.enabled` in openclaw.json), or the gateway has made no model call since it started. BreakerBar does not need those metrics (it reads the gateway log and the transcripts)";

export type MetricsState = 'ok' | 'off' | 'unauthorized' | 'unreachable' | 'error';

export interface GatewayMetricsEndpoint {
  baseUrl: string;
  token: string | null;
  /** Where the token came from, only to make the "token rejected" message precise. */
  tokenSource?: string | null;
}

export type ScrapeResult =
  | { kind: 'metrics'; text: string; html: boolean }
  | { kind: 'status'; status: number }
  | { kind: 'refused' }
  | { kind: 'timeout' }
  | { kind: 'failed'; reason: string };

export function isLoopback(baseUrl: string): boolean {
  try {
    const { hostname, protocol } = new URL(baseUrl);
    return protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
  } catch {
    return false;
  }
}

export function errorCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const code = cause?.code ?? (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Reads at most `limit` bytes of the body; a longer body is an error, not a truncated scrape. */
export async function readBody(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`metrics body larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** State and message for a scrape that got no HTTP answer worth reading. */
export function failure(
  result: Extract<ScrapeResult, { kind: 'refused' | 'timeout' | 'failed' }>,
  baseUrl: string,
  timeoutMs: number,
): [MetricsState, string] {
  if (result.kind === 'refused') return ['unreachable', `nothing listens at ${baseUrl} (gateway not running)`];
  // A gateway that does not answer in time is busy or hung: the gateway's state, which its probes judge (a
  // hung gateway is its own incident), not a source that cannot be read.
  if (result.kind === 'timeout') {
    return [
      'unreachable',
      `OpenClaw's metrics endpoint gave no answer within ${timeoutMs} ms (the gateway is busy or hung)`,
    ];
  }
  return ['error', `OpenClaw's metrics endpoint failed: ${result.reason}`];
}

/** The endpoint's address as it may be shown: the token, should it be in there, replaced. */
export function safeUrl(endpoint: GatewayMetricsEndpoint): string {
  const { baseUrl, token } = endpoint;
  return token ? baseUrl.split(token).join('[token]') : baseUrl;
}
