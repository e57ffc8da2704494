/**
 * Turns for a writer that must produce thousands of calls a second without
 * itself taking the CPU the measured daemon needs: a session's first turns are
 * built once by the rehearsal's SessionScript (real OpenClaw records), with a
 * placeholder time, then replayed with the real time and fresh entry ids,
 * which is string concatenation instead of building and serialising objects.
 * Every replayed call is a new call (its entry id is new), at its own time.
 */
import type { SessionScript } from '../main/simulator/workload.js';

/** A time no real record carries, so its ISO and epoch forms can be found in the built lines. */
const PLACEHOLDER_TS = Date.UTC(2100, 0, 1);
/** A turn's records are stamped ts … ts+3 (user, call, tool result, call). */
const OFFSETS = [0, 1, 2, 3] as const;

/** A line cut at its placeholders: literal text, then which value goes between literals. */
interface Template {
  literals: string[];
  slots: Array<{ kind: 'iso' | 'epoch'; offset: number } | { kind: 'id' }>;
  calls: number;
}

export class TurnTemplates {
  private readonly turns: Array<{ lines: Template[]; calls: number }> = [];
  private next = 0;
  private round = 0;
  private readonly idPrefix: string;

  /** Builds `count` turns of `script` (a session's turns differ: tools, failures, text lengths). */
  constructor(script: SessionScript, count: number) {
    this.idPrefix = `${script.sessionId.slice(0, 8)}-`;
    const tokens = new Map<string, Template['slots'][number]>();
    for (const offset of OFFSETS) {
      tokens.set(new Date(PLACEHOLDER_TS + offset).toISOString(), { kind: 'iso', offset });
      tokens.set(String(PLACEHOLDER_TS + offset), { kind: 'epoch', offset });
    }
    // Entry ids are `<session prefix>-<counter>`: the prefix gets the replay round, so ids never repeat.
    tokens.set(this.idPrefix, { kind: 'id' });
    const pattern = new RegExp([...tokens.keys()].map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
    for (let i = 0; i < count; i++) {
      const turn = script.turn(PLACEHOLDER_TS);
      const lines = turn.lines.map((line): Template => {
        const literals: string[] = [];
        const slots: Template['slots'] = [];
        let from = 0;
        for (const match of line.matchAll(pattern)) {
          literals.push(line.slice(from, match.index));
          slots.push(tokens.get(match[0]) as Template['slots'][number]);
          from = (match.index ?? 0) + match[0].length;
        }
        literals.push(line.slice(from));
        return { literals, slots, calls: 0 };
      });
      this.turns.push({ lines, calls: turn.calls.length });
    }
  }

  /** The next turn's lines, stamped `ts` … `ts`+3; and how many calls it holds. */
  turn(ts: number): { lines: string[]; calls: number } {
    const turn = this.turns[this.next] as { lines: Template[]; calls: number };
    this.next = (this.next + 1) % this.turns.length;
    if (this.next === 0) this.round++;
    const iso = OFFSETS.map((offset) => new Date(ts + offset).toISOString());
    const epoch = OFFSETS.map((offset) => String(ts + offset));
    const id = `${this.idPrefix}r${this.round}-`;
    const lines = turn.lines.map(({ literals, slots }) => {
      let line = literals[0] as string;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i] as Template['slots'][number];
        line += slot.kind === 'id' ? id : slot.kind === 'iso' ? iso[slot.offset] : epoch[slot.offset];
        line += literals[i + 1] as string;
      }
      return line;
    });
    return { lines, calls: turn.calls };
  }
}
