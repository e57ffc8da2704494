/**
 * Where the local API token may go: to this machine only. The token grants
 * every mutation of the API (restart the gateway, rewrite the config), and it
 * travels in clear over plain HTTP, so a client that holds it (the CLI, the
 * app) sends it to a loopback address and nowhere else, whatever the address
 * file or the configuration say. A daemon listening on a network address
 * (`server.allowNonLoopback`) is still reached for reads; its token is not
 * sent there. Browser-safe: no Node imports.
 */

/** 127.0.0.0/8 written as the URL parser leaves it (`127.1` and `0x7f.0.0.1` are normalized to dotted quads). */
const IPV4_LOOPBACK = /^127\.(?:\d{1,3})\.(?:\d{1,3})\.(?:\d{1,3})$/;

/** `localhost`, an address of 127.0.0.0/8, or `::1` (as the URL parser writes hosts: lower case, IPv6 in brackets). */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  if (!IPV4_LOOPBACK.test(hostname)) return false;
  return hostname.split('.').every((part) => Number(part) <= 255);
}

/**
 * Null when the token may be sent with a request to `url` (http or https on a loopback host, without
 * credentials in the URL), else the sentence that says why it may not.
 */
export function tokenRefusal(url: string): string | null {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return `the local API token is not sent to ${JSON.stringify(url)}: not a URL`;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return `the local API token is not sent to ${target.protocol} URLs, only to http on this machine`;
  }
  if (target.username !== '' || target.password !== '') {
    return 'the local API token is not sent to a URL that carries a user name or password';
  }
  if (!isLoopbackHost(target.hostname)) {
    return (
      `the local API token is sent only to this machine (127.0.0.1, ::1 or localhost), not to ${target.host}: ` +
      'set server.host to a loopback address (or 0.0.0.0, which BreakerBar reaches at 127.0.0.1)'
    );
  }
  return null;
}

/**
 * The URL at which this machine reaches a server configured to listen on `host:port`: a wildcard address
 * (`0.0.0.0`, `::`) listens on loopback too and is reached at 127.0.0.1, as the daemon itself writes it in
 * `<dataDir>/api-url`; an IPv6 address goes in brackets.
 */
export function serverUrl(host: string, port: number): string {
  const reached = host === '0.0.0.0' || host === '::' || host === '[::]' ? '127.0.0.1' : host;
  return `http://${reached.includes(':') && !reached.startsWith('[') ? `[${reached}]` : reached}:${port}`;
}
