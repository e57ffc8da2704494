// The "straightforward Node reader" the scan benchmark compares against:
// readline over a read stream, JSON.parse per line, count assistant messages by
// stopReason. Runs in its own process so the parent's heap (the corpus
// generator, the skimmer) does not disturb its timing.
//
// usage: node scan-readline-ref.mjs <file listing one path per line>
// prints: {"seconds":n,"bytes":n,"counts":{"assistant":n,"byStopReason":{...}}}
import { once } from 'node:events';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';

const files = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
const byStopReason = {};
let assistant = 0;
let bytes = 0;
const t0 = process.hrtime.bigint();
for (const file of files) {
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  // 'line' events rather than `for await`: measured a little faster, so the
  // reference is not handicapped.
  rl.on('line', (line) => {
    let record;
    try {
      record = JSON.parse(line);
    } catch {
      return;
    }
    if (record?.type === 'message' && record.message?.role === 'assistant') {
      assistant++;
      const key = String(record.message.stopReason);
      byStopReason[key] = (byStopReason[key] ?? 0) + 1;
    }
  });
  await once(rl, 'close');
  bytes += statSync(file).size;
}
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
process.stdout.write(`${JSON.stringify({ seconds, bytes, counts: { assistant, byStopReason } })}\n`);
