/** The API token in a browser: from the URL fragment to this tab's storage, out of the address bar. */
import { describe, expect, it } from 'vitest';
import { type TokenEnvironment, TokenStore } from '../../renderer/token.js';

const TOKEN = 'ab'.repeat(32);

function environment(hash: string, storageWorks = true) {
  const stored = new Map<string, string>();
  const replaced: string[] = [];
  const fail = () => {
    throw new Error('storage disabled');
  };
  const env: TokenEnvironment = {
    location: { hash, pathname: '/', search: '' },
    history: { replaceState: (_data, _unused, url) => void replaced.push(url) },
    storage: storageWorks
      ? {
          getItem: (key) => stored.get(key) ?? null,
          setItem: (key, value) => void stored.set(key, value),
          removeItem: (key) => void stored.delete(key),
        }
      : { getItem: fail, setItem: fail, removeItem: fail },
  };
  return { env, stored, replaced };
}

describe('token store', () => {
  it('takes the token from the fragment, keeps it for the tab and removes it from the address, keeping the view', () => {
    const { env, stored, replaced } = environment(`#token=${TOKEN.toUpperCase()}&view=logs`);
    const store = new TokenStore(env);
    store.adoptFromLocation();
    expect(store.get()).toBe(TOKEN);
    expect([...stored.values()]).toEqual([TOKEN]);
    expect(replaced).toEqual(['/#view=logs']);
  });

  it('drops a malformed token from the address without keeping it', () => {
    const { env, replaced } = environment('#token=<script>');
    const store = new TokenStore(env);
    store.adoptFromLocation();
    expect(store.get()).toBeNull();
    expect(replaced).toEqual(['/']);
  });

  it('leaves the address alone when it carries no token, and keeps what the tab stored before', () => {
    const { env, stored, replaced } = environment('#view=errors');
    stored.set('breakerbar.apiToken', TOKEN);
    const store = new TokenStore(env);
    store.adoptFromLocation();
    expect(replaced).toEqual([]);
    expect(store.get()).toBe(TOKEN);
    store.clear();
    expect(store.get()).toBeNull();
  });

  it('still works for the page when storage is disabled', () => {
    const { env } = environment(`#token=${TOKEN}`, false);
    const store = new TokenStore(env);
    store.adoptFromLocation();
    expect(store.get()).toBe(TOKEN);
  });
});

describe('one-time sign-in code', () => {
  const CODE = 'Ab_-'.repeat(8);

  it('takes the code out of the address, trades it for the token once, and keeps the token', async () => {
    const { env, stored, replaced } = environment(`#code=${CODE}&view=logs`);
    const store = new TokenStore(env);
    const code = store.takeCodeFromLocation();
    expect(code).toBe(CODE);
    expect(replaced).toEqual(['/#view=logs']);
    const posted: unknown[] = [];
    const ok = await store.redeem(code!, async (sent) => {
      posted.push(sent);
      return { token: TOKEN };
    });
    expect(ok).toBe(true);
    expect(posted).toEqual([CODE]);
    expect([...stored.values()]).toEqual([TOKEN]);
  });

  it('keeps nothing when the server refuses the code or answers something else', async () => {
    const { env } = environment(`#code=${CODE}`);
    const store = new TokenStore(env);
    expect(await store.redeem(CODE, () => Promise.reject(new Error('HTTP 401')))).toBe(false);
    expect(await store.redeem(CODE, async () => ({ token: '<script>' }))).toBe(false);
    expect(store.get()).toBeNull();
  });

  it('drops a malformed code from the address without sending it', () => {
    const { env, replaced } = environment('#code=../../etc');
    const store = new TokenStore(env);
    expect(store.takeCodeFromLocation()).toBeNull();
    expect(replaced).toEqual(['/']);
    expect(new TokenStore(environment('#view=logs').env).takeCodeFromLocation()).toBeNull();
  });
});
