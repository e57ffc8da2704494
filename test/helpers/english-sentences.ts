/**
 * The rule the Chinese-language tests hold every text to (the dashboard's views, the CLI's answers, the
 * catalogue): it must carry no English sentence.
 */

/**
 * An English sentence: three or more English words in a row, each of lowercase letters (a capital first
 * letter allowed), separated by spaces and the odd comma or colon. Names the dashboard shows as they are
 * (dependency and model ids, BreakerBar, OpenClaw, Retry-After, units such as ms) are one word each or carry
 * digits, slashes or dots, so they never make a run of three.
 */
const ENGLISH_SENTENCE = /\b[A-Za-z][a-z]+(?:[,:;]?\s+[a-z]+){2,}\b/g;

/** The English sentences in `text`, each with its line for the failure message. */
export function englishSentences(text: string): string[] {
  return text.split('\n').flatMap((line) => [...line.matchAll(ENGLISH_SENTENCE)].map((m) => `${m[0]}  ⟵ ${line}`));
}
