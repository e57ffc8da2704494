/**
 * The breakers' config, declared once: the `breakers` group of config.json (keys, defaults, docs, units), the
 * policy's defaults coming from the breaker's own DEFAULT_POLICY. Its durations are already in milliseconds, so
 * the breakers take it as parsed.
 */
import { DAY_MS, group, type Infer, int, millis, num, oneOf, optionalName, record, str } from '../config/schema.js';
import { DEFAULT_POLICY } from './types.js';

/** One breaker policy: the defaults for all dependencies, or an override for some. */
const policyShape = {
  windowMs: millis(DEFAULT_POLICY.windowMs, 1000, DAY_MS, 'Sliding window over event time for the failure rate.'),
  minCalls: int(DEFAULT_POLICY.minCalls, 1, 1_000_000, 'Calls in the window before the failure rate counts.'),
  failureRate: num(DEFAULT_POLICY.failureRate, 0.01, 1, 'Trip when more than this share of the window failed.'),
  consecutiveFailures: int(DEFAULT_POLICY.consecutiveFailures, 1, 10_000, 'Trip on this many failures in a row.'),
  cooldownMs: millis(DEFAULT_POLICY.cooldownMs, 100, DAY_MS, 'First open duration before trials.'),
  backoffFactor: num(DEFAULT_POLICY.backoffFactor, 1, 100, 'Open duration grows by this after each failed trial.'),
  maxOpenMs: millis(DEFAULT_POLICY.maxOpenMs, 1000, 7 * DAY_MS, 'Cap on the open duration.'),
  trialsToClose: int(DEFAULT_POLICY.trialsToClose, 1, 100, 'Consecutive successful trials that close the breaker.'),
  maxRetryAfterMs: millis(DEFAULT_POLICY.maxRetryAfterMs, 0, 7 * DAY_MS, "Cap on a provider's Retry-After."),
};

const DEP_PATTERN = /^[^\s]+$/;

export const breakersConfig = group({
  key: oneOf(
    'model',
    ['model', 'provider', 'credential'] as const,
    'Breaker per `provider/model` (model), per provider, or per `provider/model/<credential fingerprint>` where a record names its auth profile (credential).',
  ),
  maxDependencies: int(
    200,
    1,
    100_000,
    'Most distinct dependencies given their own breaker and metrics; calls to further ones count under `<provider>/other`.',
  ),
  ...policyShape,
  overrides: record(
    policyShape,
    'Per-dependency policy: keys are dependency patterns (`zhipu/*`, `deepseek/deepseek-v4-pro`), values any of the keys above.',
    DEP_PATTERN,
    'dependency patterns like "zhipu/*"',
  ),
  probes: record(
    {
      url: str(
        '',
        "URL probed with GET while half-open (e.g. the provider's model list).",
        'an http(s) URL',
        /^https?:\/\/\S+$/,
      ),
      tokenEnv: optionalName('Environment variable holding the API key sent as a Bearer token; null sends none.'),
      timeoutMs: millis(2000, 100, 60_000, 'Probe read timeout.'),
    },
    'Active half-open probes per dependency pattern (off unless configured).',
    DEP_PATTERN,
    'dependency patterns like "zhipu/*"',
  ),
  stallAfterMs: millis(
    180_000,
    0,
    DAY_MS,
    "Deprecated and ignored (still accepted so that existing configs load): stalled sessions come only from the gateway log's own stall reports; a session whose last turn failed and that went quiet is idle, not stalled.",
  ),
});

export type BreakersConfig = Infer<typeof breakersConfig>;
