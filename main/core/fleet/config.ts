/**
 * The fleet's config, declared once: the `fleet` group of config.json (keys, defaults, docs, units). Its one
 * duration is already in milliseconds, so the fleet link takes it as parsed.
 */
import { bool, group, type Infer, millis, optionalName, optionalRedisUrl } from '../config/schema.js';

export const fleetConfig = group({
  redisUrl: optionalRedisUrl(
    'Redis shared by hosts calling the same providers: breaker transitions are published and half-open probes serialized; null (default) keeps breakers local.',
  ),
  hostId: optionalName("This host's name in the fleet; null means the machine's hostname."),
  openOnPeerEvidence: bool(
    false,
    "Trip a closed breaker when another host's breaker for the same dependency trips (else it is only shown as open elsewhere).",
  ),
  probeLeaseMs: millis(5000, 100, 600_000, 'How long one host holds the half-open probe lease of a dependency.'),
});

export type FleetConfig = Infer<typeof fleetConfig>;
