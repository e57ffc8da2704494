/**
 * Check 4: where the gateway is expected, where its port and operator token
 * come from (never the token itself), and one probe of its health endpoints.
 */

import { translator } from '../../words/messages/index.js';
import type { Environment, LoadedConfig } from '../config/index.js';
import { probeGateway } from '../gateway/probe.js';
import { resolveGatewayEndpoint } from '../openclaw/gateway-endpoint.js';
import { type Finding, finding, saidFinding } from './types.js';

export interface ProbeTimeouts {
  connectTimeoutMs: number;
  readTimeoutMs: number;
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
    saidFinding(
      'gateway',
      'info',
      { key: 'doctor.gateway.url', params: { url } },
      { key: 'doctor.gateway.portSource', params: { source: endpoint.portSource, path: endpoint.openclawConfigPath } },
    ),
  );
  for (const warning of endpoint.warnings) {
    // The warning itself is worded by gateway-endpoint.ts (shared with the daemon's log), in English only.
    findings.push(finding('gateway', 'warn', warning, undefined, translator('en').t('doctor.gateway.endpointFix')));
  }

  if (endpoint.tokenSource !== null) {
    findings.push(
      saidFinding(
        'gateway',
        'ok',
        { key: 'doctor.gateway.tokenFound' },
        {
          key: 'doctor.gateway.tokenFrom',
          params: { source: endpoint.tokenSource, path: endpoint.openclawConfigPath },
        },
      ),
    );
  } else {
    const metrics = loaded.config.gatewayMetrics.enabled;
    findings.push(
      saidFinding(
        'gateway',
        'info',
        { key: 'doctor.gateway.tokenMissing' },
        { key: metrics ? 'doctor.gateway.tokenForMetrics' : 'doctor.gateway.tokenNotNeeded' },
        metrics ? { key: 'doctor.gateway.tokenForMetricsFix' } : undefined,
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
          saidFinding(
            'gateway',
            'warn',
            { key: 'doctor.gateway.notReady', params: { failing: result.ready.failing } },
            { key: 'doctor.gateway.notReadyDetail' },
            { key: 'doctor.gateway.notReadyFix' },
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
          { key: 'doctor.gateway.busyDetail', params: { state: result.class, detail: result.detail } },
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
        saidFinding('gateway', 'error', { key: 'doctor.gateway.reset', params: { url } }, result.detail, {
          key: 'doctor.gateway.resetFix',
        }),
      );
      break;
    case 'error':
      findings.push(
        saidFinding('gateway', 'error', { key: 'doctor.gateway.cannotProbe', params: { url } }, result.detail, {
          key: 'doctor.gateway.cannotProbeFix',
        }),
      );
      break;
    case 'not_openclaw':
      findings.push(
        saidFinding(
          'gateway',
          'error',
          { key: 'doctor.gateway.notOpenClaw', params: { url } },
          { key: 'doctor.gateway.notOpenClawDetail', params: { detail: result.detail } },
          { key: 'doctor.gateway.notOpenClawFix' },
        ),
      );
      break;
    case 'unknown':
      findings.push(
        saidFinding('gateway', 'warn', { key: 'doctor.gateway.unjudged', params: { url } }, result.detail, {
          key: 'doctor.gateway.unjudgedFix',
        }),
      );
      break;
    default: {
      const status = Number(result.class.slice('http_'.length));
      findings.push(
        saidFinding('gateway', 'error', { key: 'doctor.gateway.http', params: { url, status } }, result.detail, {
          key: 'doctor.gateway.httpFix',
          params: { status },
        }),
      );
    }
  }
  return findings;
}
