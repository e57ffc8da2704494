/**
 * The sources a monitor follows: OpenClaw's transcripts (JSONL and SQLite), its gateway log, and its gateway
 * metrics when enabled, made over one store sink, with what they store told on as calls and signals. The
 * gateway sides ask the transcripts first (transcript-coverage.ts), so one call is never counted twice.
 */

import type { CallEvent, GatewaySignal } from '../calls/events.js';
import type { Environment, LoadedConfig } from '../config/index.js';
import { resolveGatewayEndpoint } from '../openclaw/gateway-endpoint.js';
import type { Logger } from '../runtime/log.js';
import type { Store } from '../store/db.js';
import { GatewayLogSource } from './gateway-log.js';
import { GatewayMetricsSource } from './gateway-metrics.js';
import type { IngestSink, Source, SourceStatus } from './source.js';
import { TranscriptCoverage } from './transcript-coverage.js';
import { JsonlTranscriptSource } from './transcripts-jsonl.js';
import { SqliteTranscriptSource } from './transcripts-sqlite.js';

export interface FollowedSourcesOptions {
  log: Logger;
  clock: () => number;
  /** Calls a source stored. */
  onCalls: (calls: CallEvent[]) => void;
  /** Signals the gateway log read. */
  onSignals: (signals: GatewaySignal[]) => void;
}

/** What the sources are made from at each start. */
export interface FollowSettings {
  loaded: LoadedConfig;
  environment: Environment;
  sink: IngestSink;
  /** Calls older than this (record time) are not stored. */
  cutoff: number;
}

export class FollowedSources {
  /** Every source followed now, in the order made (none before start and after stop). */
  all: Source[] = [];
  gatewayLog: GatewayLogSource | null = null;
  gatewayMetrics: GatewayMetricsSource | null = null;
  private readonly coverage: TranscriptCoverage;

  constructor(private readonly options: FollowedSourcesOptions) {
    this.coverage = new TranscriptCoverage(options.clock);
  }

  /** Remembers the dependencies the stored transcripts delivered calls for lately (before the sources are made). */
  remember(store: Pick<Store, 'recentDependencies'>, now: number): void {
    this.coverage.remember(store, now);
  }

  /** Makes the sources and starts each, in order. */
  follow(settings: FollowSettings): void {
    this.all = this.create(settings);
    for (const source of this.all) source.start();
  }

  private create({ loaded, environment, sink, cutoff }: FollowSettings): Source[] {
    const { log, clock, onCalls, onSignals } = this.options;
    const { config, stateDir, gatewayLogDir } = loaded;
    const common = { sink, cutoff, reconcileIntervalMs: config.ingest.reconcileIntervalMs, log };
    const fromTranscripts = (calls: CallEvent[]) => {
      this.coverage.record(calls);
      onCalls(calls);
    };
    this.coverage.transcriptSources = [
      new JsonlTranscriptSource({
        ...common,
        stateDir,
        includeArchives: config.ingest.includeArchives,
        maxLineBytes: config.ingest.maxLineBytes,
        onStored: fromTranscripts,
      }),
      new SqliteTranscriptSource({
        ...common,
        stateDir,
        clock,
        onStored: fromTranscripts,
      }),
    ];
    this.gatewayLog = new GatewayLogSource({
      ...common,
      logDir: gatewayLogDir,
      profile: config.profile,
      maxLineBytes: config.ingest.maxLineBytes,
      transcriptsCover: (agentId) => this.coverage.coversAgent(agentId),
      onStored: (calls) => onCalls(calls),
      onSignals: (signals) => onSignals(signals),
    });
    const sources: Source[] = [...this.coverage.transcriptSources, this.gatewayLog];
    if (config.gatewayMetrics.enabled) {
      const endpoint = resolveGatewayEndpoint(loaded, environment);
      for (const warning of endpoint.warnings) log.warn(warning);
      this.gatewayMetrics = new GatewayMetricsSource({
        endpoint: { baseUrl: endpoint.baseUrl, token: endpoint.token, tokenSource: endpoint.tokenSource },
        intervalMs: config.gatewayMetrics.intervalMs,
        sink,
        log,
        clock,
        transcriptsCover: (dep) => this.coverage.coversDependency(dep),
        onStored: (calls) => onCalls(calls),
      });
      sources.push(this.gatewayMetrics);
    }
    return sources;
  }

  /** Stops every source, and waits for each. */
  async stop(): Promise<void> {
    await Promise.all(this.all.map((source) => source.stop()));
    this.all = [];
  }

  /** Forgets the stopped sources (once the writer they stored through is closed). */
  clear(): void {
    this.coverage.transcriptSources = [];
    this.gatewayLog = null;
    this.gatewayMetrics = null;
  }

  statuses(): SourceStatus[] {
    return this.all.map((source) => source.status());
  }

  get caughtUp(): boolean {
    return this.all.every((source) => source.caughtUp);
  }
}
