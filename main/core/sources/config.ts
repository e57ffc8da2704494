/**
 * What BreakerBar reads, configured once: the `gatewayMetrics` and `ingest` groups of config.json (keys,
 * defaults, docs, units). Their durations are already in milliseconds, so the sources take them as parsed.
 */
import { bool, group, type Infer, int, millis } from '../config/schema.js';

export const gatewayMetricsConfig = group({
  enabled: bool(
    true,
    "Scrape the gateway's own metrics (diagnostics-prometheus plugin) when it answers; transcripts stay the source of truth where they have the calls.",
  ),
  intervalMs: millis(5000, 1000, 600000, 'How often the gateway metrics endpoint is scraped.'),
});

export const ingestConfig = group({
  backfillDays: int(
    7,
    0,
    3650,
    'On first start, store records up to this many days old (by their own time); 0 stores only what is written from now on.',
  ),
  includeArchives: bool(false, 'Also read archived transcripts (*.jsonl.reset.*, *.jsonl.deleted.*, .corrupt-, .bak).'),
  reconcileIntervalMs: millis(
    5000,
    100,
    600000,
    'How often every followed file and directory is re-checked (stat, list) in case the file watcher missed a change; the watcher and quick re-checks after each read keep latency low in between. While the watcher reports every change, full re-checks thin out to about once a minute (roots not there yet are still looked for at this interval); the first change it missed brings them back to this interval.',
  ),
  sqliteMaxSchemaVersion: int(
    19,
    1,
    1000,
    'Deprecated and ignored (still accepted so that existing configs load): agent databases are read by the shape of transcript_events, whatever their user_version; a layout BreakerBar cannot read is refused and reported as an error.',
  ),
  maxLineBytes: int(
    64 * 1024 * 1024,
    1024,
    1024 * 1024 * 1024,
    'Longest line accepted; longer lines are skipped and counted as malformed.',
  ),
});

export type IngestConfig = Infer<typeof ingestConfig>;
