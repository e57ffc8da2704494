/**
 * Where the strings of a JSON text end, for a whole buffer at once.
 *
 * Why: the skimming parser spends most of its time finding closing quotes. In
 * OpenClaw transcripts every 25th byte or so is a quote (tool output and code
 * are full of escaped JSON), so one `indexOf` per quote, or a JS loop over the
 * bytes, costs more than everything else the parser does. A small WebAssembly
 * function with 128-bit SIMD compares 64 bytes at a time and writes one bit per
 * byte: set for every quote that is not escaped (not preceded by an odd number
 * of backslashes). The parser then finds a string's end with one bit scan
 * instead of visiting its bytes (measured: under 0.02 s per 540 MB on one core,
 * against 0.65 s for the JS loop; figures in docs/benchmarks.md).
 *
 * "Escaped" is decided exactly as the parser decides it (an odd run of
 * backslashes right before the quote), and a run never reaches across a line,
 * since a newline ends it. So a bitmap built over many lines answers for each
 * of them.
 *
 * The module is assembled here from its instructions (no build step, no binary
 * blob in the repository). Where WebAssembly or its SIMD extension is missing,
 * `QuoteIndexer.create` returns null and the parser finds quotes itself.
 */

/**
 * What a parser needs to look a quote up: bit i of `words` is byte
 * `buf[from + i]`, valid for [from, to). `special` marks, the same way, the
 * bytes a string decoder must look at: control characters, backslashes and
 * non-ASCII (bytes >= 0x80); a string with none of them is plain ASCII as it
 * stands.
 */
export interface QuoteBits {
  buf: Buffer;
  from: number;
  to: number;
  words: Int32Array;
  special: Int32Array;
}

/** Bytes indexed in one call at most: a daemon batch (4 MiB) or a scan chunk fits; a longer line is parsed without. */
export const DEFAULT_QUOTE_CAPACITY = 4 * 1024 * 1024;

const PAGE = 64 * 1024;

/**
 * The part of the WebAssembly API used here. Node has it as a global, but this
 * project compiles against Node's types only, which do not declare it.
 */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

export class QuoteIndexer {
  private readonly input: Buffer;
  private readonly bits: QuoteBits;

  private constructor(
    private readonly build: (src: number, length: number, quotes: number, special: number, carry: number) => number,
    memory: WasmMemory,
    readonly capacity: number,
  ) {
    this.input = Buffer.from(memory.buffer, 0, capacity);
    // Two words per 64-byte block, plus one block of slack for a partial last block.
    const words = capacity / 32 + 2;
    this.bits = {
      buf: this.input,
      from: 0,
      to: 0,
      words: new Int32Array(memory.buffer, capacity, words),
      special: new Int32Array(memory.buffer, capacity + words * 4, words),
    };
  }

  /** An indexer for texts up to `capacity` bytes (rounded up to 64), or null where this runtime has no WebAssembly SIMD. */
  static create(capacity = DEFAULT_QUOTE_CAPACITY): QuoteIndexer | null {
    const size = Math.ceil(capacity / 64) * 64;
    if (wasm === undefined) return null;
    try {
      const instance = new wasm.Instance(new wasm.Module(quoteModuleBytes()));
      const memory = instance.exports.memory as WasmMemory;
      const needed = size + 2 * (size / 8 + 8) + 64;
      memory.grow(Math.ceil(needed / PAGE));
      return new QuoteIndexer(instance.exports.quotes as QuoteIndexer['build'], memory, size);
    } catch {
      return null;
    }
  }

  /**
   * A buffer to read into: text read here is indexed without being copied.
   * Valid until the next call to `scratch`; `bytes` at most `capacity`.
   */
  scratch(bytes: number): Buffer {
    return this.input.subarray(0, Math.min(bytes, this.capacity));
  }

  /**
   * Indexes `buf[from, to)`; null when it is longer than the capacity. The
   * result (and its `words`) is valid until the next call.
   */
  index(buf: Buffer, from: number, to: number): QuoteBits | null {
    const length = to - from;
    if (length < 0 || length > this.capacity) return null;
    // Text already in the indexer's memory (read into `scratch`) is indexed where it lies: copying it
    // to the start would overwrite it when it does not start there.
    const inPlace = buf.buffer === this.input.buffer;
    const src = inPlace ? buf.byteOffset + from - this.input.byteOffset : 0;
    if (!inPlace) buf.copy(this.input, 0, from, to);
    const bits = this.bits;
    this.build(src, length, bits.words.byteOffset, bits.special.byteOffset, 0);
    bits.buf = buf;
    bits.from = from;
    bits.to = to;
    return bits;
  }
}

// ---- the WebAssembly module, assembled ----

/** Unsigned LEB128. */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 of a 64-bit value. */
function sleb(value: bigint): number[] {
  const out: number[] = [];
  for (let n = value; ; ) {
    const byte = Number(n & 0x7fn);
    n >>= 7n;
    const done = (n === 0n && (byte & 0x40) === 0) || (n === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, bytes: number[]): number[] => [id, ...uleb(bytes.length), ...bytes];
const name = (text: string): number[] => vec([...Buffer.from(text)].map((b) => [b]));

const I32 = 0x7f;
const I64 = 0x7e;
const simd = (op: number): number[] => [0xfd, ...uleb(op)];
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  get: (local: number) => [0x20, local],
  set: (local: number) => [0x21, local],
  tee: (local: number) => [0x22, local],
  i32: (n: number) => [0x41, ...sleb(BigInt(n))],
  i64: (n: bigint) => [0x42, ...sleb(n)],
  i32Add: [0x6a],
  i32GeU: [0x4f],
  i32ShrU: [0x76],
  i64Store: [0x37, 3, 0],
  i64Add: [0x7c],
  i64And: [0x83],
  i64Or: [0x84],
  i64Xor: [0x85],
  i64Shl: [0x86],
  i64LtU: [0x54],
  i64FromU32: [0xad],
  v128Load: (offset: number) => [...simd(0x00), 4, ...uleb(offset)],
  v128Const: (byte: number) => [...simd(0x0c), ...new Array<number>(16).fill(byte)],
  i8x16Eq: simd(0x23),
  i8x16LtS: simd(0x25),
  v128Or: simd(0x50),
  i8x16Bitmask: simd(0x64),
} as const;

// quotes(src, length, dst, special, carry) -> carry. Locals: parameters 0–4; 5 = i (i32); 6 = quotes,
// 7 = backslashes, 8 = follows / escaped, 9 = odd run starts, 10 = their sum (i64).
const SRC = 0;
const LENGTH = 1;
const DST = 2;
const SPECIAL = 3;
const CARRY = 4;
const I = 5;
const QUOTES = 6;
const BACKSLASHES = 7;
const ESCAPED = 8;
const ODD = 9;
const SUM = 10;
const EVEN_BITS = 0x5555555555555555n;
const ALL = -1n;

/** The 64-bit mask of the block at src + i, from `test`, which turns the 16 bytes it loads into 16 lanes of 0 or -1. */
function blockMask(test: (load: number[]) => number[]): number[] {
  return [0, 16, 32, 48].flatMap((offset, k) => [
    ...test([...op.get(SRC), ...op.get(I), ...op.i32Add, ...op.v128Load(offset)]),
    ...op.i8x16Bitmask,
    ...op.i64FromU32,
    ...(k === 0 ? [] : [...op.i64(BigInt(offset)), ...op.i64Shl, ...op.i64Or]),
  ]);
}

const equalTo =
  (byte: number) =>
  (load: number[]): number[] => [...load, ...op.v128Const(byte), ...op.i8x16Eq];

/**
 * Control characters (< 0x20) and non-ASCII (≥ 0x80) in one signed compare —
 * as signed bytes the latter are negative, so both are below 0x20 — and
 * backslashes.
 */
const special = (load: number[]): number[] => [
  ...load,
  ...op.v128Const(0x20),
  ...op.i8x16LtS,
  ...load,
  ...op.v128Const(0x5c),
  ...op.i8x16Eq,
  ...op.v128Or,
];

/**
 * For each 64-byte block: the quote and backslash masks, then which bytes are
 * escaped, without a branch: an odd-length run of backslashes escapes the byte
 * after it. Runs are told apart by whether they start on an even or odd bit;
 * adding the run starts to the backslash mask carries through each run, and the
 * carry out of bit 63 says the next block's first byte is escaped.
 */
function quoteFunctionBody(): number[] {
  const not = [...op.i64(ALL), ...op.i64Xor];
  return [
    ...op.block,
    ...op.loop,
    ...op.get(I),
    ...op.get(LENGTH),
    ...op.i32GeU,
    ...op.brIf(1),
    // special[i / 64] = control | backslash | non-ASCII
    ...op.get(SPECIAL),
    ...op.get(I),
    ...op.i32(3),
    ...op.i32ShrU,
    ...op.i32Add,
    ...blockMask(special),
    ...op.i64Store,
    ...blockMask(equalTo(0x22)),
    ...op.set(QUOTES),
    ...blockMask(equalTo(0x5c)),
    // a backslash escaped by the previous block's last one starts nothing
    ...op.get(CARRY),
    ...op.i64FromU32,
    ...not,
    ...op.i64And,
    ...op.set(BACKSLASHES),
    // follows = backslashes << 1 | carry: bytes right after a backslash
    ...op.get(BACKSLASHES),
    ...op.i64(1n),
    ...op.i64Shl,
    ...op.get(CARRY),
    ...op.i64FromU32,
    ...op.i64Or,
    ...op.set(ESCAPED),
    // odd = backslashes & ~even & ~follows: runs starting on an odd bit
    ...op.get(BACKSLASHES),
    ...op.i64(~EVEN_BITS),
    ...op.i64And,
    ...op.get(ESCAPED),
    ...not,
    ...op.i64And,
    ...op.tee(ODD),
    // sum = odd + backslashes; carry = the addition overflowed
    ...op.get(BACKSLASHES),
    ...op.i64Add,
    ...op.tee(SUM),
    ...op.get(ODD),
    ...op.i64LtU,
    ...op.set(CARRY),
    // escaped = (even ^ sum << 1) & follows
    ...op.i64(EVEN_BITS),
    ...op.get(SUM),
    ...op.i64(1n),
    ...op.i64Shl,
    ...op.i64Xor,
    ...op.get(ESCAPED),
    ...op.i64And,
    ...op.set(ESCAPED),
    // dst[i / 64] = quotes & ~escaped
    ...op.get(DST),
    ...op.get(I),
    ...op.i32(3),
    ...op.i32ShrU,
    ...op.i32Add,
    ...op.get(QUOTES),
    ...op.get(ESCAPED),
    ...not,
    ...op.i64And,
    ...op.i64Store,
    ...op.get(I),
    ...op.i32(64),
    ...op.i32Add,
    ...op.set(I),
    ...op.br(0),
    ...op.end,
    ...op.end,
    ...op.get(CARRY),
    ...op.end,
  ];
}

let moduleBytes: Uint8Array | null = null;

/** The module: one memory and `quotes(src, length, dst, special, carry) -> carry`, both exported. */
export function quoteModuleBytes(): Uint8Array {
  if (moduleBytes !== null) return moduleBytes;
  const body = [
    ...vec([
      [1, I32],
      [5, I64],
    ]),
    ...quoteFunctionBody(),
  ];
  moduleBytes = new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), ...vec([[I32]])]])),
    ...section(3, vec([[0]])),
    ...section(5, vec([[0x00, 0]])),
    ...section(
      7,
      vec([
        [...name('memory'), 0x02, 0],
        [...name('quotes'), 0x00, 0],
      ]),
    ),
    ...section(10, vec([[...uleb(body.length), ...body]])),
  ]);
  return moduleBytes;
}

let shared: QuoteIndexer | null | undefined;

/** This thread's indexer, made on first use (null where WebAssembly SIMD is missing). */
export function sharedQuoteIndexer(): QuoteIndexer | null {
  if (shared === undefined) shared = QuoteIndexer.create();
  return shared;
}

let ownReadBuffer = Buffer.alloc(0);

/**
 * A buffer of at least `bytes` to read text into, lent until the next call: this thread's indexer's own
 * input when it has room (text read there is indexed where it lies, not copied), else one buffer kept for
 * every call. For readers that are done with the bytes before they read again.
 */
export function lendReadBuffer(bytes: number): Buffer {
  const indexer = sharedQuoteIndexer();
  if (indexer !== null && bytes <= indexer.capacity) return indexer.scratch(bytes);
  if (ownReadBuffer.length < bytes) ownReadBuffer = Buffer.allocUnsafe(bytes);
  return ownReadBuffer;
}
