/**
 * OpenClaw's own state as a monitor reads it: its cooldowns (polled, watched for one that does not end, and
 * shown as gauges) and its provider quota (its usage command, run on a timer). Kept for the monitor's whole
 * life, so a dependency once in cooldown keeps its gauge across a restart of the monitor.
 */
import type { Translator } from '../../words/messages/index.js';
import type { LoadedConfig } from '../config/index.js';
import type { NoticeInput } from '../notify/notice.js';
import type { Logger } from '../runtime/log.js';
import type { QuotaWindow } from '../spend/types.js';
import { quotaSettings } from './config.js';
import { CooldownLoopDetector } from './cooldown-loop.js';
import { OpenClawCooldowns } from './cooldowns.js';
import { QuotaReader } from './quota.js';

export interface OpenClawReadersOptions {
  log: Logger;
  clock: () => number;
  /** A cooldown that does not end, to be told to a human (already logged). */
  onEndless: (notice: NoticeInput) => void;
}

export class OpenClawReaders {
  private cooldownReader: OpenClawCooldowns | null = null;
  private cooldownLoops = new CooldownLoopDetector();
  /** Dependencies OpenClaw had a cooldown on since start: their gauge stays (at 0) once it ends. */
  private readonly cooldownDeps = new Set<string>();
  private quotaReader: QuotaReader | null = null;

  constructor(private readonly options: OpenClawReadersOptions) {}

  /** Starts reading the cooldowns of the OpenClaw state in `stateDir`; its notices are worded with `words`. */
  readCooldowns(stateDir: string, words: Translator): void {
    const { log, clock } = this.options;
    this.cooldownReader = new OpenClawCooldowns({ stateDir, log, clock });
    this.cooldownLoops = new CooldownLoopDetector(undefined, words);
  }

  /** OpenClaw's cooldowns as last read (null before start and after stop). */
  get cooldowns(): OpenClawCooldowns | null {
    return this.cooldownReader;
  }

  /** Until when OpenClaw will not call `dep`, as of `now` (null: no cooldown, or none read). */
  cooldownUntil(dep: string, now: number): number | null {
    return this.cooldownReader?.cooldownUntil(dep, now) ?? null;
  }

  /** Reads OpenClaw's cooldown state if it changed; with `announce`, tells a human about a cooldown that does not end. */
  pollCooldowns(announce: boolean): void {
    const { log, clock, onEndless } = this.options;
    const reader = this.cooldownReader;
    if (!reader) return;
    try {
      reader.poll();
      const now = clock();
      for (const cooldown of reader.cooldowns(now)) this.cooldownDeps.add(cooldown.dep);
      if (!announce) return;
      const notices = this.cooldownLoops.observe(reader.snapshot(), now);
      for (const notice of notices) {
        log.warn('OpenClaw cooldown does not end', { dep: notice.dep, title: notice.title });
        onEndless(notice);
      }
    } catch (error) {
      log.warn('reading OpenClaw cooldowns failed; will retry', { error: (error as Error).message });
    }
  }

  /**
   * Seconds of OpenClaw cooldown left per dependency: every one of `breakerDeps` (read only when cooldowns are),
   * and every one that had a cooldown.
   */
  cooldownGauges(breakerDeps: () => Iterable<string>): Array<{ dep: string; seconds: number }> {
    const reader = this.cooldownReader;
    if (!reader) return [];
    const now = this.options.clock();
    const deps = new Set(this.cooldownDeps);
    for (const dep of breakerDeps()) deps.add(dep);
    return [...deps].sort().map((dep) => {
      const until = reader.cooldownUntil(dep, now);
      return { dep, seconds: until === null ? 0 : Math.max(0, (until - now) / 1000) };
    });
  }

  /** Starts running OpenClaw's usage command on its timer, when `quota.enabled`. */
  readQuota(loaded: LoadedConfig, env: NodeJS.ProcessEnv): void {
    const settings = quotaSettings(loaded.config.quota);
    if (settings === null) return;
    this.quotaReader = new QuotaReader({
      ...settings,
      // The CLI reads the same OpenClaw state (profile) this instance follows.
      env: { ...env, OPENCLAW_STATE_DIR: loaded.stateDir },
      clock: this.options.clock,
      log: this.options.log,
    });
    this.quotaReader.start();
  }

  /** Provider quota windows as OpenClaw last reported them (an exhausted one opens an incident). */
  quotaWindows(): QuotaWindow[] {
    return this.quotaReader?.windows() ?? [];
  }

  /** Forgets the cooldowns and stops the quota reader. */
  async stop(): Promise<void> {
    this.cooldownReader = null;
    await this.quotaReader?.stop();
    this.quotaReader = null;
  }
}
