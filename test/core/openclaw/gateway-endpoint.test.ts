/**
 * Where BreakerBar finds the gateway's port and operator token: its own config,
 * then the environment, then OpenClaw's JSON5 `openclaw.json`, then defaults;
 * unusable values are warned about (never showing a secret) and skipped.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  configSchema,
  type Environment,
  type LoadedConfig,
  resolveDirectories,
} from '../../../main/core/config/index.js';
import { parseWith } from '../../../main/core/config/schema.js';
import {
  DEFAULT_GATEWAY_PORT,
  readOpenClawConfig,
  resolveGatewayEndpoint,
} from '../../../main/core/openclaw/gateway-endpoint.js';

let tmp: string;
let stateDir: string;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-endpoint-'));
  stateDir = join(tmp, 'state');
  mkdirSync(stateDir);
});

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function environment(env: NodeJS.ProcessEnv = {}): Environment {
  return { env, home: join(tmp, 'home'), platform: 'linux' };
}

/** BreakerBar's loaded config with `gatewayUrl` / `gatewayToken` as given and the state dir in the temp dir. */
function loaded(gateway: { url?: string; token?: string } = {}, env: NodeJS.ProcessEnv = {}): LoadedConfig {
  const config = { openclawDir: stateDir, gatewayUrl: gateway.url, gatewayToken: gateway.token };
  return resolveDirectories(parseWith(configSchema, config), null, environment(env));
}

function writeOpenClawJson(text: string, path = join(stateDir, 'openclaw.json')): string {
  writeFileSync(path, text);
  return path;
}

/** A realistic openclaw.json: JSON5 with comments, unquoted keys and trailing commas. */
const OPENCLAW_JSON5 = `// OpenClaw config
{
  gateway: {
    port: 19001, // moved off the default
    bind: 'loopback',
    auth: {
      mode: "token",
      token: "file-token-abc123", /* the operator token */
    },
  },
  agents: { defaults: { model: { primary: 'zhipu/glm-5.1', fallbacks: ['deepseek/deepseek-v4-pro',], }, }, },
}
`;

describe('resolveGatewayEndpoint: port', () => {
  it('defaults to 18789 with no config, no environment and no openclaw.json', () => {
    const endpoint = resolveGatewayEndpoint(loaded(), environment());
    expect(endpoint).toMatchObject({
      port: DEFAULT_GATEWAY_PORT,
      portSource: 'default',
      token: null,
      tokenSource: null,
      baseUrl: 'http://127.0.0.1:18789',
      warnings: [],
    });
    expect(endpoint.openclawConfigPath).toBe(join(stateDir, 'openclaw.json'));
  });

  it('takes gateway.port from openclaw.json (JSON5 with comments and trailing commas)', () => {
    writeOpenClawJson(OPENCLAW_JSON5);
    const endpoint = resolveGatewayEndpoint(loaded(), environment());
    expect(endpoint).toMatchObject({ port: 19001, portSource: 'openclaw.json', baseUrl: 'http://127.0.0.1:19001' });
    expect(endpoint.warnings).toEqual([]);
  });

  it('prefers OPENCLAW_GATEWAY_PORT over openclaw.json', () => {
    writeOpenClawJson(OPENCLAW_JSON5);
    const env = { OPENCLAW_GATEWAY_PORT: ' 19555 ' };
    expect(resolveGatewayEndpoint(loaded({}, env), environment(env))).toMatchObject({ port: 19555, portSource: 'env' });
  });

  it("prefers BreakerBar's config over everything", () => {
    writeOpenClawJson(OPENCLAW_JSON5);
    const env = { OPENCLAW_GATEWAY_PORT: '19555' };
    expect(resolveGatewayEndpoint(loaded({ url: 'http://127.0.0.1:20000/' }, env), environment(env))).toMatchObject({
      port: 20000,
      portSource: 'config',
      baseUrl: 'http://127.0.0.1:20000',
    });
  });

  it('takes a gatewayUrl on another host as given (port from the URL, or the scheme default)', () => {
    expect(resolveGatewayEndpoint(loaded({ url: 'http://gateway.lan:18999' }), environment())).toMatchObject({
      port: 18999,
      baseUrl: 'http://gateway.lan:18999',
    });
    expect(resolveGatewayEndpoint(loaded({ url: 'https://gw.example' }), environment()).port).toBe(443);
  });

  it.each(['abc', '0', '65536', '18789.5', '-1', '1e4'])(
    'warns about OPENCLAW_GATEWAY_PORT=%s and falls through',
    (value) => {
      writeOpenClawJson(OPENCLAW_JSON5);
      const env = { OPENCLAW_GATEWAY_PORT: value };
      const endpoint = resolveGatewayEndpoint(loaded({}, env), environment(env));
      expect(endpoint).toMatchObject({ port: 19001, portSource: 'openclaw.json' });
      expect(endpoint.warnings).toHaveLength(1);
      expect(endpoint.warnings[0]).toContain('OPENCLAW_GATEWAY_PORT');
    },
  );

  it('treats a blank OPENCLAW_GATEWAY_PORT as unset', () => {
    const env = { OPENCLAW_GATEWAY_PORT: '  ' };
    const endpoint = resolveGatewayEndpoint(loaded({}, env), environment(env));
    expect(endpoint).toMatchObject({ port: DEFAULT_GATEWAY_PORT, portSource: 'default', warnings: [] });
  });

  it('warns about an invalid gateway.port in openclaw.json and uses the default', () => {
    const path = writeOpenClawJson('{ gateway: { port: 70000 } }');
    const endpoint = resolveGatewayEndpoint(loaded(), environment());
    expect(endpoint).toMatchObject({ port: DEFAULT_GATEWAY_PORT, portSource: 'default' });
    expect(endpoint.warnings).toEqual([`gateway.port in ${path} is not a port (1-65535); ignoring it`]);
  });
});

describe('resolveGatewayEndpoint: token', () => {
  it('takes gateway.auth.token from openclaw.json', () => {
    writeOpenClawJson(OPENCLAW_JSON5);
    expect(resolveGatewayEndpoint(loaded(), environment())).toMatchObject({
      token: 'file-token-abc123',
      tokenSource: 'openclaw.json',
    });
  });

  it('prefers OPENCLAW_GATEWAY_TOKEN over openclaw.json', () => {
    writeOpenClawJson(OPENCLAW_JSON5);
    const env = { OPENCLAW_GATEWAY_TOKEN: 'env-token-xyz' };
    expect(resolveGatewayEndpoint(loaded({}, env), environment(env))).toMatchObject({
      token: 'env-token-xyz',
      tokenSource: 'env',
    });
  });

  it("prefers BreakerBar's config over everything", () => {
    writeOpenClawJson(OPENCLAW_JSON5);
    const env = { OPENCLAW_GATEWAY_TOKEN: 'env-token-xyz' };
    expect(resolveGatewayEndpoint(loaded({ token: 'config-token' }, env), environment(env))).toMatchObject({
      token: 'config-token',
      tokenSource: 'config',
    });
  });

  it('does not read openclaw.json when config and environment already say everything', () => {
    writeOpenClawJson('{ this is not json5');
    const env = { OPENCLAW_GATEWAY_TOKEN: 'env-token-xyz', OPENCLAW_GATEWAY_PORT: '19555' };
    expect(resolveGatewayEndpoint(loaded({}, env), environment(env)).warnings).toEqual([]);
  });

  it(`resolves \${VAR} in the token from the environment, as OpenClaw does`, () => {
    writeOpenClawJson(`{ gateway: { auth: { token: "\${MY_GATEWAY_SECRET}" } } }`);
    const env = { MY_GATEWAY_SECRET: 'from-substitution' };
    expect(resolveGatewayEndpoint(loaded({}, env), environment(env))).toMatchObject({
      token: 'from-substitution',
      tokenSource: 'openclaw.json',
    });
  });

  it(`warns, naming the variable, when \${VAR} is not set`, () => {
    writeOpenClawJson(`{ gateway: { auth: { token: "\${MY_GATEWAY_SECRET}" } } }`);
    const endpoint = resolveGatewayEndpoint(loaded(), environment());
    expect(endpoint).toMatchObject({ token: null, tokenSource: null });
    expect(endpoint.warnings).toHaveLength(1);
    expect(endpoint.warnings[0]).toContain(`\${MY_GATEWAY_SECRET}`);
  });

  it('follows an env secret ref and refuses other secret-ref sources', () => {
    writeOpenClawJson('{ gateway: { auth: { token: { source: "env", provider: "default", id: "TOKEN_VAR" } } } }');
    const env = { TOKEN_VAR: 'via-secret-ref' };
    expect(resolveGatewayEndpoint(loaded({}, env), environment(env)).token).toBe('via-secret-ref');

    writeOpenClawJson('{ gateway: { auth: { token: { source: "file", id: "/run/secrets/gw" } } } }');
    const endpoint = resolveGatewayEndpoint(loaded(), environment());
    expect(endpoint.token).toBeNull();
    expect(endpoint.warnings[0]).toContain('secret reference');
  });
});

describe('resolveGatewayEndpoint: openclaw.json location and problems', () => {
  it('reads OPENCLAW_CONFIG_PATH instead of <stateDir>/openclaw.json', () => {
    writeOpenClawJson('{ gateway: { port: 19001 } }');
    const elsewhere = writeOpenClawJson('{ gateway: { port: 19002 } }', join(tmp, 'custom.json5'));
    const env = { OPENCLAW_CONFIG_PATH: elsewhere };
    const endpoint = resolveGatewayEndpoint(loaded({}, env), environment(env));
    expect(endpoint).toMatchObject({ port: 19002, portSource: 'openclaw.json', openclawConfigPath: elsewhere });
  });

  it('warns about invalid JSON5 naming the file and position, never its content, and falls through', () => {
    const path = writeOpenClawJson('{\n  gateway: { auth: { token: "super-secret-value" oops } },\n}');
    const endpoint = resolveGatewayEndpoint(loaded(), environment());
    expect(endpoint).toMatchObject({ port: DEFAULT_GATEWAY_PORT, portSource: 'default', token: null });
    expect(endpoint.warnings).toHaveLength(1);
    expect(endpoint.warnings[0]).toContain(path);
    expect(endpoint.warnings[0]).toMatch(/line 2, column \d+/);
    expect(endpoint.warnings[0]).not.toContain('secret');
    expect(endpoint.warnings[0]).not.toContain('oops');
  });

  it('warns about an openclaw.json that is not an object', () => {
    writeOpenClawJson('["gateway"]');
    expect(resolveGatewayEndpoint(loaded(), environment()).warnings[0]).toContain('is not an object');
  });

  it('warns about an openclaw.json that cannot be read', () => {
    // A directory where the file should be: unreadable as a file for every user, root included.
    const path = join(stateDir, 'openclaw.json');
    mkdirSync(path);
    const endpoint = resolveGatewayEndpoint(loaded(), environment());
    expect(endpoint).toMatchObject({ port: DEFAULT_GATEWAY_PORT, token: null });
    expect(endpoint.warnings).toEqual([`cannot read OpenClaw config ${path} (EISDIR); ignoring it`]);
  });
});

describe('readOpenClawConfig', () => {
  it('returns the parsed object', () => {
    const path = writeOpenClawJson(OPENCLAW_JSON5);
    const { config, warning } = readOpenClawConfig(path);
    expect(warning).toBeNull();
    expect(config).toMatchObject({ gateway: { port: 19001, bind: 'loopback' } });
  });

  it('treats a missing file as normal: no config, no warning', () => {
    expect(readOpenClawConfig(join(tmp, 'missing.json'))).toEqual({ config: null, warning: null });
  });
});
