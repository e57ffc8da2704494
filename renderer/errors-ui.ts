/**
 * How a failed request shows up inside a view: one line saying what went
 * wrong, in the API's own words (the server's message is not translated).
 */
import { type Translator, translator } from '../main/words/messages/index.js';
import { ApiFailure, Cancelled } from './api.js';
import { h } from './dom.js';

const ENGLISH = translator('en');

export function describeFailure(error: unknown, t: Translator = ENGLISH): string {
  if (error instanceof Cancelled) return t.t('views.failure.noToken');
  if (error instanceof ApiFailure) return error.message;
  return error instanceof Error ? error.message : String(error);
}

export function failureBox(what: string, error: unknown, t: Translator = ENGLISH): HTMLElement {
  return h('p', { class: 'failure', role: 'alert' }, t.t('views.failure', { what, why: describeFailure(error, t) }));
}
