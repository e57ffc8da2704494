/**
 * Asking for the API token in the page (not a modal alert): shown when an
 * action needs the token and the tab has none, or the server refused it.
 * It says where the token comes from; nothing is sent until one is given.
 */
import { Cancelled } from './api.js';
import { fill, h } from './dom.js';
import { words } from './format.js';
import type { TokenAccess } from './http-api.js';
import { isTokenShape, type TokenStore } from './token.js';

export function tokenPrompt(container: HTMLElement, store: TokenStore): TokenAccess {
  let pending: { promise: Promise<string>; resolve(token: string): void; reject(error: Error): void } | null = null;

  const close = () => {
    container.hidden = true;
    fill(container);
  };

  const render = (reason: 'missing' | 'refused') => {
    const t = words();
    const input = h('input', {
      id: 'token-input',
      type: 'password',
      autocomplete: 'off',
      spellcheck: 'false',
      inputmode: 'text',
      'aria-describedby': 'token-why token-error',
    });
    const error = h('p', { id: 'token-error', class: 'field-error', role: 'alert', hidden: true });
    const cancel = h('button', { type: 'button' }, t.t('dashboard.token.cancel'));
    const form = h(
      'form',
      { class: 'token-prompt', 'aria-labelledby': 'token-title', 'data-testid': 'token-prompt' },
      h('h2', { id: 'token-title' }, t.t(`dashboard.token.title.${reason}`)),
      h(
        'div',
        { id: 'token-why' },
        h(
          'p',
          null,
          `${t.t(`dashboard.token.why.${reason}`)} `,
          ...withCode(t.t('dashboard.token.where'), {
            command: 'breakerbar dashboard',
            file: '<dataDir>/api-token',
            linux: '~/.config/breakerbar/api-token',
            mac: '~/Library/Application Support/BreakerBar/api-token',
          }),
        ),
      ),
      h('label', { for: 'token-input' }, t.t('dashboard.token.label')),
      h(
        'div',
        { class: 'token-row' },
        input,
        h('button', { type: 'submit', class: 'primary' }, t.t('dashboard.token.use')),
        cancel,
      ),
      error,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const token = input.value.trim().toLowerCase();
      if (!isTokenShape(token)) {
        error.hidden = false;
        fill(error, words().t('dashboard.token.shape'));
        input.setAttribute('aria-invalid', 'true');
        input.focus();
        return;
      }
      const current = pending;
      pending = null;
      close();
      current?.resolve(token);
    });
    const dismiss = () => {
      const current = pending;
      pending = null;
      close();
      current?.reject(new Cancelled('no API token given'));
    };
    cancel.addEventListener('click', dismiss);
    form.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') dismiss();
    });
    fill(container, form);
    container.hidden = false;
    input.focus();
  };

  return {
    get: () => store.get(),
    set: (token) => store.set(token),
    clear: () => store.clear(),
    ask(reason) {
      if (pending !== null) return pending.promise;
      let resolve!: (token: string) => void;
      let reject!: (error: Error) => void;
      const promise = new Promise<string>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      pending = { promise, resolve, reject };
      render(reason);
      return promise;
    },
  };
}

/** A sentence of the catalogue with its `{name}` marks replaced by code elements (commands, paths: never translated). */
function withCode(sentence: string, code: Record<string, string>): Array<string | HTMLElement> {
  return sentence
    .split(/\{(\w+)\}/)
    .map((part, i) => (i % 2 === 1 && code[part] !== undefined ? h('code', null, code[part]) : part))
    .filter((part) => part !== '');
}
