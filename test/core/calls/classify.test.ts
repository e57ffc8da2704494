import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type AssistantFacts,
  type Classification,
  classify,
  classifyErrorText,
  classifyFailoverReason,
  emptyOutcomeCounts,
  isSeedRateLimit,
  OUTCOMES,
  type Outcome,
  outcomeForReason,
  parseRetryAfterText,
} from '../../../main/core/calls/classify.js';
import { readRecord } from '../../../main/core/sources/transcript-record.js';
import { seededRandom } from '../../../main/simulator/records.js';

/** A failed call (stopReason "error") with nothing but what the test sets. */
function failed(over: Partial<AssistantFacts> = {}): AssistantFacts {
  return {
    stopReason: 'error',
    errorMessage: undefined,
    errorCode: undefined,
    errorStatus: undefined,
    errorRetryAfterMs: undefined,
    outputDelivered: false,
    ...over,
  };
}

const outcomeOfText = (errorMessage: unknown): Outcome => classify(failed({ errorMessage })).outcome;

describe('OUTCOMES and emptyOutcomeCounts', () => {
  it('lists the eleven outcomes', () => {
    expect(OUTCOMES).toEqual([
      'ok',
      'rate_limited',
      'overloaded',
      'server_error',
      'timeout',
      'connection_reset',
      'aborted',
      'auth',
      'billing',
      'context_overflow',
      'other_error',
    ]);
  });

  it('gives every outcome a zero, in OUTCOMES order, as a fresh object each time', () => {
    const counts = emptyOutcomeCounts();
    expect(Object.keys(counts)).toEqual([...OUTCOMES]);
    expect(Object.values(counts).every((n) => n === 0)).toBe(true);
    counts.ok = 5;
    expect(emptyOutcomeCounts().ok).toBe(0);
  });
});

describe('rule 1: stopReason', () => {
  it.each(['stop', 'toolUse', 'length'])('%s is ok, whatever error fields linger', (stopReason) => {
    const c = classify(
      failed({
        stopReason,
        errorMessage: '429 rate limit',
        errorStatus: 429,
        errorRetryAfterMs: 1000,
        outputDelivered: true,
      }),
    );
    expect(c).toMatchObject({ outcome: 'ok', phase: 'complete', httpStatus: null, retryAfterMs: null });
  });

  it('aborted is aborted, even with a rate-limit message', () => {
    expect(classify(failed({ stopReason: 'aborted', errorMessage: 'Request was aborted' })).outcome).toBe('aborted');
    expect(
      classify(failed({ stopReason: 'aborted', errorMessage: '429 Too Many Requests', errorStatus: 429 })).outcome,
    ).toBe('aborted');
  });
});

describe('rule 2: errorStatus / errorCode table', () => {
  it.each<[string, Partial<AssistantFacts>, Outcome]>([
    ['status 429', { errorStatus: 429 }, 'rate_limited'],
    ['status "429" as a string', { errorStatus: ' 429 ' }, 'rate_limited'],
    ['zhipu code 1305 (number)', { errorCode: 1305 }, 'rate_limited'],
    ['zhipu code "1305"', { errorCode: '1305' }, 'rate_limited'],
    ['code RESOURCE_EXHAUSTED', { errorCode: 'RESOURCE_EXHAUSTED' }, 'rate_limited'],
    ['code resource_exhausted, any case', { errorCode: 'Resource_Exhausted' }, 'rate_limited'],
    ['status 529', { errorStatus: 529 }, 'overloaded'],
    ['status 401', { errorStatus: 401 }, 'auth'],
    ['status 403', { errorStatus: '403' }, 'auth'],
    ['status 402', { errorStatus: 402 }, 'billing'],
    ['status 408', { errorStatus: 408 }, 'timeout'],
    ['status 504', { errorStatus: 504 }, 'timeout'],
    ['status 500', { errorStatus: 500 }, 'server_error'],
    ['status 502', { errorStatus: 502 }, 'server_error'],
    ['status 503', { errorStatus: '503' }, 'server_error'],
    ['status 599', { errorStatus: 599 }, 'server_error'],
  ])('%s', (_name, over, outcome) => {
    expect(classify(failed(over)).outcome).toBe(outcome);
  });

  it('wins over the text', () => {
    expect(classify(failed({ errorStatus: 401, errorMessage: 'rate limit exceeded' })).outcome).toBe('auth');
    expect(classify(failed({ errorCode: 1305, errorMessage: 'Internal server error' })).outcome).toBe('rate_limited');
  });

  it('lets other statuses (400) and unknown codes fall through to the text', () => {
    expect(classify(failed({ errorStatus: 400, errorMessage: 'Rate limit exceeded' })).outcome).toBe('rate_limited');
    expect(classify(failed({ errorStatus: 400, errorMessage: 'list index out of range' })).outcome).toBe('other_error');
    expect(classify(failed({ errorCode: 'invalid_request_error' })).outcome).toBe('other_error');
  });

  it.each([42, 700, 429.5, '429abc', 'abc', '', {}, [429], true, Number.NaN])(
    'ignores a bogus status %j',
    (errorStatus) => {
      expect(classify(failed({ errorStatus })).outcome).toBe('other_error');
      expect(classify(failed({ errorStatus, errorMessage: 'Too Many Requests' })).outcome).toBe('rate_limited');
    },
  );
});

/**
 * One entry per row of TEXT_RULES in main/core/classify.ts, same order; each
 * pattern of a row has at least one example. Keep the two in step.
 */
const TEXT_ROWS: ReadonlyArray<{ note: string; outcome: Outcome; examples: readonly string[] }> = [
  {
    note: 'context length / window / maximum context',
    outcome: 'context_overflow',
    examples: [
      "This model's maximum context length is 128000 tokens. However, you requested 130512 tokens.",
      'prompt is too long: exceeds the context window',
      'input exceeds maximum context',
      'error code: CONTEXT_LENGTH_EXCEEDED',
    ],
  },
  {
    note: 'HTTP 429 quoted in the text',
    outcome: 'rate_limited',
    examples: [
      '429 该模型当前访问量过大，请您稍后再试',
      '429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}',
      'Request failed with status code 429',
      'HTTP 429',
      'upstream said (429)',
      'status=429,',
    ],
  },
  {
    note: 'rate-limit wording',
    outcome: 'rate_limited',
    examples: [
      'Rate limit exceeded. Please try again later.',
      'FailoverError: ⚠️ API rate limit reached.',
      'rate_limit_error',
      'Too Many Requests',
      'too_many_requests',
      'Resource exhausted',
      'RESOURCE_EXHAUSTED: check quota',
      'Quota exceeded for metric generate_content',
      'Request was throttled',
      'ThrottlingException',
      'You have hit your ChatGPT usage limit (team plan). Try again in ~406 min.',
      'Rate reached on tokens per min (TPM): Limit 30000',
    ],
  },
  { note: 'zhipu 访问量过大', outcome: 'rate_limited', examples: ['该模型当前访问量过大，请您稍后再试'] },
  {
    note: 'overloaded / high demand / 529',
    outcome: 'overloaded',
    examples: [
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      'The model is experiencing high demand, try later',
      '529 site busy',
    ],
  },
  { note: 'HTTP 402 quoted in the text', outcome: 'billing', examples: ['402 Payment Required'] },
  {
    note: 'insufficient credits / credit balance',
    outcome: 'billing',
    examples: ['Insufficient credits on this account', 'Your credit balance is too low to access the API'],
  },
  {
    note: 'HTTP 401/403 quoted in the text',
    outcome: 'auth',
    examples: ['401 {"error":"nope"}', 'HTTP error 403: forbidden'],
  },
  {
    note: 'invalid api key / unauthorized',
    outcome: 'auth',
    examples: [
      'Incorrect or invalid API key provided',
      'invalid x-api-key',
      'invalid_api_key',
      'Unauthorized',
      'unauthorised',
    ],
  },
  {
    note: 'timeouts',
    outcome: 'timeout',
    examples: [
      'Request timed out.',
      'timeout of 60000ms exceeded',
      'connect ETIMEDOUT 1.2.3.4:443',
      'DEADLINE_EXCEEDED',
      'deadline exceeded',
    ],
  },
  {
    note: 'dropped connections',
    outcome: 'connection_reset',
    examples: ['read ECONNRESET', 'socket hang up', 'Connection reset by peer', 'write EPIPE'],
  },
  {
    note: '"Connection error." / "terminated" as the whole message',
    outcome: 'connection_reset',
    examples: ['Connection error.', 'connection error', 'terminated', ' Terminated. '],
  },
  {
    note: 'any 5xx quoted in the text',
    outcome: 'server_error',
    examples: ['500', 'HTTP 502 from upstream', '503', 'status 599'],
  },
  {
    note: 'server-side failure wording',
    outcome: 'server_error',
    examples: [
      'Internal Server Error',
      '<html><title>Bad Gateway</title></html>',
      'Service Unavailable',
      'upstream_error',
    ],
  },
];

describe('rule 3: text table, one test per row', () => {
  it.each(TEXT_ROWS)('$outcome: $note', ({ outcome, examples }) => {
    expect(examples.length).toBeGreaterThan(0);
    for (const message of examples) {
      expect({ message, outcome: outcomeOfText(message) }).toEqual({ message, outcome });
    }
  });

  it('is case-insensitive', () => {
    expect(outcomeOfText('RATE LIMIT EXCEEDED')).toBe('rate_limited');
    expect(outcomeOfText('socket HANG UP')).toBe('connection_reset');
    expect(outcomeOfText('econnreset')).toBe('connection_reset');
  });

  it('takes the first matching row', () => {
    // Statuses inside the text, not at its start: a leading one is the structured status (rule 2).
    expect(outcomeOfText('HTTP 429: context length exceeded')).toBe('context_overflow');
    expect(outcomeOfText('upstream 503 overloaded')).toBe('overloaded');
    expect(outcomeOfText('Internal server error: upstream timed out')).toBe('timeout');
    expect(outcomeOfText('HTTP 401 rate limit')).toBe('rate_limited');
  });

  it.each([
    // Status numbers embedded in ids and longer numbers.
    'error id 14290',
    'req_4290ab failed',
    'trace a429b',
    'request 01HZ429X failed',
    'x-request-id: req_503abc',
    'user_401_profile not found',
    'port 5030 refused',
    'model returned 4290 bytes',
    // Decimals, thousands and quantities are not statuses either.
    'latency 1.429 over budget',
    'processed 1,429 items',
    'max_tokens must be at most 512 tokens',
    'body too large: 502 bytes',
    'ran 429 ms',
    // Words close to, but not, a rule.
    'contextual grounding failed',
    'unlimited retries disabled',
    'EPIPELINE_FAILED',
    'tokens per request too high',
    'list index out of range',
    'Invalid tool call arguments',
    // "Connection error." and "terminated" count only as the whole message.
    'Process terminated by the user',
    'terminated: exit code 1',
    'Connection error: certificate has expired',
  ])('does not match %j', (message) => {
    expect(outcomeOfText(message)).toBe('other_error');
  });
});

describe('rule 4: everything else', () => {
  it.each<[string, Partial<AssistantFacts>]>([
    ['error without a message', {}],
    ['unknown stopReason', { stopReason: 'refusal' }],
    ['missing stopReason', { stopReason: undefined }],
    ['non-string stopReason', { stopReason: 7 }],
    ['empty message', { errorMessage: '' }],
  ])('%s is other_error', (_name, over) => {
    expect(classify(failed(over)).outcome).toBe('other_error');
  });

  it.each([{ message: '429 rate limit' }, 429, null, ['rate limit'], true])(
    'treats a non-string errorMessage %j as no text',
    (errorMessage) => {
      expect(classify(failed({ errorMessage })).outcome).toBe('other_error');
    },
  );
});

describe('long messages', () => {
  it('examines only the first 8 KiB', () => {
    expect(outcomeOfText(`${'x'.repeat(9000)} rate limit`)).toBe('other_error');
    expect(outcomeOfText(`<html>${' '.repeat(4000)}Bad Gateway${'<p>'.repeat(1_000_000)}`)).toBe('server_error');
  });
});

describe('other outputs', () => {
  it('phase: before_output without output, mid_stream with it', () => {
    expect(classify(failed({ errorStatus: 429 })).phase).toBe('before_output');
    expect(classify(failed({ errorStatus: 429, outputDelivered: true })).phase).toBe('mid_stream');
    expect(classify(failed({ stopReason: 'aborted', outputDelivered: true })).phase).toBe('mid_stream');
    expect(classify(failed({ stopReason: 'stop', outputDelivered: true })).phase).toBe('complete');
  });

  it.each<[Partial<AssistantFacts>, number | null]>([
    [{ errorStatus: 429 }, 429],
    [{ errorStatus: '503' }, 503],
    [{ errorStatus: 200, errorMessage: '503 x' }, 200],
    [{ errorStatus: 99, errorMessage: '429 该模型当前访问量过大' }, 429],
    [{ errorMessage: '503 Service Unavailable' }, 503],
    [{ errorMessage: '  502 Bad Gateway' }, 502],
    [{ errorMessage: 'Error 503' }, null],
    [{ errorMessage: '200 OK but empty' }, null],
    [{ errorMessage: '4290 things' }, null],
    [{ errorMessage: '429abc' }, null],
    [{ errorStatus: 700 }, null],
  ])('httpStatus of %j is %j', (over, status) => {
    expect(classify(failed(over)).httpStatus).toBe(status);
  });

  it('httpStatus is null for ok calls', () => {
    expect(classify(failed({ stopReason: 'stop', errorStatus: 500 })).httpStatus).toBeNull();
  });

  it.each<[unknown, string | null]>([
    [1305, '1305'],
    ['1305', '1305'],
    ['RESOURCE_EXHAUSTED', 'RESOURCE_EXHAUSTED'],
    ['', null],
    ['  ', null],
    [undefined, null],
    [null, null],
    [{ code: 1 }, null],
    [Number.NaN, null],
  ])('errorCode %j becomes %j', (errorCode, expected) => {
    expect(classify(failed({ errorCode })).errorCode).toBe(expected);
  });

  it.each<[Partial<AssistantFacts>, number | null]>([
    [{ errorRetryAfterMs: 1500 }, 1500],
    [{ errorRetryAfterMs: 0 }, 0],
    [{ errorRetryAfterMs: 1500, errorMessage: 'retry after 30s' }, 1500],
    [{ errorRetryAfterMs: -1, errorMessage: 'retry after 30s' }, 30_000],
    [{ errorRetryAfterMs: Number.NaN, errorMessage: 'retry after 30s' }, 30_000],
    [{ errorRetryAfterMs: Number.POSITIVE_INFINITY }, null],
    [{ errorRetryAfterMs: '1500' }, null],
    [{ errorMessage: 'You have hit your ChatGPT usage limit (team plan). Try again in ~406 min.' }, 406 * 60_000],
    [{ errorMessage: { retryAfter: 3 } }, null],
  ])('retryAfterMs of %j is %j', (over, expected) => {
    expect(classify(failed(over)).retryAfterMs).toBe(expected);
  });

  it('retryAfterMs is null for ok calls', () => {
    expect(classify(failed({ stopReason: 'stop', errorRetryAfterMs: 1000 })).retryAfterMs).toBeNull();
  });
});

describe('parseRetryAfterText', () => {
  it.each<[string, number]>([
    ['Retry-After: 120', 120_000],
    ['retry-after: 120\r\ndate: Tue', 120_000],
    ['retry-after-ms: 250', 250],
    ['retry after 30s', 30_000],
    ['Please retry after 20 seconds.', 20_000],
    ['try again in ~406 min', 406 * 60_000],
    ['try again in 1.5 seconds', 1500],
    ['retry in 250ms', 250],
    ['Please try again in 6m0s.', 360_000],
    ['try again in 1h 30m', 5_400_000],
    ['Please try again in 20ms.', 20],
    ['"retryDelay": "23s"', 23_000],
    ['Rate limited. Try again in 5 minutes or so', 300_000],
    ['Retry-After: 120.', 120_000],
  ])('%j → %d ms', (text, ms) => {
    expect(parseRetryAfterText(text)).toBe(ms);
  });

  it.each([
    '',
    'Please try again later.',
    'try again in a few minutes',
    'Retry-After: Wed, 21 Oct 2015 07:28:00 GMT',
    'retrying 3 times',
    '请稍后再试',
  ])('%j → null', (text) => {
    expect(parseRetryAfterText(text)).toBeNull();
  });

  it('looks only at the first 8 KiB', () => {
    expect(parseRetryAfterText(`${'x'.repeat(9000)} retry after 30s`)).toBeNull();
  });
});

describe('isSeedRateLimit', () => {
  it.each<[Partial<AssistantFacts>, boolean]>([
    [{ errorMessage: '429 Too Many Requests' }, true],
    [{ errorCode: 1305 }, true],
    [{ errorCode: '1305' }, true],
    [{ errorCode: '1306' }, false],
    [{ errorMessage: 'rate limit exceeded' }, false],
    [{ stopReason: 'stop', errorMessage: '429' }, false],
    [{ stopReason: 'aborted', errorCode: 1305 }, false],
    [{ errorMessage: { text: '429' } }, false],
  ])('%j → %s', (over, expected) => {
    expect(isSeedRateLimit(failed(over))).toBe(expected);
  });

  it('counted "429" inside an id; BreakerBar does not', () => {
    // The seed script searched for "429" as a plain substring, so a request id
    // or a byte count such as 14290 fired the watchdog. That is one of the
    // seed's bugs, not a property to keep: BreakerBar matches status numbers
    // only as whole numbers, so the subset property below holds for messages
    // where 429 really is a status, and this record is not a rate limit.
    const facts = failed({ errorMessage: 'list index out of range (error id 14290)' });
    expect(isSeedRateLimit(facts)).toBe(true);
    expect(classify(facts).outcome).toBe('other_error');
  });

  it('is a subset of rate_limited on thousands of varied records', () => {
    const random = seededRandom(0x5eed);
    const pick = <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('empty pool');
      // Pools hold undefined on purpose, so the index is checked above instead of the item.
      return items[Math.floor(random() * items.length)] as T;
    };
    // Messages where "429" is a status, the way real providers write it.
    const status429 = [
      '429 该模型当前访问量过大，请您稍后再试',
      '429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}',
      'HTTP 429: Too Many Requests',
      '429 status code (no body)',
      'Request failed with status code 429',
      'FailoverError: 429',
      'upstream returned (429) quota exceeded',
      'status=429 provider=openai',
      'Error: 429',
      '429',
    ];
    // Messages without "429" at all, tricky ones included.
    const other = [
      'list index out of range',
      'Request was aborted',
      'Rate limit exceeded. Please try again later.',
      'Internal Server Error',
      '503 Service Unavailable',
      'socket hang up',
      "This model's maximum context length is 128000 tokens",
      'req_5030ab failed',
      'user_401_profile',
      'EPIPELINE',
      '<html><body><h1>502 Bad Gateway</h1></body></html>',
      '',
    ];
    const prefixes = ['', 'Error: ', 'FailoverError: ', 'provider zhipu: ', '\n'];
    const suffixes = ['', ' Please try again later.', ' (retry after 30s)', ` request id ${'abcdef'.repeat(3)}`, '\n'];
    const statuses: unknown[] = [undefined, null, 429, '429', 400, 'n/a', 0];
    const codes: unknown[] = [
      undefined,
      null,
      '',
      1305,
      '1305',
      'RESOURCE_EXHAUSTED',
      'rate_limit_error',
      'insufficient_quota',
    ];
    const anyStatus: unknown[] = [...statuses, 500, 503, 401, 529, '502', {}];
    const anyMessage: unknown[] = [...other, ...status429, undefined, null, 42, { error: '429' }];
    const stopReasons: unknown[] = [
      'error',
      'error',
      'error',
      'stop',
      'toolUse',
      'length',
      'aborted',
      'refusal',
      undefined,
    ];

    let seedPositives = 0;
    for (let i = 0; i < 5000; i++) {
      const kind = random();
      let facts: AssistantFacts;
      if (kind < 0.4) {
        // 429 quoted as a status; errorStatus absent, 429 or a status rule 2 lets through.
        const message = `${pick(prefixes)}${pick(status429)}${pick(suffixes)}`;
        facts = failed({ errorMessage: message, errorStatus: pick(statuses), errorCode: pick(codes) });
      } else if (kind < 0.6) {
        // zhipu's code 1305 with anything else around it.
        facts = failed({
          errorCode: pick([1305, '1305']),
          errorMessage: pick(anyMessage),
          errorStatus: pick(anyStatus),
        });
      } else {
        facts = {
          stopReason: pick(stopReasons),
          errorMessage: pick([...other, undefined, null, 42]),
          errorCode: pick(codes.filter((c) => c !== 1305 && c !== '1305')),
          errorStatus: pick(anyStatus),
          errorRetryAfterMs: pick([undefined, 1000, -5, '7']),
          outputDelivered: random() < 0.5,
        };
      }
      const outcome = classify(facts).outcome;
      expect(OUTCOMES).toContain(outcome);
      if (isSeedRateLimit(facts)) {
        seedPositives++;
        expect({ facts, outcome }).toEqual({ facts, outcome: 'rate_limited' });
      }
    }
    // The generator must really exercise the property.
    expect(seedPositives).toBeGreaterThan(2000);
  });
});

describe('outcomeForReason (OpenClaw reasons and error categories)', () => {
  it.each([
    ['rate_limit', 'rate_limited'],
    ['Rate-Limit', 'rate_limited'],
    ['overloaded', 'overloaded'],
    ['timeout', 'timeout'],
    ['billing', 'billing'],
    ['auth', 'auth'],
    ['auth_permanent', 'auth'],
    ['server_error', 'server_error'],
    ['context_overflow', 'context_overflow'],
    ['network', 'connection_reset'],
    ['aborted', 'aborted'],
    ['success', 'ok'],
    ['model_not_found', 'other_error'],
    ['format', 'other_error'],
    ['', 'other_error'],
    [null, 'other_error'],
  ])('%s → %s', (reason, outcome) => {
    expect(outcomeForReason(reason)).toBe(outcome);
  });
});

describe('rule 2: the status the text starts with', () => {
  it.each<[string, Partial<AssistantFacts>, Outcome, number | null]>([
    ['429 first', { errorMessage: '429 Rate limit reached for requests.' }, 'rate_limited', 429],
    ['503 first', { errorMessage: '503 The service is temporarily unavailable.' }, 'server_error', 503],
    // As with errorStatus 503 and this text: the status wins over the wording.
    ['503 with "overloaded"', { errorMessage: '503 overloaded' }, 'server_error', 503],
    ['401 with rate-limit words', { errorMessage: '401 rate limit' }, 'auth', 401],
    ['429 with context words', { errorMessage: '429: context length exceeded' }, 'rate_limited', 429],
    ['after whitespace', { errorMessage: '\n 402 Payment Required' }, 'billing', 402],
    [
      '400 with context-length text',
      { errorMessage: "400 This model's maximum context length is 8192 tokens." },
      'context_overflow',
      400,
    ],
    ['400 with rate-limit words falls through', { errorMessage: '400 Rate limit exceeded' }, 'rate_limited', 400],
    ['400 alone', { errorMessage: '400 Bad Request' }, 'other_error', 400],
    // errorStatus, when present and valid, comes first.
    ['errorStatus first', { errorStatus: 401, errorMessage: '503 Service Unavailable' }, 'auth', 401],
    ['errorStatus 400 first', { errorStatus: 400, errorMessage: '503 x' }, 'server_error', 400],
    ['bogus errorStatus', { errorStatus: 'n/a', errorMessage: '529 busy' }, 'overloaded', 529],
  ])('%s', (_name, over, outcome, httpStatus) => {
    expect(classify(failed(over))).toMatchObject({ outcome, httpStatus });
  });

  it.each([
    'req_429abc failed',
    '429abc request failed',
    '4290 requests dropped',
    '429.5 is not a status',
    '500 tokens is the most this model returns',
    '503ms spent in queue',
    'x-request-id: 429f0c2e failed',
  ])('%j has no leading status and is not a rate limit or server error', (errorMessage) => {
    expect(classify(failed({ errorMessage }))).toMatchObject({ httpStatus: null, outcome: 'other_error' });
  });
});

describe('rule 1b: aborted calls that timed out', () => {
  it.each([
    'LLM idle timeout (30s): no response from model',
    'LLM idle timeout (10s): no response from model',
    'Request timed out.',
    'The operation was aborted due to timeout',
    'DEADLINE_EXCEEDED',
  ])('aborted with %j is timeout', (errorMessage) => {
    expect(classify(failed({ stopReason: 'aborted', errorMessage })).outcome).toBe('timeout');
  });

  it.each(['ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT'])('aborted with code %s is timeout', (errorCode) => {
    expect(classify(failed({ stopReason: 'aborted', errorCode })).outcome).toBe('timeout');
  });

  it.each<[string, Partial<AssistantFacts>]>([
    ['no text', {}],
    ['"Request was aborted"', { errorMessage: 'Request was aborted' }],
    ['"This operation was aborted"', { errorMessage: 'This operation was aborted' }],
    ['a rate limit', { errorMessage: '429 Too Many Requests', errorStatus: 429 }],
    ['a 504 status', { errorStatus: 504 }],
    ['a reset code', { errorCode: 'ECONNRESET' }],
  ])('aborted with %s stays aborted', (_name, over) => {
    expect(classify(failed({ stopReason: 'aborted', ...over })).outcome).toBe('aborted');
  });
});

describe('rule 2b: errorCode table (CODE_RULES)', () => {
  it.each<[unknown, Outcome]>([
    ['ECONNRESET', 'connection_reset'],
    ['econnreset', 'connection_reset'],
    ['EPIPE', 'connection_reset'],
    ['ECONNABORTED', 'connection_reset'],
    ['UND_ERR_SOCKET', 'connection_reset'],
    ['UND_ERR_CLOSED', 'connection_reset'],
    ['ETIMEDOUT', 'timeout'],
    ['ESOCKETTIMEDOUT', 'timeout'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'timeout'],
    ['und_err_body_timeout', 'timeout'],
    // Cut short by the writer.
    ['UND_ERR_HEADERS_TIMEOUT…', 'timeout'],
    ['UND_ERR_BODY_TIMEOUT_', 'timeout'],
    ['rate_limit_exceeded', 'rate_limited'],
    ['rate_limit_error', 'rate_limited'],
    ['RATE_LIMIT_EXCEEDED', 'rate_limited'],
    ['overloaded', 'overloaded'],
    ['overloaded_error', 'overloaded'],
    ['service_unavailable', 'server_error'],
    ['insufficient_quota', 'billing'],
    ['invalid_api_key', 'auth'],
    ['context_length_exceeded', 'context_overflow'],
    [' Context_Length_Exceeded ', 'context_overflow'],
  ])('code %j alone is %s', (errorCode, outcome) => {
    expect(classify(failed({ errorCode })).outcome).toBe(outcome);
  });

  it.each(['UND_ERR_ABORTED', 'UND_ERR_INVALID_ARG', 'UND_ERR_', 'ECONNRESET_LIKE', 'invalid_request_error', '500'])(
    'code %j alone is other_error',
    (errorCode) => {
      expect(classify(failed({ errorCode })).outcome).toBe('other_error');
    },
  );

  it.each<[string, Partial<AssistantFacts>, Outcome]>([
    ['429 + insufficient_quota (OpenAI quota)', { errorStatus: 429, errorCode: 'insufficient_quota' }, 'rate_limited'],
    [
      'leading 429 + insufficient_quota',
      { errorMessage: '429 You exceeded your current quota', errorCode: 'insufficient_quota' },
      'rate_limited',
    ],
    [
      'a 429 inside the text + insufficient_quota',
      { errorMessage: 'Error: 429 quota', errorCode: 'insufficient_quota' },
      'rate_limited',
    ],
    [
      'leading 402 + insufficient_quota',
      { errorMessage: '402 You exceeded your current quota', errorCode: 'insufficient_quota' },
      'billing',
    ],
    ['503 + overloaded', { errorMessage: '503 busy', errorCode: 'overloaded' }, 'server_error'],
    ['500 + rate_limit_exceeded', { errorStatus: 500, errorCode: 'rate_limit_exceeded' }, 'server_error'],
    ['400 + context_length_exceeded', { errorStatus: 400, errorCode: 'context_length_exceeded' }, 'context_overflow'],
  ])('a structured status wins over the code: %s', (_name, over, outcome) => {
    expect(classify(failed(over)).outcome).toBe(outcome);
  });

  it('wins over the text', () => {
    expect(classify(failed({ errorCode: 'ECONNRESET', errorMessage: 'Internal server error' })).outcome).toBe(
      'connection_reset',
    );
    expect(classify(failed({ errorCode: 'UND_ERR_BODY_TIMEOUT', errorMessage: 'terminated' })).outcome).toBe('timeout');
    expect(classify(failed({ errorCode: 'UND_ERR_SOCKET', errorMessage: 'terminated' })).outcome).toBe(
      'connection_reset',
    );
    expect(classify(failed({ errorCode: 'ECONNRESET', errorMessage: 'Connection error.' })).outcome).toBe(
      'connection_reset',
    );
  });

  it('reports the code as written', () => {
    expect(classify(failed({ errorCode: 'UND_ERR_SOCKET' })).errorCode).toBe('UND_ERR_SOCKET');
  });
});

describe('phase from diagnostics', () => {
  it.each<[unknown, boolean, string]>([
    ['before_message_stream_start', true, 'before_output'],
    ['before_message_stream_start', false, 'before_output'],
    ['after_message_stream_start', false, 'mid_stream'],
    ['mid_stream', false, 'mid_stream'],
    ['during_stream', false, 'mid_stream'],
    ['message_stream', false, 'mid_stream'],
    [['before_message_stream_start', 'after_message_stream_start'], false, 'mid_stream'],
    [['before_message_stream_start', 7], true, 'before_output'],
    // Absent or unrecognised: outputDelivered decides.
    [undefined, false, 'before_output'],
    [undefined, true, 'mid_stream'],
    ['connect', true, 'mid_stream'],
    [42, false, 'before_output'],
    [[], true, 'mid_stream'],
  ])('%j with outputDelivered %s is %s', (diagnosticsPhase, outputDelivered, phase) => {
    const facts = failed({ errorCode: 'ECONNRESET', errorMessage: 'terminated', diagnosticsPhase, outputDelivered });
    expect(classify(facts).phase).toBe(phase);
  });

  it('does not touch ok calls', () => {
    expect(classify(failed({ stopReason: 'stop', diagnosticsPhase: 'after_message_stream_start' })).phase).toBe(
      'complete',
    );
  });
});

describe('Retry-After: the header before hints in the body', () => {
  it.each<[string, number | null]>([
    ['429 Rate limit reached for requests. Please try again in 2s.; Retry-After: 1 seconds', 1000],
    ['503 The service is temporarily unavailable.; Retry-After: 1 seconds', 1000],
    ['try again in 7s; Retry-After: 3', 3000],
    ['try again in 7s; retry-after-ms: 250', 250],
    ['Please try again in 7s.', 7000],
    // A date is no delay without a clock; the body's hint stands.
    ['try again in 7s; Retry-After: Wed, 21 Oct 2015 07:28:00 GMT', 7000],
    [`${'x'.repeat(9000)}; Retry-After: 2 seconds`, 2000],
    [`try again in 7s ${'x'.repeat(9000)}; Retry-After: 2 seconds`, 2000],
    [`${'x'.repeat(9000)} try again in 7s`, null],
  ])('%j → %j ms', (text, ms) => {
    expect(parseRetryAfterText(text)).toBe(ms);
    expect(classify(failed({ errorMessage: text })).retryAfterMs).toBe(ms);
  });

  it('errorRetryAfterMs still comes first', () => {
    expect(classify(failed({ errorRetryAfterMs: 500, errorMessage: 'x; Retry-After: 1 seconds' })).retryAfterMs).toBe(
      500,
    );
  });
});

describe('classifyErrorText', () => {
  it.each<[string, string | null | undefined, Partial<Classification>]>([
    [
      '429 Rate limit reached.; Retry-After: 1 seconds',
      undefined,
      { outcome: 'rate_limited', httpStatus: 429, retryAfterMs: 1000 },
    ],
    ['Connection error.', null, { outcome: 'connection_reset', httpStatus: null, errorCode: null }],
    ['terminated', 'UND_ERR_BODY_TIMEOUT', { outcome: 'timeout', errorCode: 'UND_ERR_BODY_TIMEOUT' }],
    ['list index out of range', undefined, { outcome: 'other_error', phase: 'before_output' }],
  ])('%j (code %j)', (text, code, expected) => {
    expect(classifyErrorText(text, code)).toMatchObject(expected);
  });

  it('is classify of a failed call with nothing but the text and code', () => {
    const text = '503 The service is temporarily unavailable.; Retry-After: 1 seconds';
    expect(classifyErrorText(text, 'service_unavailable')).toEqual(
      classify(failed({ errorMessage: text, errorCode: 'service_unavailable' })),
    );
  });
});

describe('classifyFailoverReason (failoverReason / providerRuntimeFailureKind)', () => {
  it.each<[string | null | undefined, Outcome]>([
    ['rate_limit', 'rate_limited'],
    ['overloaded', 'overloaded'],
    ['server_error', 'server_error'],
    ['timeout', 'timeout'],
    ['auth', 'auth'],
    ['auth_invalid_token', 'auth'],
    ['billing', 'billing'],
    ['context_overflow', 'context_overflow'],
    ['model_not_found', 'other_error'],
    ['format', 'other_error'],
    ['unclassified', 'other_error'],
    ['unknown', 'other_error'],
    [undefined, 'other_error'],
  ])('%j alone → %s', (reason, outcome) => {
    expect(classifyFailoverReason(reason)).toBe(outcome);
    expect(outcomeForReason(reason)).toBe(outcome);
  });

  // Pairs as OpenClaw 2026.9.6 logged them (embedded_run_agent_end: failoverReason or
  // providerRuntimeFailureKind, and rawErrorPreview), against the mock provider.
  it.each<[string, string, Outcome]>([
    // OpenClaw files a 402 insufficient_quota under rate_limit; the status keeps it billing.
    ['rate_limit', '402 You exceeded your current quota, please check your plan and billing details.', 'billing'],
    [
      'rate_limit',
      '429 Rate limit reached for requests. Please try again in 2s.; Retry-After: 1 seconds',
      'rate_limited',
    ],
    // providerRuntimeFailureKind "timeout" for a 500 / 503 answered at once.
    ['timeout', '503 The service is temporarily unavailable.; Retry-After: 1 seconds', 'server_error'],
    ['timeout', '500 The server had an error.', 'server_error'],
    ['auth_invalid_token', '401 Incorrect API key provided.', 'auth'],
    [
      'unclassified',
      "400 This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.",
      'context_overflow',
    ],
    ['context_overflow', "400 This model's maximum context length is 8192 tokens.", 'context_overflow'],
  ])('%s with %j → %s', (reason, text, outcome) => {
    expect(classifyFailoverReason(reason, text)).toBe(outcome);
  });

  it('lets the reason decide when the text has no leading status, and the text when the reason says nothing', () => {
    expect(classifyFailoverReason('timeout', 'LLM idle timeout (10s): no response from model')).toBe('timeout');
    expect(classifyFailoverReason('rate_limit', 'Internal server error')).toBe('rate_limited');
    expect(classifyFailoverReason('unknown', 'Connection error.')).toBe('connection_reset');
    expect(classifyFailoverReason(null, 'Error: 429')).toBe('rate_limited');
    expect(classifyFailoverReason('unclassified', '')).toBe('other_error');
    expect(classifyFailoverReason('format', 'req_429abc failed')).toBe('other_error');
  });
});

/**
 * Records OpenClaw 2026.9.6 persisted against a local mock provider, whose
 * model ids name what the provider answered, decoded from the agent database
 * (the `ok_long` reply was stored zstd-compressed there).
 */
describe('OpenClaw 2026.9.6 records (fixture)', () => {
  const FIXTURE = resolve(import.meta.dirname, '../../fixtures/openclaw-2026.9.6/assistant-records.jsonl');
  const lines = readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  type Entry = { message: Record<string, unknown> };
  const parsed: Entry[] = [];
  const cut: string[] = [];
  for (const line of lines) {
    try {
      parsed.push(JSON.parse(line) as Entry);
    } catch {
      cut.push(line);
    }
  }

  type Expected = Pick<Classification, 'outcome' | 'httpStatus' | 'errorCode' | 'retryAfterMs' | 'phase'>;
  const failedBefore = (e: Omit<Expected, 'phase'>): Expected => ({ ...e, phase: 'before_output' });
  const EXPECTED: Record<string, Expected> = {
    ok_long: { outcome: 'ok', httpStatus: null, errorCode: null, retryAfterMs: null, phase: 'complete' },
    rate_limit: failedBefore({
      outcome: 'rate_limited',
      httpStatus: 429,
      errorCode: 'rate_limit_exceeded',
      retryAfterMs: 1000,
    }),
    unavailable: failedBefore({
      outcome: 'server_error',
      httpStatus: 503,
      errorCode: 'service_unavailable',
      retryAfterMs: 1000,
    }),
    server_error: failedBefore({ outcome: 'server_error', httpStatus: 500, errorCode: '500', retryAfterMs: null }),
    unauthorized: failedBefore({ outcome: 'auth', httpStatus: 401, errorCode: 'invalid_api_key', retryAfterMs: null }),
    payment_required: failedBefore({
      outcome: 'billing',
      httpStatus: 402,
      errorCode: 'insufficient_quota',
      retryAfterMs: null,
    }),
    context_length: failedBefore({
      outcome: 'context_overflow',
      httpStatus: 400,
      errorCode: 'context_length_exceeded',
      retryAfterMs: null,
    }),
    hang: failedBefore({ outcome: 'timeout', httpStatus: null, errorCode: null, retryAfterMs: null }),
  };

  /** The facts main/core/sources/transcript-record.ts builds from a message (diagnostics phase included). */
  function factsOf(message: Record<string, unknown>): AssistantFacts {
    const usage = (message.usage ?? {}) as { output?: unknown };
    const content = Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
    const outputDelivered =
      (typeof usage.output === 'number' && usage.output > 0) ||
      content.some(
        (b) =>
          b.type === 'toolCall' ||
          (b.type === 'text' && typeof b.text === 'string' && b.text.length > 0) ||
          (b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking.length > 0),
      );
    const diagnostics = Array.isArray(message.diagnostics) ? (message.diagnostics as Record<string, unknown>[]) : [];
    const phases = diagnostics.map((d) => d.phase ?? (d.details as Record<string, unknown> | undefined)?.phase);
    return {
      stopReason: message.stopReason,
      errorMessage: message.errorMessage,
      errorCode: message.errorCode,
      errorStatus: message.errorStatus,
      errorRetryAfterMs: message.errorRetryAfterMs,
      outputDelivered,
      ...(phases.length > 0 ? { diagnosticsPhase: phases } : {}),
    };
  }

  it('holds one record of every kind, each valid JSON', () => {
    expect(cut).toEqual([]);
    const models = new Set(parsed.map((entry) => entry.message.model));
    expect([...models].sort()).toEqual(Object.keys(EXPECTED).sort());
    // What 2026.9 does not write.
    for (const { message } of parsed) {
      expect(message).not.toHaveProperty('errorStatus');
      expect(message).not.toHaveProperty('errorRetryAfterMs');
    }
  });

  it.each(parsed.map((entry, i) => [`${i + 2}: ${String(entry.message.model)}`, entry] as const))(
    'line %s',
    (_name, entry) => {
      const expected = EXPECTED[String(entry.message.model)];
      expect(expected).toBeDefined();
      expect(classify(factsOf(entry.message))).toEqual(expected);
      // The transcript reader itself agrees.
      const buf = Buffer.from(JSON.stringify(entry));
      const record = readRecord(buf, 0, buf.length, { source: 'jsonl', agentId: 'main', sessionId: 's' });
      expect(record.kind === 'call' ? record.call : record).toMatchObject(expected as Expected);
    },
  );

  it('ok_long, cut from the fixture: stopReason "stop" with output (as its full record in the capture\'s SQLite store) is ok', () => {
    const okLong = failed({ stopReason: 'stop', outputDelivered: true });
    expect(classify(okLong)).toEqual(EXPECTED.ok_long);
  });
});
