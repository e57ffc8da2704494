/**
 * Active half-open probes (off unless configured per dependency): BreakerBar
 * is not in the gateway's call path, so besides the next observed calls it can
 * send a trial of its own — a GET to a URL the user names, such as the
 * provider's model list. The engine decides when (one in flight, 250 ms apart
 * plus jitter); this module only performs the request and reports the outcome.
 * Probes are never gateway traffic: they are not stored as calls.
 */
import type { Outcome } from '../calls/classify.js';
import { parseRetryAfterText } from '../calls/classify.js';
import type { Config } from '../config/index.js';
import { mostSpecific } from '../config/patterns.js';
import type { Logger } from '../runtime/log.js';
import type { BreakerEngines } from './engines.js';

type ProbeConfig = Config['breakers']['probes'][string];

export interface ProberOptions {
  probes: Config['breakers']['probes'];
  engines: BreakerEngines;
  env: NodeJS.ProcessEnv;
  log: Logger;
  clock: () => number;
  onLatency: (dep: string, ms: number) => void;
  /**
   * Fleet coordination: may this host probe `dep` now? (One host at a time holds a dependency's probe lease,
   * so a dozen workers do not stampede a recovering provider.) Absent: always. `release` is called after.
   */
  lease?: (dep: string) => Promise<{ granted: boolean; release: () => void }>;
}

/** What a probe's HTTP answer means for the breaker. */
export function probeOutcome(status: number): Outcome {
  if (status >= 200 && status < 400) return 'ok';
  if (status === 429) return 'rate_limited';
  if (status === 401 || status === 403) return 'auth';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 529) return 'overloaded';
  if (status >= 500) return 'server_error';
  return 'other_error';
}

export class Prober {
  constructor(private readonly options: ProberOptions) {}

  /** Dependencies whose lease is being asked for (never two requests for one). */
  private readonly leasing = new Set<string>();
  /** After stop, an answer still in flight is dropped: the store it would be written to is closed. */
  private stopped = false;

  stop(): void {
    this.stopped = true;
  }

  /** Starts the probes that are due; called on every breaker tick. */
  run(): void {
    const { engines, clock } = this.options;
    const now = clock();
    for (const dep of engines.probesWanted(now)) {
      const config = this.configFor(dep);
      if (!config?.url) continue;
      if (!this.options.lease) {
        if (engines.probeStarted(dep, now)) void this.probe(dep, config, now);
        continue;
      }
      if (this.leasing.has(dep)) continue;
      this.leasing.add(dep);
      this.leased(dep, config).catch((error: unknown) =>
        this.options.log.error('breaker probe lease failed', { dep, error: (error as Error).message }),
      );
    }
  }

  /** Probes only with the fleet's lease; the lease call never throws (Redis down means "probe locally"). */
  private async leased(dep: string, config: ProbeConfig): Promise<void> {
    const lease = this.options.lease;
    if (!lease) return;
    try {
      const answer = await lease(dep);
      if (!answer.granted) return;
      try {
        const now = this.options.clock();
        if (this.options.engines.probeStarted(dep, now)) await this.probe(dep, config, now);
      } finally {
        answer.release();
      }
    } finally {
      this.leasing.delete(dep);
    }
  }

  private configFor(dep: string): ProbeConfig | undefined {
    const patterns = mostSpecific(Object.keys(this.options.probes), dep);
    const pattern = patterns[patterns.length - 1];
    return pattern === undefined ? undefined : this.options.probes[pattern];
  }

  private async probe(dep: string, config: ProbeConfig, started: number): Promise<void> {
    const { engines, clock, env, log } = this.options;
    const headers: Record<string, string> = { 'user-agent': 'BreakerBar half-open probe', 'x-breakerbar-probe': '1' };
    const key = config.tokenEnv ? env[config.tokenEnv] : undefined;
    if (key) headers.authorization = `Bearer ${key}`;
    const t0 = performance.now();
    let outcome: Outcome;
    let retryAfterMs: number | null = null;
    try {
      const response = await fetch(config.url ?? '', {
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(config.timeoutMs ?? 2000),
      });
      await response.body?.cancel();
      outcome = probeOutcome(response.status);
      const retryAfter = response.headers.get('retry-after');
      if (retryAfter) retryAfterMs = parseRetryAfterText(`retry-after: ${retryAfter}`);
    } catch (error) {
      outcome = (error as Error).name === 'TimeoutError' ? 'timeout' : 'connection_reset';
      log.debug('breaker probe failed', { dep, error: (error as Error).message });
    }
    if (this.stopped) return;
    this.options.onLatency(dep, performance.now() - t0);
    try {
      engines.probeFinished(dep, { ts: Math.max(clock(), started), outcome, retryAfterMs });
    } catch (error) {
      log.error('breaker probe result could not be recorded', { dep, error: (error as Error).message });
    }
  }
}
