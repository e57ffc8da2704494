/**
 * The local API token goes to this machine only: loopback hosts in every
 * spelling the URL parser accepts, and nothing that merely looks like one.
 */
import { describe, expect, it } from 'vitest';
import { isLoopbackHost, serverUrl, tokenRefusal } from '../../../main/core/api-files/loopback.js';

describe('where the token may go', () => {
  it('goes to 127.0.0.0/8, ::1 and localhost, over http or https, on any port', () => {
    for (const url of [
      'http://127.0.0.1:18820',
      'http://127.255.0.9:1/api/status',
      'https://localhost:8443',
      'http://[::1]:18820',
      'http://LOCALHOST:1',
      // The URL parser's own spellings of 127.0.0.1: still this machine.
      'http://127.1:18820',
      'http://0x7f.0.0.1:18820',
      'http://2130706433:18820',
      'http://[0:0:0:0:0:0:0:1]:18820',
    ]) {
      expect(tokenRefusal(url), url).toBeNull();
    }
  });

  it('does not go to another host, however close its name', () => {
    for (const url of [
      'http://192.168.1.20:18820',
      'http://0.0.0.0:18820',
      'http://128.0.0.1:18820',
      'http://127.0.0.1.nip.io:18820',
      'http://localhost.:18820',
      'http://localhost.example.com:18820',
      'http://[::ffff:127.0.0.1]:18820',
      'http://[::2]:18820',
      'http://example.com',
    ]) {
      expect(tokenRefusal(url), url).toMatch(/sent only to this machine/);
    }
  });

  it('does not go to other schemes, URLs with credentials, or what is not a URL', () => {
    expect(tokenRefusal('file:///tmp/x')).toMatch(/not sent to file: URLs/);
    expect(tokenRefusal('ws://127.0.0.1:1')).toMatch(/not sent to ws: URLs/);
    expect(tokenRefusal('http://user:pw@127.0.0.1:1')).toMatch(/user name or password/);
    expect(tokenRefusal('127.0.0.1:18820/')).toMatch(/not a URL/);
    expect(tokenRefusal('not a url')).toMatch(/not a URL/);
  });

  it('names the address and the fix', () => {
    expect(tokenRefusal('http://10.0.0.5:18820')).toBe(
      'the local API token is sent only to this machine (127.0.0.1, ::1 or localhost), not to 10.0.0.5:18820: ' +
        'set server.host to a loopback address (or 0.0.0.0, which BreakerBar reaches at 127.0.0.1)',
    );
  });

  it('reads hosts as the URL parser writes them', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('::1')).toBe(false);
    expect(isLoopbackHost('127.0.0.256')).toBe(false);
    expect(isLoopbackHost('127.0.0')).toBe(false);
  });

  it('reaches a wildcard listener on loopback, as the daemon writes it, so the token may go there', () => {
    expect(serverUrl('0.0.0.0', 18820)).toBe('http://127.0.0.1:18820');
    expect(serverUrl('::', 18820)).toBe('http://127.0.0.1:18820');
    expect(serverUrl('::1', 18820)).toBe('http://[::1]:18820');
    expect(serverUrl('127.0.0.1', 1)).toBe('http://127.0.0.1:1');
    expect(serverUrl('192.168.1.20', 18820)).toBe('http://192.168.1.20:18820');
    expect(tokenRefusal(serverUrl('0.0.0.0', 18820))).toBeNull();
    expect(tokenRefusal(serverUrl('192.168.1.20', 18820))).not.toBeNull();
  });
});
