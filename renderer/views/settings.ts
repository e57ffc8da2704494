/**
 * Settings: edits the config file the daemon reads (and follows), through
 * `config()` / `saveConfig()`. The form is generated from the schema the API
 * sends (`ConfigView.fields`); saving writes the changed keys only, and a key
 * the server refuses is marked inline, next to its field, in the server's words.
 *
 * Live events never re-render this view: they would throw away what is being typed.
 */
import type { ConfigField, ConfigView } from '../../main/core/server/api-types.js';
import { ApiFailure, Cancelled } from '../api.js';
import {
  type ControlSpec,
  controlFor,
  currentValue,
  fieldForParam,
  formatValue,
  getPath,
  parseValue,
  sameValue,
  sectionsOf,
  withChanges,
} from '../config-form.js';
import { button, fill, h } from '../dom.js';
import { describeFailure, failureBox } from '../errors-ui.js';
import { count } from '../format.js';
import type { View, ViewContext } from '../view.js';

interface FieldControl {
  field: ConfigField;
  spec: ControlSpec;
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  error: HTMLElement;
}

const idOf = (path: string) => `cfg-${path.replace(/[^A-Za-z0-9_-]/g, '-')}`;

export class SettingsView implements View {
  readonly key = 'settings' as const;
  readonly label = 'Settings';
  readonly panel = h('section', { class: 'view settings' });
  readonly debounceMs = 0;
  private controls = new Map<string, FieldControl>();
  private view: ConfigView | null = null;
  private readonly status = h('p', { class: 'form-status', role: 'status' });

  constructor(private readonly context: ViewContext) {}

  affectedBy(): boolean {
    return false;
  }

  async refresh(): Promise<void> {
    try {
      this.view = await this.context.api.config();
      this.render(this.view);
    } catch (error) {
      const retry = button('Try again', () => this.refresh());
      const why =
        error instanceof Cancelled
          ? h(
              'p',
              { class: 'failure', role: 'alert' },
              'The settings hold secrets, so reading them needs the API token.',
            )
          : failureBox('Could not read the configuration', error);
      fill(this.panel, h('h2', null, 'Settings'), why, retry);
    }
  }

  private render(view: ConfigView): void {
    this.controls = new Map();
    const form = h('form', { class: 'config-form', novalidate: true, 'aria-describedby': 'settings-intro' });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.save();
    });
    for (const section of sectionsOf(view.fields)) {
      const fieldset = h('fieldset', { 'data-section': section.name }, h('legend', null, section.name));
      for (const field of section.fields) fieldset.append(this.row(field, view));
      form.append(fieldset);
    }
    const discard = button('Discard changes', () => this.render(view), { 'data-key': 'discard' });
    form.append(
      h(
        'div',
        { class: 'form-actions' },
        h('button', { type: 'submit', class: 'primary' }, 'Save changes'),
        discard,
        this.status,
      ),
    );
    fill(
      this.panel,
      h('h2', null, 'Settings'),
      h(
        'p',
        { id: 'settings-intro', class: 'muted' },
        view.exists ? `Editing ${view.file}. ` : `${view.file} does not exist yet: saving creates it. `,
        'Only the keys you change are written; the rest keep their defaults. The daemon follows this file and applies a valid change within seconds.',
      ),
      form,
    );
    fill(this.status, '');
  }

  private row(field: ConfigField, view: ConfigView): HTMLElement {
    const spec = controlFor(field);
    const id = idOf(field.path);
    const value = currentValue(field, view.raw);
    const error = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert', hidden: true });
    const help = h(
      'p',
      { class: 'help', id: `${id}-help` },
      field.doc,
      h('br'),
      h('small', null, `Expects ${field.expected}. Default: ${show(field.default)}.`),
    );
    const described = `${id}-help ${id}-error`;
    let input: FieldControl['input'];
    switch (spec.kind) {
      case 'checkbox':
        input = h('input', { type: 'checkbox', id, checked: value === true, 'aria-describedby': described });
        break;
      case 'select':
        input = h(
          'select',
          { id, 'aria-describedby': described },
          ...spec.options.map((o) => h('option', { value: o, selected: o === value }, o)),
        );
        break;
      case 'json':
        input = h('textarea', { id, rows: 3, spellcheck: 'false', 'aria-describedby': described });
        input.value = formatValue(spec, value);
        break;
      default:
        input = h('input', {
          id,
          type: spec.secret ? 'password' : spec.kind === 'number' ? 'number' : 'text',
          step: spec.kind === 'number' ? 'any' : null,
          autocomplete: 'off',
          spellcheck: 'false',
          placeholder: spec.kind === 'nullable' ? 'null: automatic' : null,
          'aria-describedby': described,
        });
        input.value = formatValue(spec, value);
    }
    input.dataset.path = field.path;
    input.addEventListener('input', () => this.markChanged(field.path));
    input.addEventListener('change', () => this.markChanged(field.path));
    this.controls.set(field.path, { field, spec, input, error });
    const written = getPath(view.raw, field.path).found;
    const effective = getPath(view.effective, field.path);
    const inForce =
      !spec.secret && effective.found && !sameValue(effective.value, value)
        ? h('small', { class: 'in-force' }, `In force: ${show(effective.value)}`)
        : null;
    return h(
      'div',
      { class: `field field-${spec.kind}${written ? ' written' : ''}`, 'data-field': field.path },
      h('label', { for: id }, h('code', null, field.path), written ? h('span', { class: 'badge set' }, 'set') : null),
      input,
      inForce,
      help,
      error,
    );
  }

  private markChanged(path: string): void {
    const control = this.controls.get(path);
    if (!control || !this.view) return;
    const parsed = parseValue(control.spec, control.field, this.inputValue(control));
    const changed = !parsed.ok || !sameValue(parsed.value, currentValue(control.field, this.view.raw));
    control.input.closest('.field')?.classList.toggle('changed', changed);
    this.clearError(control);
    const n = [...this.controls.values()].filter((c) =>
      c.input.closest('.field')?.classList.contains('changed'),
    ).length;
    fill(this.status, n === 0 ? '' : `${count(n, 'unsaved change')}`);
  }

  private inputValue(control: FieldControl): string | boolean {
    return control.input instanceof HTMLInputElement && control.input.type === 'checkbox'
      ? control.input.checked
      : control.input.value;
  }

  private showError(control: FieldControl, message: string): void {
    control.error.hidden = false;
    fill(control.error, message);
    control.input.setAttribute('aria-invalid', 'true');
    control.input.closest('.field')?.classList.add('invalid');
  }

  private clearError(control: FieldControl): void {
    control.error.hidden = true;
    fill(control.error);
    control.input.removeAttribute('aria-invalid');
    control.input.closest('.field')?.classList.remove('invalid');
  }

  private async save(): Promise<void> {
    const view = this.view;
    if (!view) return;
    const changes = new Map<string, unknown>();
    let firstInvalid: FieldControl | null = null;
    for (const control of this.controls.values()) {
      this.clearError(control);
      const parsed = parseValue(control.spec, control.field, this.inputValue(control));
      if (!parsed.ok) {
        this.showError(control, parsed.error);
        firstInvalid ??= control;
        continue;
      }
      if (!sameValue(parsed.value, currentValue(control.field, view.raw)))
        changes.set(control.field.path, parsed.value);
    }
    if (firstInvalid) {
      fill(this.status, 'Not saved: fix the marked field.');
      firstInvalid.input.focus();
      return;
    }
    if (changes.size === 0) {
      fill(this.status, 'Nothing changed.');
      return;
    }
    fill(this.status, 'Saving…');
    try {
      const answer = await this.context.api.saveConfig(withChanges(view.raw, changes));
      this.context.say(`Saved ${count(changes.size, 'change')} to ${answer.file}: ${answer.note}`, 'success');
      await this.refresh();
      fill(this.status, `Saved ${count(changes.size, 'change')}.`);
    } catch (error) {
      if (error instanceof Cancelled) {
        fill(this.status, 'Not saved: no API token was given.');
        return;
      }
      const path = error instanceof ApiFailure ? fieldForParam(view.fields, error.param) : null;
      const control = path === null ? undefined : this.controls.get(path);
      if (control) {
        this.showError(control, describeFailure(error));
        control.input.focus();
        fill(this.status, `Not saved: ${control.field.path} was refused.`);
      } else {
        fill(this.status, `Not saved: ${describeFailure(error)}`);
      }
    }
  }
}

function show(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}
