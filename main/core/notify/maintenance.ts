/**
 * The alert windows as the daemon keeps them: the configured quiet hours and
 * recurring maintenance windows, and a maintenance window started by hand,
 * which is kept in the store's meta table so that it outlives a restart of
 * BreakerBar (as a watchdog pause does).
 */
import { type ManualMaintenance, type QuietState, quietAt, type RecurringWindow } from './quiet.js';

const META_MAINTENANCE = 'alerts.maintenance';

export interface MetaStore {
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
}

export interface AlertWindowsOptions {
  store: MetaStore;
  clock: () => number;
  quietHours: readonly RecurringWindow[];
  maintenance: readonly RecurringWindow[];
  /**
   * A window that could not be kept in the store (a full disk): it holds all the same, only not across a
   * restart of BreakerBar. Default: thrown, as any other store failure.
   */
  storeFailed?: (what: string, error: unknown) => void;
}

export class AlertWindows {
  private manual: ManualMaintenance | null;

  constructor(private readonly options: AlertWindowsOptions) {
    this.manual = parseManual(options.store.getMeta(META_MAINTENANCE));
  }

  /** Starts (or replaces) a maintenance window; `durationMs` null = until stopped. */
  start(durationMs: number | null, reason: string): ManualMaintenance {
    if (durationMs !== null && (!Number.isFinite(durationMs) || durationMs <= 0)) {
      throw new Error('a maintenance window needs a positive duration (or none: until stopped)');
    }
    const now = this.options.clock();
    this.manual = {
      startedAt: now,
      until: durationMs === null ? null : now + durationMs,
      reason: reason.trim() || 'maintenance',
    };
    this.keep(JSON.stringify(this.manual));
    return this.manual;
  }

  /** Ends a maintenance window started by hand; false when none was in force. */
  stop(): boolean {
    const was = this.current() !== null;
    this.manual = null;
    this.keep('');
    return was;
  }

  private keep(value: string): void {
    try {
      this.options.store.setMeta(META_MAINTENANCE, value);
    } catch (error) {
      const failed = this.options.storeFailed;
      if (!failed) throw error;
      failed('a maintenance window', error);
    }
  }

  /** The window started by hand, if still in force. */
  current(): ManualMaintenance | null {
    const manual = this.manual;
    if (manual === null) return null;
    return manual.until === null || manual.until > this.options.clock() ? manual : null;
  }

  /** What holds notifications now, if anything. */
  state(now = this.options.clock()): QuietState | null {
    return quietAt(
      { quietHours: this.options.quietHours, maintenance: this.options.maintenance, manual: this.manual },
      now,
    );
  }

  /** The maintenance in force (by hand or recurring), which holds automatic restarts; null otherwise. */
  maintenance(now = this.options.clock()): QuietState | null {
    const state = this.state(now);
    return state?.kind === 'maintenance' ? state : null;
  }
}

function parseManual(raw: string | undefined): ManualMaintenance | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<ManualMaintenance>;
    if (typeof value.startedAt !== 'number' || typeof value.reason !== 'string') return null;
    if (value.until !== null && typeof value.until !== 'number') return null;
    return { startedAt: value.startedAt, until: value.until ?? null, reason: value.reason };
  } catch {
    return null;
  }
}
