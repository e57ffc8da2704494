/**
 * A request to a webhook or a push monitor that follows redirects only within the host it was sent to. fetch
 * follows a 307 or 308 anywhere and sends the body again, so a webhook host (or anyone who took over its name)
 * could forward every alert, with the secrets its URL and headers carry, to a host the user never named. A
 * redirect to another host is answered as it came (its status, never followed), and the caller reports it.
 */

/** Redirects followed within one host before giving up (a loop). */
const MAX_HOPS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Why a redirect was not followed, in words for the delivery's error (null: the response is no redirect). */
export function redirectRefusal(response: Response, sentTo: string): string | null {
  if (!REDIRECTS.has(response.status)) return null;
  const location = response.headers.get('location');
  if (location === null) return `HTTP ${response.status} without a Location`;
  let target: URL;
  try {
    target = new URL(location, sentTo);
  } catch {
    return `HTTP ${response.status} to an invalid Location`;
  }
  const from = new URL(sentTo);
  if (target.hostname !== from.hostname) {
    return `HTTP ${response.status} redirect to another host (${target.host}), not followed: set that URL if it is right`;
  }
  return `HTTP ${response.status} redirect not followed: set the URL it points to`;
}

/**
 * `fetch` with redirects followed only when they keep the host (307 and 308, which keep the method and body);
 * any other redirect is returned as it came, for `redirectRefusal` to word.
 */
export async function fetchSameHost(url: string, init: RequestInit, fetcher: typeof fetch = fetch): Promise<Response> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const response = await fetcher(current, { ...init, redirect: 'manual' });
    if (response.status !== 307 && response.status !== 308) return response;
    const location = response.headers.get('location');
    if (location === null || hop >= MAX_HOPS) return response;
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      return response;
    }
    if (next.hostname !== new URL(url).hostname) return response;
    await response.arrayBuffer().catch(() => undefined);
    current = next.href;
  }
}
