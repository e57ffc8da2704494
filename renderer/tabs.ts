/**
 * The view switcher as WAI-ARIA tabs (https://www.w3.org/WAI/ARIA/apg/patterns/tabs/):
 * Tab reaches the selected tab, Left/Right (and Home/End) move between tabs and
 * show the view at once, Tab again enters the panel.
 */
import { h } from './dom.js';

export interface TabSpec {
  key: string;
  label: string;
  panel: HTMLElement;
}

export class Tabs {
  readonly list: HTMLElement;
  private readonly buttons = new Map<string, HTMLButtonElement>();
  private current: string | null = null;

  constructor(
    private readonly tabs: readonly TabSpec[],
    private readonly onSelect: (key: string) => void,
    label = 'Dashboard views',
  ) {
    this.list = h('div', { role: 'tablist', 'aria-label': label, class: 'tabs' });
    for (const tab of tabs) {
      const id = `tab-${tab.key}`;
      const element = h(
        'button',
        {
          type: 'button',
          role: 'tab',
          id,
          'aria-controls': `panel-${tab.key}`,
          'aria-selected': 'false',
          tabindex: -1,
          'data-view': tab.key,
        },
        tab.label,
      );
      element.addEventListener('click', () => this.select(tab.key));
      element.addEventListener('keydown', (event) => this.onKey(event, tab.key));
      this.buttons.set(tab.key, element);
      this.list.append(element);
      tab.panel.id = `panel-${tab.key}`;
      tab.panel.setAttribute('role', 'tabpanel');
      tab.panel.setAttribute('aria-labelledby', id);
      tab.panel.tabIndex = 0;
      tab.panel.hidden = true;
    }
  }

  /** Names the tabs again from their specs (whose labels follow the language) after a language switch. */
  relabel(label: string): void {
    this.list.setAttribute('aria-label', label);
    for (const tab of this.tabs) {
      const button = this.buttons.get(tab.key);
      if (button && button.textContent !== tab.label) button.textContent = tab.label;
    }
  }

  get selected(): string | null {
    return this.current;
  }

  select(key: string, focus = false): void {
    const button = this.buttons.get(key);
    if (!button) return;
    for (const tab of this.tabs) {
      const active = tab.key === key;
      const element = this.buttons.get(tab.key)!;
      element.setAttribute('aria-selected', String(active));
      element.tabIndex = active ? 0 : -1;
      tab.panel.hidden = !active;
    }
    if (focus) button.focus();
    if (this.current !== key) {
      this.current = key;
      this.onSelect(key);
    }
  }

  private onKey(event: KeyboardEvent, key: string): void {
    const keys = this.tabs.map((tab) => tab.key);
    const index = keys.indexOf(key);
    let next: number | null = null;
    if (event.key === 'ArrowRight') next = (index + 1) % keys.length;
    else if (event.key === 'ArrowLeft') next = (index - 1 + keys.length) % keys.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = keys.length - 1;
    if (next === null) return;
    event.preventDefault();
    this.select(keys[next]!, true);
  }
}
