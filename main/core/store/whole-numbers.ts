/** Whole numbers, as the store's INTEGER columns hold them. */

/**
 * A number as the store keeps it in an INTEGER column (token counts, times, a Retry-After in ms): a whole
 * number as it is, a fraction rounded, and null past 2^53 (beyond it a JSON number is no longer exact, and
 * SQLite would refuse the row, and with it the batch it came in). Sources read numbers written by others;
 * one odd value must cost that one field, never the record or the batch.
 */
export function storableInteger(value: number): number | null {
  if (Number.isSafeInteger(value)) return value;
  const rounded = Math.round(value);
  return Number.isSafeInteger(rounded) ? rounded : null;
}
