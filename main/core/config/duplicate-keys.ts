/**
 * The first key written twice in one object of a JSON text. `JSON.parse` keeps the last of them silently, so a
 * block pasted twice (a second `"watchdog"` without `dryRun`) would quietly undo the first: the config loader
 * refuses such a file instead, naming the key and its line. Pure; the text is valid JSON (parsed first).
 */
export interface DuplicateKey {
  /** Dotted path of the key (`watchdog.dryRun`; array items as `[i]`). */
  path: string;
  /** 1-based line of its second appearance. */
  line: number;
}

interface Frame {
  kind: 'object' | 'array';
  /** The path of this container. */
  path: string;
  keys: Set<string>;
  /** Objects: the key whose value comes next. Arrays: the index of the next item. */
  pendingKey: string | null;
  index: number;
}

export function findDuplicateKey(text: string): DuplicateKey | null {
  const stack: Frame[] = [];
  let line = 1;
  const childPath = (frame: Frame | undefined): string => {
    if (!frame) return '';
    if (frame.kind === 'array') return `${frame.path}[${frame.index}]`;
    return frame.path ? `${frame.path}.${frame.pendingKey}` : (frame.pendingKey ?? '');
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    else if (c === '{' || c === '[') {
      const parent = stack[stack.length - 1];
      stack.push({
        kind: c === '{' ? 'object' : 'array',
        path: childPath(parent),
        keys: new Set(),
        pendingKey: null,
        index: 0,
      });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'array') top.index++;
      else if (top) top.pendingKey = null;
    } else if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.kind === 'object' && top.pendingKey === null) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) return { path: top.path ? `${top.path}.${key}` : key, line };
        top.keys.add(key);
        top.pendingKey = key;
      }
      i = end;
    }
  }
  return null;
}
