/**
 * How an upstream call ended: the classifier's taxonomy. Shared, because the
 * dashboard words each outcome and must know every one the core can report.
 */
export const OUTCOMES = [
  'ok',
  'rate_limited',
  'overloaded',
  'server_error',
  'timeout',
  'connection_reset',
  'aborted',
  'auth',
  'billing',
  'context_overflow',
  'other_error',
] as const;
export type Outcome = (typeof OUTCOMES)[number];
