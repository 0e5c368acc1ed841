import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import type { RepeatLog } from '../log-repeats.js';
import { logServerError } from './failure-log.js';
import type { Metrics } from './metrics.js';
import { requestIdOf, withRequestId } from './request-id.js';
import { routePatternOf } from './route-pattern.js';
import { securityHeaders } from './security-headers.js';
import { VisitorError, visitorErrorPage } from './visitor-errors.js';

export interface EnvelopeOptions {
  log: Logger;
  /** where expected failures (an outage) collapse their repeats */
  repeats: RepeatLog;
  metrics: Metrics;
  /** the proxy's X-Request-Id is kept only when it is trusted */
  trustProxy: boolean;
  /** the issuer is https: Strict-Transport-Security on every answer */
  https: boolean;
  /** ACCESS_LOG: a line for every request */
  accessLog: boolean;
}

/**
 * The outermost middleware, one layer for what every request needs around its surface: an id (answered in
 * X-Request-Id, carried by every log line written while serving it), the visitor's error page for any error of a
 * browser surface and any path nobody served (the JSON surfaces answer their own errors, lib/app/surfaces.ts), the
 * security headers once answered, the latency metric by claiming surface, and a log line for every 5xx whichever
 * surface produced it (lib/http/failure-log.ts), and with ACCESS_LOG the request's line. One async frame instead of one per concern: each costs a promise on every request.
 */
export function requestEnvelope({ log, repeats, metrics, trustProxy, https, accessLog }: EnvelopeOptions): Middleware {
  const answerError = visitorErrorPage(log);
  const setSecurityHeaders = securityHeaders({ https });
  return (ctx, next) => {
    const requestId = requestIdOf(ctx, trustProxy);
    ctx.set('X-Request-Id', requestId);
    return withRequestId(requestId, async () => {
      const started = performance.now();
      try {
        try {
          await next();
          if (ctx.status === 404 && ctx.body === undefined) throw new VisitorError('not_found', 404);
        } catch (error) {
          answerError(ctx, error);
        }
        setSecurityHeaders(ctx);
      } finally {
        const seconds = (performance.now() - started) / 1000;
        metrics.observe(ctx, seconds);
        const status = ctx.status;
        if (accessLog) {
          log.info('request', {
            method: ctx.method,
            route: routePatternOf(ctx),
            status,
            durationMs: Math.round(seconds * 1e4) / 10,
            surface: ctx.state.surface?.name ?? null,
          });
        }
        if (status >= 500) logServerError(repeats, ctx);
      }
    });
  };
}
