/**
 * How a failed request shows up inside a view: one line saying what went
 * wrong, in the API's own words.
 */
import { ApiFailure, Cancelled } from './api.js';
import { h } from './dom.js';

export function describeFailure(error: unknown): string {
  if (error instanceof Cancelled) return 'Not sent: no API token was given.';
  if (error instanceof ApiFailure) return error.message;
  return error instanceof Error ? error.message : String(error);
}

export function failureBox(what: string, error: unknown): HTMLElement {
  return h('p', { class: 'failure', role: 'alert' }, `${what}: ${describeFailure(error)}`);
}
