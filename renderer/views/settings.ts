/**
 * Settings: edits the config file the daemon reads (and follows), through
 * `config()` / `saveConfig()`. The form is generated from the schema the API
 * sends (`ConfigView.fields`); saving writes the changed keys only, and a key
 * the server refuses is marked inline, next to its field, in the server's words.
 *
 * Keys are grouped by concern (Gateway, Watchdog & restarts, Breakers…; see settings-groups.ts), each
 * group a <details> a group bar opens and jumps to, each key under its plain label with its unit and
 * its raw path small beside it.
 *
 * Live events never re-render this view: they would throw away what is being typed.
 */
import type { ConfigField, ConfigView } from '../../main/api/types.js';
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
  withChanges,
} from '../config-form.js';
import { codePrompt } from '../confirm-prompt.js';
import { NotConfirmed, saveConfirmed } from '../confirmation.js';
import { button, fill, h } from '../dom.js';
import { describeFailure, failureBox } from '../errors-ui.js';
import { groupFields, labelOf, type SettingGroup, unitOf, unitWord } from '../settings-groups.js';
import type { View, ViewContext } from '../view.js';
import { wordOr } from '../words.js';

interface FieldControl {
  field: ConfigField;
  spec: ControlSpec;
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  error: HTMLElement;
}

const idOf = (path: string) => `cfg-${path.replace(/[^A-Za-z0-9_-]/g, '-')}`;

export class SettingsView implements View {
  readonly key = 'settings' as const;
  /** Read by the shell at each render, so a language switch relabels the tab. */
  get label(): string {
    return this.context.t.t('views.settings.tab');
  }
  readonly panel = h('section', { class: 'view settings' });
  readonly debounceMs = 0;
  private controls = new Map<string, FieldControl>();
  private view: ConfigView | null = null;
  private readonly status = h('p', { class: 'form-status', role: 'status' });
  /** Where the one-time code of a dangerous change is asked for (a browser only; the app asks natively). */
  private readonly confirmBox = h('div', { class: 'confirm-box', hidden: true });
  /** Groups the user opened (kept across re-renders); null until the first render picks them. */
  private open: Set<SettingGroup> | null = null;

  constructor(private readonly context: ViewContext) {}

  affectedBy(): boolean {
    return false;
  }

  async refresh(): Promise<void> {
    try {
      this.view = await this.context.api.config();
      this.render(this.view);
    } catch (error) {
      const { t } = this.context;
      const retry = button(t.t('views.tryAgain'), () => this.refresh());
      const why =
        error instanceof Cancelled
          ? h('p', { class: 'failure', role: 'alert' }, t.t('views.settings.needsToken'))
          : failureBox(t.t('views.settings.readFailed'), error, t);
      fill(this.panel, h('h2', null, t.t('views.settings.heading')), why, retry);
    }
  }

  private render(view: ConfigView): void {
    const { t } = this.context;
    this.controls = new Map();
    const groups = groupFields(view.fields);
    // At first the groups holding keys the file sets are open (that is what was configured), and the first.
    this.open ??= new Set(
      groups.filter((g, i) => i === 0 || g.fields.some((f) => getPath(view.raw, f.path).found)).map((g) => g.group),
    );
    const open = this.open;
    const form = h('form', { class: 'config-form', novalidate: true, 'aria-describedby': 'settings-intro' });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.save();
    });
    const nav = h('ul', { class: 'group-nav-list' });
    for (const { group, fields } of groups) {
      const name = wordOr(t, `views.settings.group.${group}`, group);
      const set = fields.filter((f) => getPath(view.raw, f.path).found).length;
      const details = h(
        'details',
        { class: 'settings-group', id: `settings-group-${group}`, 'data-group': group, open: open.has(group) },
        h(
          'summary',
          { 'data-key': `group:${group}` },
          h('span', { class: 'group-name' }, name),
          ' ',
          h('small', { class: 'muted' }, t.t('views.settings.groupCount', { n: fields.length, set })),
        ),
      );
      details.addEventListener('toggle', () => {
        if (details.open) open.add(group);
        else open.delete(group);
      });
      const fieldset = h('fieldset', { 'data-section': group }, h('legend', { class: 'visually-hidden' }, name));
      for (const field of fields) fieldset.append(this.row(field, view));
      details.append(fieldset);
      form.append(details);
      const jump = h(
        'button',
        { type: 'button', class: 'chip', 'data-key': `jump:${group}`, 'data-group': group },
        name,
      );
      jump.addEventListener('click', () => {
        details.open = true;
        details.scrollIntoView({ block: 'start' });
        details.querySelector<HTMLElement>('summary')?.focus({ preventScroll: true });
      });
      nav.append(h('li', null, jump));
    }
    const all = (state: boolean) => {
      for (const details of form.querySelectorAll<HTMLDetailsElement>('details.settings-group')) details.open = state;
    };
    nav.append(
      h(
        'li',
        { class: 'group-nav-all' },
        button(t.t('views.settings.expandAll'), () => all(true), { class: 'link' }),
        ' · ',
        button(t.t('views.settings.collapseAll'), () => all(false), { class: 'link' }),
      ),
    );
    const discard = button(t.t('views.settings.discard'), () => this.render(view), { 'data-key': 'discard' });
    form.append(
      h(
        'div',
        { class: 'form-actions' },
        h('button', { type: 'submit', class: 'primary' }, t.t('views.settings.save')),
        discard,
        this.status,
      ),
    );
    fill(
      this.panel,
      h('h2', null, t.t('views.settings.heading')),
      h(
        'p',
        { id: 'settings-intro', class: 'muted' },
        view.exists
          ? t.t('views.settings.editing', { file: view.file })
          : t.t('views.settings.missing', { file: view.file }),
        t.t('views.settings.intro'),
      ),
      h('nav', { class: 'group-nav', 'aria-label': t.t('views.settings.nav') }, nav),
      form,
      this.confirmBox,
    );
    fill(this.status, '');
  }

  private row(field: ConfigField, view: ConfigView): HTMLElement {
    const { t } = this.context;
    const spec = controlFor(field);
    const id = idOf(field.path);
    const value = currentValue(field, view.raw);
    const error = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert', hidden: true });
    const help = h(
      'p',
      { class: 'help', id: `${id}-help` },
      field.doc,
      h('br'),
      h('small', null, t.t('views.settings.expects', { expected: field.expected, default: show(field.default) })),
    );
    const unit = unitOf(field);
    const unitText =
      unit === null || spec.kind === 'json' ? null : h('span', { class: 'unit', id: `${id}-unit` }, unitWord(t, unit));
    const described = `${unitText ? `${id}-unit ` : ''}${id}-help ${id}-error`;
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
          placeholder: spec.kind === 'nullable' ? t.t('views.settings.automatic') : null,
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
        ? h('small', { class: 'in-force' }, t.t('views.settings.inForce', { value: show(effective.value) }))
        : null;
    const label = labelOf(t, field.path);
    return h(
      'div',
      {
        class: `field field-${spec.kind}${written ? ' written' : ''}`,
        'data-field': field.path,
        'data-unlabeled': label === null ? 'true' : null,
      },
      h(
        'label',
        { for: id, 'data-changed': t.t('views.settings.changed') },
        label === null ? null : h('span', { class: 'field-label' }, label),
        label === null ? null : ' ',
        h('code', { class: label === null ? null : 'field-key' }, field.path),
        written
          ? h('span', { class: 'badge set', title: t.t('views.settings.setTitle') }, t.t('views.settings.set'))
          : null,
      ),
      h('div', { class: 'control' }, input, unitText),
      inForce,
      help,
      error,
    );
  }

  private markChanged(path: string): void {
    const control = this.controls.get(path);
    if (!control || !this.view) return;
    const parsed = parseValue(control.spec, control.field, this.inputValue(control), this.context.t);
    const changed = !parsed.ok || !sameValue(parsed.value, currentValue(control.field, this.view.raw));
    control.input.closest('.field')?.classList.toggle('changed', changed);
    this.clearError(control);
    const n = [...this.controls.values()].filter((c) =>
      c.input.closest('.field')?.classList.contains('changed'),
    ).length;
    fill(this.status, n === 0 ? '' : this.context.t.t('views.settings.unsaved', { n }));
  }

  private inputValue(control: FieldControl): string | boolean {
    return control.input instanceof HTMLInputElement && control.input.type === 'checkbox'
      ? control.input.checked
      : control.input.value;
  }

  private showError(control: FieldControl, message: string): void {
    // A closed group would hide the error and the field that gets the focus.
    const group = control.input.closest('details');
    if (group) group.open = true;
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
    const { t } = this.context;
    const view = this.view;
    if (!view) return;
    const changes = new Map<string, unknown>();
    let firstInvalid: FieldControl | null = null;
    for (const control of this.controls.values()) {
      this.clearError(control);
      const parsed = parseValue(control.spec, control.field, this.inputValue(control), t);
      if (!parsed.ok) {
        this.showError(control, parsed.error);
        firstInvalid ??= control;
        continue;
      }
      if (!sameValue(parsed.value, currentValue(control.field, view.raw)))
        changes.set(control.field.path, parsed.value);
    }
    if (firstInvalid) {
      fill(this.status, t.t('views.settings.fixMarked'));
      firstInvalid.input.focus();
      return;
    }
    if (changes.size === 0) {
      fill(this.status, t.t('views.settings.nothingChanged'));
      return;
    }
    fill(this.status, t.t('views.settings.saving'));
    try {
      const config = withChanges(view.raw, changes);
      const answer = await saveConfirmed(
        (code) => this.context.api.saveConfig(config, code),
        codePrompt(this.confirmBox, () => this.context.t),
      );
      this.context.say(
        t.t('views.settings.savedTo', { n: changes.size, file: answer.file, note: answer.note }),
        'success',
      );
      await this.refresh();
      fill(this.status, t.t('views.settings.saved', { n: changes.size }));
    } catch (error) {
      if (error instanceof NotConfirmed) {
        fill(this.status, t.t('confirm.prompt.cancelled'));
        return;
      }
      if (error instanceof Cancelled) {
        fill(this.status, t.t('views.settings.noToken'));
        return;
      }
      const path = error instanceof ApiFailure ? fieldForParam(view.fields, error.param) : null;
      const control = path === null ? undefined : this.controls.get(path);
      if (control) {
        this.showError(control, describeFailure(error, t));
        control.input.focus();
        fill(this.status, t.t('views.settings.refused', { path: control.field.path }));
      } else {
        fill(this.status, t.t('views.settings.notSaved', { why: describeFailure(error, t) }));
      }
    }
  }
}

function show(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}
