/**
 * Asking for the API token in the page (not a modal alert): shown when an
 * action needs the token and the tab has none, or the server refused it.
 * It says where the token comes from; nothing is sent until one is given.
 */
import { Cancelled } from './api.js';
import { fill, h } from './dom.js';
import type { TokenAccess } from './http-api.js';
import { isTokenShape, type TokenStore } from './token.js';

export function tokenPrompt(container: HTMLElement, store: TokenStore): TokenAccess {
  let pending: { promise: Promise<string>; resolve(token: string): void; reject(error: Error): void } | null = null;

  const close = () => {
    container.hidden = true;
    fill(container);
  };

  const render = (reason: 'missing' | 'refused') => {
    const input = h('input', {
      id: 'token-input',
      type: 'password',
      autocomplete: 'off',
      spellcheck: 'false',
      inputmode: 'text',
      'aria-describedby': 'token-why token-error',
    });
    const error = h('p', { id: 'token-error', class: 'field-error', role: 'alert', hidden: true });
    const cancel = h('button', { type: 'button' }, 'Cancel');
    const form = h(
      'form',
      { class: 'token-prompt', 'aria-labelledby': 'token-title', 'data-testid': 'token-prompt' },
      h('h2', { id: 'token-title' }, reason === 'refused' ? 'That API token was refused' : 'API token needed'),
      h(
        'div',
        { id: 'token-why' },
        h(
          'p',
          null,
          reason === 'refused'
            ? 'BreakerBar did not accept the token this page had (it changes when the api-token file is created anew). '
            : 'Changing anything (restart, pause, breaker controls, settings) needs BreakerBar’s local API token. ',
          'Run ',
          h('code', null, 'breakerbar dashboard'),
          ': it prints a dashboard URL that carries the token. Or paste the token from the file ',
          h('code', null, '<dataDir>/api-token'),
          ' (by default ',
          h('code', null, '~/.config/breakerbar/api-token'),
          ' on Linux, ',
          h('code', null, '~/Library/Application Support/BreakerBar/api-token'),
          ' on macOS).',
        ),
      ),
      h('label', { for: 'token-input' }, 'API token'),
      h('div', { class: 'token-row' }, input, h('button', { type: 'submit', class: 'primary' }, 'Use token'), cancel),
      error,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const token = input.value.trim().toLowerCase();
      if (!isTokenShape(token)) {
        error.hidden = false;
        fill(error, 'A BreakerBar token is 64 hexadecimal characters (0-9, a-f).');
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
