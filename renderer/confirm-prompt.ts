/**
 * The in-page prompt for the one-time code of a dangerous settings change (see confirmation.ts):
 * what the change does, line by line, and a field for the six digits. Nothing is sent until a code
 * of that shape is given; Cancel or Escape dismisses it and nothing is saved.
 */
import type { Translator } from '../main/words/messages/index.js';
import { type AskCode, CODE_SHAPE, NotConfirmed } from './confirmation.js';
import { fill, h } from './dom.js';

/** The prompt, drawn in `container` (hidden while nothing is asked), in the words `words()` gives now. */
export function codePrompt(container: HTMLElement, words: () => Translator): AskCode {
  return (confirmation, refused) =>
    new Promise<string>((resolve, reject) => {
      const { t } = words();
      const close = () => {
        container.hidden = true;
        fill(container);
      };
      const input = h('input', {
        id: 'confirm-code',
        type: 'text',
        inputmode: 'numeric',
        autocomplete: 'one-time-code',
        maxlength: 6,
        spellcheck: 'false',
        'aria-describedby': 'confirm-why confirm-error',
      });
      const error = h('p', { id: 'confirm-error', class: 'field-error', role: 'alert', hidden: !refused });
      if (refused) fill(error, t('confirm.prompt.refused'));
      const cancel = h('button', { type: 'button' }, t('confirm.prompt.cancel'));
      const form = h(
        'form',
        { class: 'confirm-prompt', 'aria-labelledby': 'confirm-title', 'data-testid': 'confirm-prompt' },
        h('h3', { id: 'confirm-title' }, t('confirm.prompt.title')),
        h(
          'div',
          { id: 'confirm-why' },
          h('p', null, t('confirm.prompt.intro')),
          h(
            'ul',
            null,
            ...confirmation.changes.map((change) => h('li', null, h('code', null, t('confirm.change', change)))),
          ),
          confirmation.expiresAt === null
            ? null
            : h('p', { class: 'muted' }, t('confirm.prompt.expires', { at: confirmation.expiresAt })),
        ),
        h('label', { for: 'confirm-code' }, t('confirm.prompt.label')),
        h(
          'div',
          { class: 'token-row' },
          input,
          h('button', { type: 'submit', class: 'primary' }, t('confirm.prompt.submit')),
          cancel,
        ),
        error,
      );
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        const code = input.value.replace(/\s/g, '');
        if (!CODE_SHAPE.test(code)) {
          error.hidden = false;
          fill(error, t('confirm.prompt.shape'));
          input.setAttribute('aria-invalid', 'true');
          input.focus();
          return;
        }
        close();
        resolve(code);
      });
      const dismiss = () => {
        close();
        reject(new NotConfirmed('the change was not confirmed'));
      };
      cancel.addEventListener('click', dismiss);
      form.addEventListener('keydown', (event) => {
        if (event.key === 'Escape') dismiss();
      });
      fill(container, form);
      container.hidden = false;
      input.focus();
    });
}
