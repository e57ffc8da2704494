/**
 * Building the DOM without HTML strings. Dependency names, reasons, errors and
 * command output come from the API and are untrusted text: they only ever
 * become text nodes, never markup (no innerHTML anywhere in the dashboard).
 * Inline `style` attributes are refused too: the CSP (`style-src 'self'`)
 * would block them, so styling goes through classes in style.css.
 */

export type Child = Node | string | number | null | undefined | false;
export type Attributes = Record<string, string | number | boolean | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (attributes) setAttributes(element, attributes);
  append(element, children);
  return element;
}

export function setAttributes(element: Element, attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'style' || name.startsWith('on')) {
      throw new Error(`attribute ${name} is not allowed: use a class, or addEventListener`);
    }
    if (value === null || value === undefined || value === false) element.removeAttribute(name);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? text(child) : child);
  }
}

export function text(value: string | number): Text {
  return document.createTextNode(String(value));
}

/** Replaces everything inside `parent`. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A button whose click runs `action`; disabled while an async action runs, so it cannot be sent twice. */
export function button(label: string, action: () => unknown, attributes: Attributes = {}): HTMLButtonElement {
  const element = h('button', { type: 'button', ...attributes }, label);
  element.addEventListener('click', async () => {
    if (element.disabled) return;
    element.disabled = true;
    try {
      await action();
    } finally {
      element.disabled = false;
    }
  });
  return element;
}

/**
 * Text that the 1 s ticker keeps current: a relative time ("3 min ago") or a
 * countdown ("in 45 s"), rendered by `ticking.ts` from the data attributes.
 */
export function live(
  kind: 'ago' | 'countdown' | 'since' | 'left',
  ts: number,
  attributes: Attributes = {},
): HTMLElement {
  return h('span', { ...attributes, 'data-live': kind, 'data-ts': ts });
}

/**
 * Re-renders `panel` keeping what the user was doing: the focused control and open <details>, matched by
 * their `data-key`. Live updates re-render often (a storm refreshes every second), and a keyboard user
 * must not be thrown back to the top of the page each time.
 */
export function keepingFocus(panel: HTMLElement, render: () => void): void {
  const active = document.activeElement;
  const focusedKey = active instanceof HTMLElement && panel.contains(active) ? active.dataset.key : undefined;
  const open = new Set(
    [...panel.querySelectorAll<HTMLDetailsElement>('details[data-key]')]
      .filter((d) => d.open)
      .map((d) => d.dataset.key),
  );
  render();
  for (const details of panel.querySelectorAll<HTMLDetailsElement>('details[data-key]')) {
    if (open.has(details.dataset.key)) details.open = true;
  }
  if (focusedKey !== undefined) {
    const target = [...panel.querySelectorAll<HTMLElement>('[data-key]')].find((e) => e.dataset.key === focusedKey);
    target?.focus({ preventScroll: true });
  }
}

/**
 * Holds a view's re-render while a pointer is pressed inside it: a button replaced between mousedown and
 * mouseup loses its click, and live updates re-render often. The held render runs once the press is over,
 * after the click it produced.
 */
export class RenderGate {
  private pressed = false;
  private pending: (() => void) | null = null;

  constructor(panel: HTMLElement) {
    panel.addEventListener('pointerdown', () => {
      this.pressed = true;
    });
    const release = () => {
      if (!this.pressed) return;
      this.pressed = false;
      const held = this.pending;
      this.pending = null;
      // The click follows pointerup in the same task: render after it.
      if (held) window.setTimeout(held, 0);
    };
    document.addEventListener('pointerup', release, true);
    document.addEventListener('pointercancel', release, true);
  }

  run(render: () => void): void {
    if (this.pressed) this.pending = render;
    else render();
  }
}
