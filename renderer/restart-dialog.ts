/**
 * The confirmation before a gateway restart, with the second, forced choice
 * (`openclaw gateway restart --force`: no drain). A native <dialog>: modal,
 * focus kept inside, Escape cancels.
 */
import { h } from './dom.js';

export type RestartChoice = 'restart' | 'force' | null;

export function confirmRestart(strategy: string | null): Promise<RestartChoice> {
  const restart = h('button', { type: 'button', class: 'primary', 'data-choice': 'restart' }, 'Restart');
  const force = h('button', { type: 'button', class: 'danger', 'data-choice': 'force' }, 'Force restart');
  const cancel = h('button', { type: 'button', 'data-choice': 'cancel' }, 'Cancel');
  const dialog = h(
    'dialog',
    { class: 'confirm', 'aria-labelledby': 'restart-dialog-title', 'aria-describedby': 'restart-dialog-text' },
    h('h2', { id: 'restart-dialog-title' }, 'Restart the gateway?'),
    h(
      'div',
      { id: 'restart-dialog-text' },
      h('p', null, 'Restart lets the gateway finish the work in progress first (a safe restart).'),
      h('p', null, 'Force restart stops it at once, dropping calls in flight: for a hung gateway.'),
      strategy === null ? null : h('p', { class: 'muted' }, `Runs: ${strategy}`),
    ),
    h('div', { class: 'actions' }, cancel, force, restart),
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    let choice: RestartChoice = null;
    for (const [element, value] of [
      [restart, 'restart'],
      [force, 'force'],
      [cancel, null],
    ] as const) {
      element.addEventListener('click', () => {
        choice = value;
        dialog.close();
      });
    }
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(choice);
    });
    dialog.showModal();
    // The safe choice has the focus: Enter confirms the ordinary restart, never the forced one.
    restart.focus();
  });
}
