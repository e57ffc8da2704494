/**
 * OpenClaw's quota read, configured once: the `quota` group of config.json (keys, defaults, docs, units) and
 * the reader's settings derived from it, every duration in milliseconds by its declared unit.
 */

import { inMs } from '../config/durations.js';
import { bool, DAY_SEC, group, type Infer, optionalArgv, seconds } from '../config/schema.js';
import { DEFAULT_QUOTA_COMMAND, type QuotaReaderOptions } from './quota.js';

export const quotaConfig = group({
  enabled: bool(true, "Read providers' quota windows with `openclaw status --usage --json` (read-only)."),
  intervalSec: seconds(300, 30, DAY_SEC, 'How often the quota windows are read.'),
  timeoutSec: seconds(30, 1, 600, 'A read that takes longer than this is stopped and counts as failed.'),
  command: optionalArgv(
    'The command that prints the usage JSON; null runs the openclaw CLI found on PATH (`openclaw status --usage --json`).',
  ),
});

export type QuotaConfig = Infer<typeof quotaConfig>;
export type QuotaSettings = Pick<QuotaReaderOptions, 'command' | 'intervalMs' | 'timeoutMs'>;

/** What the quota reader runs and how often, or null when the quota windows are not read (`enabled` false). */
export function quotaSettings(config: QuotaConfig): QuotaSettings | null {
  if (!config.enabled) return null;
  const { command, intervalMs, timeoutMs } = inMs(quotaConfig, config);
  return { command: command ?? DEFAULT_QUOTA_COMMAND, intervalMs, timeoutMs };
}
