/**
 * Check 4: where the gateway is expected, where its port and operator token
 * come from (never the token itself), and one probe of its health endpoints.
 */
import type { Environment, LoadedConfig } from '../config/index.js';
import { probeGateway } from '../gateway/probe.js';
import {
  type GatewayEndpoint,
  type PortSource,
  resolveGatewayEndpoint,
  type TokenSource,
} from '../openclaw/gateway-endpoint.js';
import { type Finding, finding, saidFinding } from './types.js';

export interface ProbeTimeouts {
  connectTimeoutMs: number;
  readTimeoutMs: number;
}

function portSourceText(endpoint: GatewayEndpoint): string {
  const sources: Record<PortSource, string> = {
    config: "gatewayUrl in BreakerBar's config",
    env: 'port from OPENCLAW_GATEWAY_PORT',
    'openclaw.json': `port from gateway.port in ${endpoint.openclawConfigPath}`,
    default: "OpenClaw's default port (no OPENCLAW_GATEWAY_PORT, no gateway.port in openclaw.json)",
  };
  return sources[endpoint.portSource];
}

function tokenSourceText(source: TokenSource, endpoint: GatewayEndpoint): string {
  const sources: Record<TokenSource, string> = {
    config: "gatewayToken in BreakerBar's config",
    env: 'OPENCLAW_GATEWAY_TOKEN',
    'openclaw.json': `gateway.auth.token in ${endpoint.openclawConfigPath}`,
  };
  return sources[source];
}

export async function checkGateway(
  loaded: LoadedConfig,
  environment: Environment,
  timeouts: ProbeTimeouts,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const endpoint = resolveGatewayEndpoint(loaded, environment);
  const url = endpoint.baseUrl;
  findings.push(
    saidFinding('gateway', 'info', { key: 'doctor.gateway.url', params: { url } }, portSourceText(endpoint)),
  );
  for (const warning of endpoint.warnings) {
    findings.push(
      finding(
        'gateway',
        'warn',
        warning,
        undefined,
        'correct or remove that value; meanwhile the next place in the order is used (gatewayUrl, OPENCLAW_GATEWAY_PORT, gateway.port, 18789)',
      ),
    );
  }

  if (endpoint.tokenSource !== null) {
    findings.push(
      saidFinding(
        'gateway',
        'ok',
        { key: 'doctor.gateway.tokenFound' },
        `from ${tokenSourceText(endpoint.tokenSource, endpoint)} (not shown)`,
      ),
    );
  } else {
    const metrics = loaded.config.gatewayMetrics.enabled;
    findings.push(
      saidFinding(
        'gateway',
        'info',
        { key: 'doctor.gateway.tokenMissing' },
        metrics
          ? "OpenClaw's own metrics need it (served only where OpenClaw's diagnostics-prometheus plugin is installed and enabled); BreakerBar does not need those metrics: the gateway log and transcripts are read without it"
          : 'only needed for gatewayMetrics, which is off',
        metrics
          ? "only if this gateway has that plugin (`openclaw plugins list` shows it): set OPENCLAW_GATEWAY_TOKEN or gatewayToken in BreakerBar's config"
          : undefined,
      ),
    );
  }

  const result = await probeGateway({ baseUrl: url, ...timeouts });
  const where = (() => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  })();
  switch (result.class) {
    case 'ok': {
      findings.push(
        saidFinding(
          'gateway',
          'ok',
          {
            key: 'doctor.gateway.answers',
            params: { url, latencyMs: Math.round(result.latencyMs ?? 0), startup: result.startup },
          },
          result.detail,
        ),
      );
      if (result.ready && !result.ready.ready) {
        findings.push(
          finding(
            'gateway',
            'warn',
            result.ready.failing.length > 0
              ? `gateway not ready: ${result.ready.failing.join(', ')} failing`
              : 'gateway not ready (/readyz)',
            'channels report their health separately from the gateway: a restart will not fix a channel',
            'check the channel with `openclaw health --json` and its credentials',
          ),
        );
      }
      break;
    }
    case 'starting':
    case 'draining':
      findings.push(
        saidFinding(
          'gateway',
          'warn',
          { key: 'doctor.gateway.busy', params: { url, state: result.class } },
          result.class === 'starting'
            ? `${result.detail}; startup can take minutes on large installs`
            : `${result.detail}; it is finishing work before stopping`,
          { key: 'doctor.gateway.busyFix' },
        ),
      );
      break;
    case 'refused':
      findings.push(
        saidFinding('gateway', 'error', { key: 'doctor.gateway.refused', params: { where } }, result.detail, {
          key: 'doctor.gateway.refusedFix',
        }),
      );
      break;
    case 'read_timeout':
      findings.push(
        saidFinding(
          'gateway',
          'error',
          { key: 'doctor.gateway.hung', params: { url, timeoutMs: timeouts.readTimeoutMs } },
          result.detail,
          { key: 'doctor.gateway.hungFix' },
        ),
      );
      break;
    case 'connect_timeout':
      findings.push(
        saidFinding(
          'gateway',
          'error',
          { key: 'doctor.gateway.connectTimeout', params: { where, timeoutMs: timeouts.connectTimeoutMs } },
          result.detail,
          { key: 'doctor.gateway.connectTimeoutFix' },
        ),
      );
      break;
    case 'reset':
      findings.push(
        finding(
          'gateway',
          'error',
          `gateway at ${url} reset the connection`,
          result.detail,
          'is something else listening on that port? `openclaw gateway status`',
        ),
      );
      break;
    case 'error':
      findings.push(
        finding(
          'gateway',
          'error',
          `cannot probe the gateway at ${url}`,
          result.detail,
          'set gatewayUrl to the http:// URL of the gateway on loopback',
        ),
      );
      break;
    case 'not_openclaw':
      findings.push(
        saidFinding(
          'gateway',
          'error',
          { key: 'doctor.gateway.notOpenClaw', params: { url } },
          `${result.detail}; the watchdog never restarts anything for it`,
          { key: 'doctor.gateway.notOpenClawFix' },
        ),
      );
      break;
    case 'unknown':
      findings.push(
        finding(
          'gateway',
          'warn',
          `could not judge the gateway at ${url}`,
          result.detail,
          'BreakerBar itself was too busy to time the probe: run `breakerbar doctor` again',
        ),
      );
      break;
    default: {
      const status = Number(result.class.slice('http_'.length));
      findings.push(
        finding(
          'gateway',
          'error',
          `gateway at ${url} answered HTTP ${status}`,
          result.detail,
          status >= 500
            ? 'the gateway is failing: see its log, then `openclaw gateway restart`'
            : 'is this the OpenClaw gateway? check the port (`openclaw gateway status`) and gatewayUrl',
        ),
      );
    }
  }
  return findings;
}
