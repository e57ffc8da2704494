/**
 * A simulated agent session: turns of user text, model calls (some failing),
 * tool calls and tool results, as OpenClaw writes them. Tool output and user
 * text deliberately talk about 429s and timeouts: BreakerBar must count only
 * the calls themselves.
 */
import { OUTCOMES, type Outcome } from '../core/calls/classify.js';
import { assistantMessage, sessionHeader, toolResult, userMessage } from './records.js';

export interface PlannedCall {
  dep: string;
  outcome: Outcome;
  ts: number;
  totalTokens: number;
}

export interface Turn {
  lines: string[];
  calls: PlannedCall[];
}

export interface SessionOptions {
  /** `provider/model` keys to call, picked at random per call. */
  deps: readonly string[];
  /** Share of calls that fail (with an outcome picked at random among the failures). */
  failureRate: number;
  /** Length of the model's text answers, in characters. */
  textChars?: number;
}

const FAILURES = OUTCOMES.filter((outcome) => outcome !== 'ok');
const WORDS = 'the gateway model call retry limit agent session token provider stream queue lane 配额 请求'.split(' ');

export class SessionScript {
  private entry = 0;
  private last: string | null = null;

  constructor(
    readonly sessionId: string,
    private readonly random: () => number,
    private readonly options: SessionOptions,
  ) {}

  header(ts: number): string {
    return sessionHeader(this.sessionId, ts);
  }

  /** One user turn: a question, a tool-using call, the tool's result, and the answer. */
  turn(ts: number): Turn {
    const calls: PlannedCall[] = [];
    const question = this.link();
    const lines = [
      userMessage(question.id, question.parentId, ts, 'Why did the 429 rate limit and timeout happen again?'),
    ];
    const first = this.call(ts + 1, calls, true);
    lines.push(first.line);
    if (first.toolCallId) {
      const result = this.link();
      const output = 'HTTP/1.1 429 Too Many Requests\nrate limit exceeded; ECONNRESET';
      lines.push(toolResult(result.id, result.parentId, ts + 2, first.toolCallId, output));
      lines.push(this.call(ts + 3, calls, false).line);
    }
    return { lines, calls };
  }

  private call(ts: number, calls: PlannedCall[], mayUseTool: boolean): { line: string; toolCallId?: string } {
    const dep = this.options.deps[Math.floor(this.random() * this.options.deps.length)] as string;
    const [provider = dep, model = dep] = dep.split('/');
    const fails = this.random() < this.options.failureRate;
    const outcome: Outcome = fails ? (FAILURES[Math.floor(this.random() * FAILURES.length)] as Outcome) : 'ok';
    const totalTokens = outcome === 'ok' ? 100 + Math.floor(this.random() * 5000) : 0;
    const toolCallId = !fails && mayUseTool && this.random() < 0.5 ? `call_${this.entry}` : undefined;
    calls.push({ dep, outcome, ts, totalTokens });
    const line = assistantMessage({
      ...this.link(),
      ts,
      provider,
      model,
      outcome,
      sample: Math.floor(this.random() * 4),
      totalTokens,
      text: outcome === 'ok' ? this.text() : undefined,
      toolCall: toolCallId
        ? {
            id: toolCallId,
            name: 'exec',
            arguments: { command: 'curl -s https://api.example.com | grep "429 rate limit"' },
          }
        : undefined,
    });
    return { line, toolCallId };
  }

  private text(): string {
    const chars = this.options.textChars ?? 400;
    const words: string[] = [];
    let length = 0;
    while (length < chars) {
      const word = WORDS[Math.floor(this.random() * WORDS.length)] as string;
      words.push(word);
      length += word.length + 1;
    }
    return `${words.join(' ')}\n"quoted" done.`;
  }

  /** The next entry's id, chained to the previous entry as OpenClaw does. */
  private link(): { id: string; parentId: string | null } {
    const parentId = this.last;
    this.entry++;
    this.last = `${this.sessionId.slice(0, 8)}-${this.entry.toString(16).padStart(6, '0')}`;
    return { id: this.last, parentId };
  }
}
